#pragma once
// Dense references for CompAdaGrad's composite steps (tests only): small matrices as row-major
// vectors, LAPACK for the eigen- and Cholesky solves, and LASSO solvers checked by the optimality
// conditions.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "adasketch/types.hpp"

namespace adasketch::test::dense {

/// U f(λ) Uᵀ for a symmetric m × m matrix (dsyev).
template <class F>
std::vector<double> spectral(std::vector<double> a, index_t m, F&& f) {
  std::vector<double> lambda(sz(m)), out(sz(m * m), 0.0);
  if (m == 0) return out;
  EXPECT_EQ(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', static_cast<lapack_int>(m), a.data(), static_cast<lapack_int>(m),
                          lambda.data()), 0);
  for (index_t i = 0; i < m; ++i) {
    const double fi = f(std::max(lambda[sz(i)], 0.0));
    for (index_t r = 0; r < m; ++r)
      for (index_t c = 0; c < m; ++c) out[sz(r * m + c)] += a[sz(r * m + i)] * fi * a[sz(c * m + i)];
  }
  return out;
}

/// Bᵀ S B for B (m × n) and S (m × m).
std::vector<double> congruence(const std::vector<double>& b, const std::vector<double>& s, index_t m, index_t n);

/// A x for an n × n A.
std::vector<double> multiply(const std::vector<double>& a, const std::vector<double>& x, index_t n);

/// min ½xᵀQx + uᵀx + μ‖x‖₁ by cyclic coordinate descent; stops when the optimality residual
/// max_j dist(0, ∂_j f) is below 1e-14·max(1, max|u|).
std::vector<double> coordinate_descent(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n);

/// max_j dist(0, ∂_j f(x)) for f(x) = ½xᵀQx + uᵀx + μ‖x‖₁, relative to max_j(|u_j| + Σ_i|Q_ji x_i| + μ).
double kkt_residual(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n,
                    const std::vector<double>& x);

/// min ½xᵀQx + uᵀx + μ‖x‖₁ for an ill-conditioned Q: rounds of `sweeps` cyclic coordinate-descent
/// sweeps find the support J and signs s, then x_J = −Q_JJ⁻¹(u_J + μs_J) by dposv, x = 0 off J (the
/// next round starting there, clipped to the orthant of s), until the KKT conditions — sign(x_J) = s
/// and |(Qx + u)_j| ≤ μ off J — certify the unique minimizer to a relative residual of 1e-13
/// (*residual: kkt_residual of the result).
std::vector<double> certified_lasso(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n,
                                    int sweeps, double* residual);

}  // namespace adasketch::test::dense
