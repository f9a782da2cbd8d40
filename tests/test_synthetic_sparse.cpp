// The sparse text-like generator (make_sparse_classification): the same rows at every rank count,
// feature frequencies against the power law's own probabilities, term-count values, and labels that a
// linear classifier separates (noise = 0) or that noise scrambles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "adasketch/data/synthetic.hpp"
#include "adasketch/error.hpp"
#include "test_support.hpp"

using namespace adasketch;

namespace {

// One example as global (feature, value) pairs, ascending.
struct GlobalRow {
  double label = 0.0;
  std::vector<std::pair<index_t, double>> entries;
};

// Every example's global row, assembled on every rank (each rank contributes its own block's entries).
std::vector<GlobalRow> gather_rows(const Communicator& comm, ExampleSource& source) {
  const BlockPartition& part = source.partition();
  const index_t begin = part.begin(comm.rank());
  std::vector<GlobalRow> rows;
  for (Example e; source.next(e);) {
    EXPECT_FALSE(e.dense);
    EXPECT_EQ(e.position, static_cast<index_t>(rows.size()) + 1);
    EXPECT_TRUE(std::is_sorted(e.indices.begin(), e.indices.end()));
    // Entries of all ranks: a dense local vector summed over ranks (d is small in these tests).
    std::vector<double> dense(static_cast<std::size_t>(part.dim()), 0.0);
    for (std::size_t k = 0; k < e.indices.size(); ++k) {
      EXPECT_LT(e.indices[k], part.size(comm.rank()));
      dense[static_cast<std::size_t>(begin + e.indices[k])] = e.values[k];
    }
    comm.allreduce_sum(std::span<double>(dense));
    GlobalRow row{e.label, {}};
    for (index_t j = 0; j < part.dim(); ++j)
      if (dense[static_cast<std::size_t>(j)] != 0.0) row.entries.emplace_back(j, dense[static_cast<std::size_t>(j)]);
    rows.push_back(std::move(row));
  }
  return rows;
}

TEST(SparseClassification, SameRowsAtEveryRankCount) {
  const auto comm = test::world();
  for (const SparseClassificationOptions& o :
       {SparseClassificationOptions{.dim = 40, .examples = 200, .nonzeros = 6, .zipf = 1.2, .seed = 4},
        SparseClassificationOptions{.dim = 2, .examples = 30, .nonzeros = 2, .noise = 0.5}}) {  // d < P at 3 ranks
    auto world = make_sparse_classification(comm, o);
    const std::vector<GlobalRow> a = gather_rows(comm, *world);
    const Communicator self(MPI_COMM_SELF);
    auto single = make_sparse_classification(self, o);
    const std::vector<GlobalRow> b = gather_rows(self, *single);
    ASSERT_EQ(a.size(), static_cast<std::size_t>(o.examples));
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t t = 0; t < a.size(); ++t) {
      EXPECT_EQ(a[t].label, b[t].label) << "t " << t;
      EXPECT_EQ(a[t].entries, b[t].entries) << "t " << t;
    }
  }
}

TEST(SparseClassification, ValuesAreTermCountsOverRootNnz) {
  const auto comm = test::world();
  const SparseClassificationOptions o{.dim = 30, .examples = 300, .nonzeros = 9, .zipf = 1.5, .seed = 2};
  auto source = make_sparse_classification(comm, o);
  index_t merged = 0;
  for (const GlobalRow& row : gather_rows(comm, *source)) {
    ASSERT_TRUE(row.label == 1.0 || row.label == -1.0);
    double counts = 0.0;
    for (const auto& [j, v] : row.entries) {
      const double c = v * 3.0;  // √9
      EXPECT_NEAR(c, std::round(c), 1e-12);
      EXPECT_GE(std::round(c), 1.0);
      counts += std::round(c);
    }
    EXPECT_EQ(counts, 9.0);  // the draws, repeated ones merged into counts
    merged += row.entries.size() < 9 ? 1 : 0;
  }
  EXPECT_GT(merged, 0);  // at zipf = 1.5 and d = 30 the frequent features repeat
}

// P(k) of the power law's continuous inverse CDF: F(x) = (x^{1−s} − 1)/((d+1)^{1−s} − 1) on [1, d+1).
std::vector<double> power_law_probabilities(index_t d, double s) {
  const auto F = [&](double x) {
    if (s == 0.0) return (x - 1.0) / static_cast<double>(d);
    if (s == 1.0) return std::log(x) / std::log(static_cast<double>(d) + 1.0);
    return (std::pow(x, 1.0 - s) - 1.0) / (std::pow(static_cast<double>(d) + 1.0, 1.0 - s) - 1.0);
  };
  std::vector<double> p;
  for (index_t k = 1; k <= d; ++k) p.push_back(F(static_cast<double>(k + 1)) - F(static_cast<double>(k)));
  return p;
}

TEST(SparseClassification, FeatureFrequenciesFollowThePowerLaw) {
  // One draw per example: the feature histogram, sorted, against the law's sorted probabilities
  // (the feature map is a bijection, so sorting removes it). Total variation < 0.015 at n = 200000
  // (sampling alone gives about 0.006 for the uniform law, less for the steep ones).
  const auto comm = test::world();
  const index_t d = 50, n = 200000;
  for (const double s : {0.0, 1.0, 1.4}) {
    auto source = make_sparse_classification(comm, {.dim = d, .examples = n, .nonzeros = 1, .zipf = s, .seed = 7});
    const index_t begin = source->partition().begin(comm.rank());
    std::vector<double> counts(static_cast<std::size_t>(d), 0.0);
    for (Example e; source->next(e);)
      for (const index_t j : e.indices) counts[static_cast<std::size_t>(begin + j)] += 1.0;
    comm.allreduce_sum(std::span<double>(counts));
    std::vector<double> p = power_law_probabilities(d, s);
    std::sort(counts.rbegin(), counts.rend());
    std::sort(p.rbegin(), p.rend());
    double tv = 0.0, total = 0.0;
    for (std::size_t k = 0; k < p.size(); ++k) {
      tv += 0.5 * std::abs(counts[k] / static_cast<double>(n) - p[k]);
      total += counts[k];
    }
    EXPECT_EQ(total, static_cast<double>(n)) << "zipf " << s;
    EXPECT_LT(tv, 0.015) << "zipf " << s;
  }
}

TEST(SparseClassification, FrequentFeaturesAreScatteredOverTheRange) {
  // Feature ranks 1..5 of a steep law land in different fifths of 1..d (rank 1 is feature 0).
  const auto comm = test::world();
  const index_t d = 1000;
  auto source = make_sparse_classification(comm, {.dim = d, .examples = 20000, .nonzeros = 1, .zipf = 2.0});
  const index_t begin = source->partition().begin(comm.rank());
  std::vector<double> counts(static_cast<std::size_t>(d), 0.0);
  for (Example e; source->next(e);)
    for (const index_t j : e.indices) counts[static_cast<std::size_t>(begin + j)] += 1.0;
  comm.allreduce_sum(std::span<double>(counts));
  std::vector<index_t> top(static_cast<std::size_t>(d));
  for (index_t j = 0; j < d; ++j) top[static_cast<std::size_t>(j)] = j;
  std::stable_sort(top.begin(), top.end(), [&](index_t a, index_t b) { return counts[a] > counts[b]; });
  EXPECT_EQ(top[0], 0);
  std::vector<index_t> fifths;
  for (int k = 0; k < 5; ++k) fifths.push_back(top[static_cast<std::size_t>(k)] * 5 / d);
  std::sort(fifths.begin(), fifths.end());
  EXPECT_GE(std::unique(fifths.begin(), fifths.end()) - fifths.begin(), 3);
}

TEST(SparseClassification, NoiselessLabelsAreLinearlySeparable) {
  // y = sign(θᵀx): a perceptron on the gathered rows reaches zero mistakes; with noise = 50 the
  // labels agree with the noiseless ones about half the time.
  const auto comm = test::world();
  const SparseClassificationOptions o{.dim = 25, .examples = 1500, .nonzeros = 5, .zipf = 0.5, .seed = 11};
  auto clean = make_sparse_classification(comm, o);
  const std::vector<GlobalRow> rows = gather_rows(comm, *clean);
  std::vector<double> w(static_cast<std::size_t>(o.dim), 0.0);
  index_t mistakes = 1, positive = 0;
  for (const GlobalRow& r : rows) positive += r.label > 0 ? 1 : 0;
  EXPECT_GT(positive, o.examples / 4);
  EXPECT_LT(positive, 3 * o.examples / 4);
  for (int epoch = 0; epoch < 20000 && mistakes > 0; ++epoch) {
    mistakes = 0;
    for (const GlobalRow& r : rows) {
      double dot = 0.0;
      for (const auto& [j, v] : r.entries) dot += w[static_cast<std::size_t>(j)] * v;
      if (dot * r.label > 0.0) continue;
      ++mistakes;
      for (const auto& [j, v] : r.entries) w[static_cast<std::size_t>(j)] += r.label * v;
    }
  }
  EXPECT_EQ(mistakes, 0);
  SparseClassificationOptions noisy = o;
  noisy.noise = 50.0;
  auto scrambled = make_sparse_classification(comm, noisy);
  const std::vector<GlobalRow> other = gather_rows(comm, *scrambled);
  index_t agree = 0;
  for (std::size_t t = 0; t < rows.size(); ++t) {
    EXPECT_EQ(other[t].entries, rows[t].entries);  // noise changes labels only
    agree += other[t].label == rows[t].label ? 1 : 0;
  }
  EXPECT_GT(agree, o.examples * 4 / 10);
  EXPECT_LT(agree, o.examples * 6 / 10);
}

TEST(SparseClassification, LargeDimensionIsCheapAndInRange) {
  // d = 10^12: no d-sized state; indices stay in each rank's block.
  const auto comm = test::world();
  auto source = make_sparse_classification(comm, {.dim = index_t{1000000000000}, .examples = 50, .nonzeros = 30, .zipf = 1.1});
  const BlockPartition& part = source->partition();
  index_t entries = 0;
  for (Example e; source->next(e);) {
    for (const index_t j : e.indices) EXPECT_LT(j, part.size(comm.rank()));
    entries += static_cast<index_t>(e.indices.size());
  }
  EXPECT_GT(comm.allreduce_sum(entries), 50 * 25);
}

TEST(SparseClassification, RejectsBadOptions) {
  const auto comm = test::world();
  EXPECT_THROW(make_sparse_classification(comm, {.dim = 5, .nonzeros = 6}), InvalidArgument);
  EXPECT_THROW(make_sparse_classification(comm, {.dim = 5, .nonzeros = 0}), InvalidArgument);
  EXPECT_THROW(make_sparse_classification(comm, {.dim = 5, .nonzeros = 2, .zipf = -1.0}), InvalidArgument);
  EXPECT_THROW(make_sparse_classification(comm, {.dim = 5, .nonzeros = 2, .noise = -1.0}), InvalidArgument);
}

}  // namespace
