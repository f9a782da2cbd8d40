// SymmetricEigen (adasketch/linalg/symmetric_eigen.hpp) on Grams with zero rows, as an unfilled
// sketch's are (the rows it splits off come back as exact pairs (0, e_i)), and on positive
// semidefinite arrowheads, which it solves through the secular equation: each result a valid
// eigendecomposition whose eigenvalues match LAPACK's dsyevd on the full matrix (an independent call).
//
// Bound: dsyevd is backward stable, ‖AU − UΛ‖ and ‖UᵀU − I‖ within p(n)·u·‖A‖ (and p(n)·u), with
// p(n) a modest polynomial (LAPACK Users' Guide §4.7); this test takes p(n) = 10·n. Eigenvalues of two
// backward-stable computations differ by at most the sum of their backward errors (Weyl).
#include <gtest/gtest.h>

#include <lapacke.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "adasketch/linalg/symmetric_eigen.hpp"

using namespace adasketch;

namespace {

constexpr double kUnit = 0x1p-53;

// G Gᵀ for a random n × n G whose rows listed in `zero` are zero: a PSD Gram with those zero rows.
std::vector<double> gram_with_zero_rows(int n, const std::vector<int>& zero, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  std::vector<double> g(static_cast<std::size_t>(n) * n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      g[static_cast<std::size_t>(r) * n + c] =
          std::find(zero.begin(), zero.end(), r) != zero.end() ? 0.0 : normal(gen) * std::pow(2.0, -r);
  std::vector<double> a(g.size(), 0.0);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      for (int k = 0; k < n; ++k)
        a[static_cast<std::size_t>(r) * n + c] += g[static_cast<std::size_t>(r) * n + k] * g[static_cast<std::size_t>(c) * n + k];
  return a;
}

// Checks `eigen` on a (row-major n × n): descending values, ‖AU − UΛ‖ and ‖UᵀU − I‖ within the
// bound, eigenvalues against dsyevd's. `steps` backward-stable steps (borderings) each add at most
// one decomposition's error: the bound is p(n) = 10·n·steps.
void expect_valid_decomposition(const SymmetricEigen& eigen, const std::vector<double>& a, int n, const std::string& what,
                                int steps = 1) {
  double norm = 0.0;  // ‖A‖_F ≥ ‖A‖₂
  for (const double v : a) norm += v * v;
  norm = std::sqrt(norm);
  const double p = 10.0 * n * steps;
  const auto lambda = eigen.values();
  const auto u = eigen.vectors();  // row-major, eigenvector k in column k
  for (int k = 1; k < n; ++k) EXPECT_GE(lambda[k - 1], lambda[k]) << what << ": descending";
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) {
      double au = 0.0;
      for (int j = 0; j < n; ++j) au += a[static_cast<std::size_t>(i) * n + j] * u[static_cast<std::size_t>(j) * n + k];
      EXPECT_LE(std::abs(au - lambda[k] * u[static_cast<std::size_t>(i) * n + k]), p * kUnit * norm)
          << what << ": (AU − UΛ)[" << i << ", " << k << "]";
    }
    for (int l = 0; l < n; ++l) {
      double dot = 0.0;
      for (int i = 0; i < n; ++i) dot += u[static_cast<std::size_t>(i) * n + k] * u[static_cast<std::size_t>(i) * n + l];
      EXPECT_LE(std::abs(dot - (k == l ? 1.0 : 0.0)), p * kUnit) << what << ": UᵀU at " << k << ", " << l;
    }
  }
  std::vector<double> full = a, w(static_cast<std::size_t>(n));
  ASSERT_EQ(LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'U', n, full.data(), n, w.data()), 0);
  std::sort(w.begin(), w.end(), std::greater<>());
  for (int k = 0; k < n; ++k)
    EXPECT_LE(std::abs(lambda[k] - w[static_cast<std::size_t>(k)]), 2.0 * p * kUnit * norm) << what << ": eigenvalue " << k;
}

}  // namespace

TEST(SymmetricEigen, ZeroRowsAreSplitOffExactly) {
  const int n = 12;
  for (const auto& zero : {std::vector<int>{}, std::vector<int>{3, 7, 10, 11}, std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                           std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}) {
    const auto a = gram_with_zero_rows(n, zero, 7u + static_cast<unsigned>(zero.size()));
    SymmetricEigen eigen(n);
    eigen.compute(a);
    expect_valid_decomposition(eigen, a, n, std::to_string(zero.size()) + " zero rows");
    // A zero row i: an exact pair (0, e_i) among the columns.
    const auto lambda = eigen.values();
    const auto u = eigen.vectors();
    for (const int i : zero) {
      int found = 0;
      for (int k = 0; k < n; ++k)
        if (u[static_cast<std::size_t>(i) * n + k] == 1.0 && lambda[k] == 0.0) ++found;
      EXPECT_EQ(found, 1) << "e_" << i << " with eigenvalue 0";
    }
  }
}

// Arrowheads as a sparse FD sketch's Gram is after an insertion, B Bᵀ with B's first rows orthogonal
// (diag(d)) and a new row b: M = [D Dc; cᵀD β] in some index order, and the cases the secular
// solver's deflation handles: a new row in the span of the others (ρ = 0), components b_i = 0,
// equal and nearly equal d_i, tiny d_i, a head not last, zero rows, and a diagonal matrix.
TEST(SymmetricEigen, ArrowheadsMatchLapack) {
  std::mt19937_64 gen(5);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  struct Case {
    std::string what;
    int n, head;
    double rho;  // β − ‖c‖²
    std::vector<double> d;  // diagonal of the non-head indices (empty: random)
    std::vector<int> zero_b;  // non-head positions with b = 0
  };
  const std::vector<Case> cases = {
      {"random", 20, 19, 0.7, {}, {}},
      {"new row in the span", 20, 19, 0.0, {}, {}},
      {"head first", 12, 0, 0.3, {}, {}},
      {"head in the middle", 9, 4, 1.5, {}, {}},
      {"some b zero", 10, 9, 0.2, {}, {1, 4, 8}},
      {"equal d", 8, 7, 0.4, {2.0, 2.0, 2.0, 1.0, 0.5, 0.5, 3.0}, {}},
      {"nearly equal d", 8, 7, 0.4, {2.0, 2.0 * (1 + 0x1p-50), 2.0 * (1 - 0x1p-51), 1.0, 0.5, 0.5 + 0x1p-53, 3.0}, {}},
      {"tiny d", 6, 5, 0.1, {1.0, 1e-30, 1e-28, 0.25, 4.0}, {}},
      {"diagonal", 7, 6, 0.9, {}, {0, 1, 2, 3, 4, 5}},
      {"two", 2, 1, 0.5, {}, {}},
      {"widely scaled", 16, 15, 1e-6, {}, {}},
  };
  for (const Case& k : cases) {
    const int n = k.n;
    std::vector<double> d(static_cast<std::size_t>(n - 1)), c(static_cast<std::size_t>(n - 1));
    for (int i = 0; i < n - 1; ++i) {
      d[static_cast<std::size_t>(i)] = k.d.empty() ? (k.what == "widely scaled" ? std::pow(10.0, -12.0 * unit(gen)) : unit(gen) + 0.01)
                                                   : k.d[static_cast<std::size_t>(i)];
      c[static_cast<std::size_t>(i)] = normal(gen) * std::sqrt(d[static_cast<std::size_t>(i)]);
    }
    for (const int i : k.zero_b) c[static_cast<std::size_t>(i)] = 0.0;
    double beta = k.rho;
    for (const double v : c) beta += v * v;
    // Index of each non-head position: 0..n−1 without the head.
    std::vector<int> index;
    for (int i = 0; i < n; ++i)
      if (i != k.head) index.push_back(i);
    std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
    a[static_cast<std::size_t>(k.head) * n + k.head] = beta;
    for (int i = 0; i < n - 1; ++i) {
      const int r = index[static_cast<std::size_t>(i)];
      const double di = d[static_cast<std::size_t>(i)];
      a[static_cast<std::size_t>(r) * n + r] = di;
      const double b = std::sqrt(di) * c[static_cast<std::size_t>(i)];  // b = D^{1/2} c
      a[static_cast<std::size_t>(r) * n + k.head] = b;
      a[static_cast<std::size_t>(k.head) * n + r] = b;
    }
    SymmetricEigen eigen(n);
    eigen.compute(a);
    expect_valid_decomposition(eigen, a, n, k.what);
  }
  // Not positive semidefinite: a negative diagonal entry. The general solver takes it.
  std::vector<double> a = {2.0, 0.0, 1.0, 0.0, -1.0, 0.5, 1.0, 0.5, 3.0};
  SymmetricEigen eigen(3);
  eigen.compute(a);
  expect_valid_decomposition(eigen, a, 3, "indefinite arrowhead");
}

// compute_bordered on the Grams a fast FD sketch has between two shrinks: B's first k0 rows
// orthogonal (a diagonal leading block, one of them zero), then one row appended per call. Each
// result is a valid decomposition (m − k0 borderings: p(n)·(m − k0 + 1)) and, bit for bit, what a
// new object computes from the matrix alone, also after an unrelated matrix came in between.
TEST(SymmetricEigen, BorderedGramsAreValidAndAFunctionOfTheMatrix) {
  const int n = 16, k0 = 7;
  std::mt19937_64 gen(11);
  std::normal_distribution<double> normal;
  std::vector<double> b(static_cast<std::size_t>(n) * n, 0.0);  // row-major rows of B (n features)
  for (int r = 0; r < k0; ++r)
    if (r != 3) b[static_cast<std::size_t>(r) * n + r] = std::pow(2.0, -r) + 0.5;
  for (int r = k0; r < n; ++r)
    for (int c = 0; c < n; ++c) b[static_cast<std::size_t>(r) * n + c] = normal(gen);
  // Row 12 repeats row 9: a Gram of deficient rank from there on.
  std::copy_n(b.begin() + 9 * n, n, b.begin() + 12 * n);
  const auto gram_of_rows = [&](int rows) {
    std::vector<double> a(static_cast<std::size_t>(n) * n, 0.0);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < rows; ++c)
        for (int j = 0; j < n; ++j)
          a[static_cast<std::size_t>(r) * n + c] += b[static_cast<std::size_t>(r) * n + j] * b[static_cast<std::size_t>(c) * n + j];
    return a;
  };
  SymmetricEigen running(n);
  for (int m = k0; m <= n; ++m) {
    const auto a = gram_of_rows(m);
    if (m == 11) {  // an unrelated full Gram: bordered from its first row
      const auto other = gram_with_zero_rows(n, {}, 3u);
      running.compute_bordered(other);
      expect_valid_decomposition(running, other, n, "unrelated Gram", n);
    }
    running.compute_bordered(a);
    const std::string what = "bordered to " + std::to_string(m) + " rows";
    expect_valid_decomposition(running, a, n, what, m - k0 + 1);
    SymmetricEigen fresh(n);
    fresh.compute_bordered(a);
    for (int i = 0; i < n * n; ++i)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(running.vectors()[static_cast<std::size_t>(i)]),
                std::bit_cast<std::uint64_t>(fresh.vectors()[static_cast<std::size_t>(i)]))
          << what << ": vector entry " << i;
    for (int k = 0; k < n; ++k)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(running.values()[static_cast<std::size_t>(k)]),
                std::bit_cast<std::uint64_t>(fresh.values()[static_cast<std::size_t>(k)]))
          << what << ": value " << k;
  }
}

// A bordered row that is not positive semidefinite (its arrowhead refused) sends the matrix to
// dsyevd; the result is still a valid decomposition, and so is the next, larger one.
TEST(SymmetricEigen, BorderedIndefiniteRowFallsBackToTheGeneralSolver) {
  const int n = 4;
  std::vector<double> a = {2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  SymmetricEigen eigen(n);
  eigen.compute_bordered(a);
  expect_valid_decomposition(eigen, a, n, "diagonal start");
  a[2 * n + 0] = a[0 * n + 2] = 3.0;  // [2 0 3; 0 1 0; 3 0 0.5]: indefinite
  a[2 * n + 2] = 0.5;
  eigen.compute_bordered(a);
  expect_valid_decomposition(eigen, a, n, "indefinite row");
  a[3 * n + 1] = a[1 * n + 3] = 0.25;
  a[3 * n + 3] = 1.0;
  eigen.compute_bordered(a);
  expect_valid_decomposition(eigen, a, n, "after the refused row");
}
