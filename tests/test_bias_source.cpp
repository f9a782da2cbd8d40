// BiasSource (bias_source.hpp): each rank's block of every example is that rank's block of the global
// row [x; B] under the source's partition, for dense and sparse rows, with the default split (no data
// moves) and with others (the entries move), at every rank count.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adasketch/data/bias_source.hpp"
#include "adasketch/data/memory_source.hpp"
#include "adasketch/error.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

constexpr index_t kDim = 6, kRows = 4;
constexpr double kBias = 2.5;

// Global row t: x_j = t + j/8 where j + t is odd, else 0 (sparse rows leave the zeros out).
double entry(index_t t, index_t j) {
  return (j + t) % 2 == 1 ? static_cast<double>(t) + static_cast<double>(j) / 8.0 : 0.0;
}

void expect_blocks(ExampleSource& source, const std::string& what) {
  const BlockPartition& p = source.partition();
  const int rank = world().rank();
  const auto size = static_cast<std::size_t>(p.size(rank));
  Example e;
  for (index_t t = 0; t < kRows; ++t) {
    ASSERT_TRUE(source.next(e)) << what;
    EXPECT_EQ(e.label, t % 2 == 1 ? 1.0 : -1.0) << what;
    std::vector<double> block(size, 0.0);
    if (e.dense) {
      ASSERT_EQ(e.values.size(), size) << what;
      block = e.values;
    } else {
      ASSERT_EQ(e.indices.size(), e.values.size()) << what;
      for (std::size_t k = 0; k < e.indices.size(); ++k) {
        ASSERT_LT(static_cast<std::size_t>(e.indices[k]), size) << what;
        if (k > 0) {
          ASSERT_LT(e.indices[k - 1], e.indices[k]) << what;
        }
        block[static_cast<std::size_t>(e.indices[k])] = e.values[k];
      }
    }
    for (index_t j = p.begin(rank); j < p.end(rank); ++j)
      EXPECT_EQ(block[static_cast<std::size_t>(j - p.begin(rank))], j == kDim ? kBias : entry(t, j))
          << what << ": example " << t << ", feature " << j;
  }
  EXPECT_FALSE(source.next(e)) << what;
}

}  // namespace

TEST(BiasSource, AppendsTheBiasFeatureOnAnySplit) {
  const int rank = world().rank(), ranks = world().size();
  const BlockPartition data(kDim, ranks);
  const index_t begin = data.begin(rank), end = data.end(rank);
  std::vector<double> labels, dense, values;
  std::vector<index_t> offsets{0}, indices;
  for (index_t t = 0; t < kRows; ++t) {
    labels.push_back(t % 2 == 1 ? 1.0 : -1.0);
    for (index_t j = begin; j < end; ++j) {
      dense.push_back(entry(t, j));
      if (entry(t, j) == 0.0) continue;
      indices.push_back(j - begin);
      values.push_back(entry(t, j));
    }
    offsets.push_back(static_cast<index_t>(indices.size()));
  }
  std::vector<index_t> all_on_first(static_cast<std::size_t>(ranks), 0);
  all_on_first[0] = kDim + 1;
  for (const bool sparse : {false, true}) {
    MemorySource memory(world(), data);
    if (sparse)
      memory.add_csr(labels, offsets, indices, values);
    else
      memory.add_dense(labels, dense);
    const std::string rows = sparse ? "sparse" : "dense";
    BiasSource natural(world(), memory, kBias);
    EXPECT_EQ(natural.dim(), kDim + 1);
    expect_blocks(natural, rows + ", default split");
    natural.rewind();
    expect_blocks(natural, rows + ", default split, second pass");
    for (const BlockPartition& split : {BlockPartition(kDim + 1, ranks), BlockPartition(all_on_first)}) {
      memory.rewind();
      BiasSource moved(world(), memory, kBias, split);
      expect_blocks(moved, rows + ", split with block 0 of " + std::to_string(split.size(0)));
    }
  }
}

TEST(BiasSource, DefaultSplit) {
  // Room for one more feature in the equal blocks: still uniform, the bias on the rank of feature d.
  const BlockPartition roomy = with_bias_feature(BlockPartition(5, 2));  // blocks of 3: [0,3) [3,5)
  EXPECT_TRUE(roomy.is_uniform());
  EXPECT_EQ(roomy.end(1), 6);
  // No room (the rank count divides d): the last rank's block grows.
  const BlockPartition full = with_bias_feature(BlockPartition(6, 3));  // [0,2) [2,4) [4,6)
  EXPECT_EQ(full.size(0), 2);
  EXPECT_EQ(full.size(1), 2);
  EXPECT_EQ(full.size(2), 3);
  MemorySource empty(world(), BlockPartition(3, world().size()));
  EXPECT_THROW(BiasSource zero(world(), empty, 0.0), InvalidArgument);  // B must be > 0
}
