// SymmetricEigen (adasketch/linalg/symmetric_eigen.hpp) on Grams with zero rows, as an unfilled
// sketch's are: the rows it splits off come back as exact pairs (0, e_i), and the whole is a valid
// eigendecomposition whose eigenvalues match LAPACK's on the full matrix (an independent call).
//
// Bound: dsyevd is backward stable, ‖AU − UΛ‖ and ‖UᵀU − I‖ within p(n)·u·‖A‖ (and p(n)·u), with
// p(n) a modest polynomial (LAPACK Users' Guide §4.7); this test takes p(n) = 10·n. Eigenvalues of two
// backward-stable computations differ by at most the sum of their backward errors (Weyl).
#include <gtest/gtest.h>

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
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

}  // namespace

TEST(SymmetricEigen, ZeroRowsAreSplitOffExactly) {
  const int n = 12;
  for (const auto& zero : {std::vector<int>{}, std::vector<int>{3, 7, 10, 11}, std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                           std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}) {
    const auto a = gram_with_zero_rows(n, zero, 7u + static_cast<unsigned>(zero.size()));
    double norm = 0.0;  // ‖A‖_F ≥ ‖A‖₂
    for (const double v : a) norm += v * v;
    norm = std::sqrt(norm);
    const double p = 10.0 * n;

    SymmetricEigen eigen(n);
    eigen.compute(a);
    const auto lambda = eigen.values();
    const auto u = eigen.vectors();  // row-major, eigenvector k in column k
    for (int k = 1; k < n; ++k) EXPECT_GE(lambda[k - 1], lambda[k]) << "descending";
    for (int k = 0; k < n; ++k) {
      for (int i = 0; i < n; ++i) {
        double au = 0.0;
        for (int j = 0; j < n; ++j) au += a[static_cast<std::size_t>(i) * n + j] * u[static_cast<std::size_t>(j) * n + k];
        EXPECT_LE(std::abs(au - lambda[k] * u[static_cast<std::size_t>(i) * n + k]), p * kUnit * norm)
            << "(AU − UΛ)[" << i << ", " << k << "], zero rows " << zero.size();
      }
      for (int l = 0; l < n; ++l) {
        double dot = 0.0;
        for (int i = 0; i < n; ++i) dot += u[static_cast<std::size_t>(i) * n + k] * u[static_cast<std::size_t>(i) * n + l];
        EXPECT_LE(std::abs(dot - (k == l ? 1.0 : 0.0)), p * kUnit) << "UᵀU at " << k << ", " << l;
      }
    }
    // A zero row i: an exact pair (0, e_i) among the columns.
    for (const int i : zero) {
      int found = 0;
      for (int k = 0; k < n; ++k)
        if (u[static_cast<std::size_t>(i) * n + k] == 1.0 && lambda[k] == 0.0) ++found;
      EXPECT_EQ(found, 1) << "e_" << i << " with eigenvalue 0";
    }
    // Against LAPACK on the whole matrix, no rows split off.
    std::vector<double> full = a, w(static_cast<std::size_t>(n));
    ASSERT_EQ(LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'N', 'U', n, full.data(), n, w.data()), 0);
    std::sort(w.begin(), w.end(), std::greater<>());
    for (int k = 0; k < n; ++k)
      EXPECT_LE(std::abs(lambda[k] - w[static_cast<std::size_t>(k)]), 2.0 * p * kUnit * norm) << "eigenvalue " << k;
  }
}
