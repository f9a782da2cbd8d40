#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/error.hpp"
#include "adasketch/random/philox.hpp"
#include "test_support.hpp"

using namespace adasketch;

TEST(BlockPartition, CoversEveryFeatureOnceForAnyDAndP) {
  for (index_t d : {1, 2, 3, 5, 7, 10, 123, 1000})
    for (int p = 1; p <= 9; ++p) {
      BlockPartition part(d, p);
      index_t covered = 0;
      for (int r = 0; r < p; ++r) {
        EXPECT_LE(part.begin(r), part.end(r));
        EXPECT_EQ(part.begin(r), r == 0 ? 0 : part.end(r - 1));
        for (index_t j = part.begin(r); j < part.end(r); ++j) EXPECT_EQ(part.owner(j), r);
        covered += part.size(r);
      }
      EXPECT_EQ(covered, d);
      EXPECT_EQ(part.end(p - 1), d);
    }
}

TEST(BlockPartition, MoreRanksThanFeaturesGivesEmptyBlocks) {
  BlockPartition part(2, 5);
  EXPECT_EQ(part.size(0), 1);
  EXPECT_EQ(part.size(1), 1);
  EXPECT_EQ(part.size(4), 0);
}

TEST(BlockPartition, RejectsNonPositiveSizes) {
  EXPECT_THROW(BlockPartition(0, 2), InvalidArgument);
  EXPECT_THROW(BlockPartition(5, 0), InvalidArgument);
}

TEST(BlockPartition, LargestDimensionsDoNotOverflow) {
  const index_t max = std::numeric_limits<index_t>::max();
  const BlockPartition part(max, 3);
  EXPECT_EQ(part.block_size(), max / 3 + 1);  // ceil(d/P), d not a multiple of 3
  EXPECT_EQ(part.end(2), max);
  EXPECT_EQ(part.size(0) + part.size(1) + part.size(2), max);
  EXPECT_THROW(part.interleaved(2), InvalidArgument);  // d·K beyond int64
  EXPECT_EQ(BlockPartition(index_t{1} << 40, 2).interleaved(1 << 20).dim(), index_t{1} << 60);
}

TEST(Communicator, AllreduceSumsOverRanks) {
  const auto comm = test::world();
  std::vector<double> v = {1.0, static_cast<double>(comm.rank())};
  comm.allreduce_sum(v);
  const int p = comm.size();
  EXPECT_DOUBLE_EQ(v[0], p);
  EXPECT_DOUBLE_EQ(v[1], p * (p - 1) / 2.0);
  EXPECT_EQ(comm.allreduce_max(static_cast<index_t>(comm.rank())), p - 1);
  EXPECT_EQ(comm.allreduce_min(static_cast<index_t>(comm.rank())), 0);
}

TEST(Communicator, CollectivesOfTheParallelReader) {
  const auto comm = test::world();
  const int p = comm.size(), r = comm.rank();
  const auto ranks = static_cast<std::size_t>(p);
  EXPECT_EQ(comm.allreduce_min(static_cast<double>(r) - 0.5), -0.5);
  std::vector<index_t> root_values = {r == 0 ? 7 : 0, r == 0 ? -9 : 0};
  comm.broadcast(root_values, 0);
  EXPECT_EQ(root_values, (std::vector<index_t>{7, -9}));
  // allgather: two values a rank, in rank order.
  std::vector<index_t> all(2 * ranks);
  comm.allgather(std::vector<index_t>{r, 10 * r}, all);
  for (int q = 0; q < p; ++q) {
    EXPECT_EQ(all[2 * q], q);
    EXPECT_EQ(all[2 * q + 1], 10 * q);
  }
  // alltoall: rank r sends 100 r + q to rank q.
  std::vector<index_t> send(ranks), got(ranks);
  for (int q = 0; q < p; ++q) send[q] = 100 * r + q;
  comm.alltoall(send, got);
  for (int q = 0; q < p; ++q) EXPECT_EQ(got[q], 100 * q + r);
  // alltoallv: rank r sends q + 1 copies of r to rank q; receives r + 1 copies of each q.
  std::vector<index_t> counts(ranks), values;
  for (int q = 0; q < p; ++q) {
    counts[q] = q + 1;
    values.insert(values.end(), static_cast<std::size_t>(q + 1), r);
  }
  std::vector<index_t> incoming(ranks, r + 1), received(ranks * static_cast<std::size_t>(r + 1));
  comm.alltoallv(values, counts, received, incoming);
  for (int q = 0; q < p; ++q)
    for (int k = 0; k <= r; ++k) EXPECT_EQ(received[static_cast<std::size_t>(q * (r + 1) + k)], q);
  EXPECT_THROW(comm.alltoallv(values, std::vector<index_t>(ranks + 1), received, incoming), InvalidArgument);
  // scatter and scatterv from the last rank: rank q gets q + 1 bytes 'a' + q (the root's stays in place).
  const int root = p - 1;
  std::vector<index_t> sizes(2 * ranks), mine(2);
  std::string text;
  std::vector<index_t> offsets = {0};
  for (int q = 0; q < p; ++q) {
    sizes[2 * q] = q + 1;
    sizes[2 * q + 1] = q;
    text += std::string(static_cast<std::size_t>(q + 1), static_cast<char>('a' + q));
    offsets.push_back(static_cast<index_t>(text.size()));
  }
  comm.scatter(sizes, mine, root);
  EXPECT_EQ(mine[0], r + 1);
  EXPECT_EQ(mine[1], r);
  std::string block(static_cast<std::size_t>(r + 1), '?');
  if (r == root) {
    comm.scatterv(text, offsets, {}, root);
    EXPECT_EQ(text.substr(static_cast<std::size_t>(offsets[root])), std::string(static_cast<std::size_t>(p), static_cast<char>('a' + root)));
  } else {
    comm.scatterv({}, {}, block, root);
    EXPECT_EQ(block, std::string(static_cast<std::size_t>(r + 1), static_cast<char>('a' + r)));
  }
}

TEST(Communicator, WorksOnASubCommunicatorItDoesNotOwn) {
  const auto world = test::world();
  MPI_Comm half;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, world.rank() % 2, world.rank(), &half), MPI_SUCCESS);
  {
    Communicator sub(half);
    EXPECT_EQ(sub.allreduce_sum(static_cast<index_t>(1)), sub.size());
  }
  // The wrapper did not free it: the handle is still valid for the caller.
  int size = 0;
  EXPECT_EQ(MPI_Comm_size(half, &size), MPI_SUCCESS);
  MPI_Comm_free(&half);
}

TEST(Communicator, RejectsNullHandle) { EXPECT_THROW(Communicator(MPI_COMM_NULL), InvalidArgument); }

TEST(Communicator, MpiErrorCodeBecomesTypedException) {
  EXPECT_NO_THROW(check_mpi(MPI_SUCCESS, "MPI_Foo"));
  try {
    check_mpi(MPI_ERR_COUNT, "MPI_Foo");
    FAIL() << "no exception";
  } catch (const MpiError& e) {
    EXPECT_EQ(e.code(), MPI_ERR_COUNT);
    EXPECT_NE(std::string(e.what()).find("MPI_Foo"), std::string::npos);
  }
}

// Known-answer vectors of Philox4x32-10 from Random123's kat_vectors (independent of this code).
TEST(Philox, MatchesRandom123KnownAnswers) {
  std::uint32_t out[4];
  Philox(0).generate(0, 0, out);
  EXPECT_EQ(out[0], 0x6627e8d5u);
  EXPECT_EQ(out[1], 0xe169c58du);
  EXPECT_EQ(out[2], 0xbc57ac4cu);
  EXPECT_EQ(out[3], 0x9b00dbd8u);
  // counter = all ones, key = all ones
  Philox(~0ull).generate(~0ull, ~0ull, out);
  EXPECT_EQ(out[0], 0x408f276du);
  EXPECT_EQ(out[1], 0x41c83b0eu);
  EXPECT_EQ(out[2], 0xa20bc7c6u);
  EXPECT_EQ(out[3], 0x6d5451fdu);
}

TEST(Philox, NormalHasUnitMoments) {
  Philox rng(42);
  double s = 0, s2 = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double x = rng.normal(7, static_cast<std::uint64_t>(i));
    s += x;
    s2 += x * x;
  }
  EXPECT_NEAR(s / n, 0.0, 0.01);
  EXPECT_NEAR(s2 / n, 1.0, 0.02);
}
