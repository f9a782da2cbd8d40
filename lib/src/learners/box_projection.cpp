#include "box_projection.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch::detail {

BoxProjection::BoxProjection(index_t K) : K_(K) {
  ADASKETCH_REQUIRE(K >= 1, "K = " + number_text(K));
  const auto n = static_cast<std::size_t>(K);
  active_.reserve(n);
  in_active_.assign(n, false);
  z_.assign(n, 0.0);
  factor_.assign(n * n, 0.0);
  direction_.assign(n, 0.0);
  rhs_.assign(n, 0.0);
}

double BoxProjection::direction(std::span<const double> M, index_t p) {
  // Cholesky M_WW = LLᵀ (row-major in factor_, |W| × |W|), then d_W = −M_WW⁻¹ M_Wp.
  const auto w = static_cast<index_t>(active_.size());
  for (index_t i = 0; i < w; ++i) {
    const index_t ai = active_[i];
    for (index_t j = 0; j <= i; ++j) {
      double s = M[ai * K_ + active_[j]];
      for (index_t q = 0; q < j; ++q) s -= factor_[i * K_ + q] * factor_[j * K_ + q];
      if (j < i) {
        factor_[i * K_ + j] = s / factor_[j * K_ + j];
      } else {
        if (!(s > 0.0)) throw NumericError("box projection: the score matrix M is not positive definite");
        factor_[i * K_ + i] = std::sqrt(s);
      }
    }
  }
  for (index_t i = 0; i < w; ++i) {  // L y = M_Wp
    double s = M[active_[i] * K_ + p];
    for (index_t q = 0; q < i; ++q) s -= factor_[i * K_ + q] * rhs_[q];
    rhs_[i] = s / factor_[i * K_ + i];
  }
  double schur = M[p * K_ + p];
  for (index_t i = 0; i < w; ++i) schur -= rhs_[i] * rhs_[i];  // M_pp − ‖L⁻¹M_Wp‖²
  for (index_t i = w - 1; i >= 0; --i) {  // Lᵀ d = −y
    double s = -rhs_[i];
    for (index_t q = i + 1; q < w; ++q) s -= factor_[q * K_ + i] * direction_[q];
    direction_[i] = s / factor_[i * K_ + i];
  }
  if (!(schur > 0.0)) throw NumericError("box projection: the score matrix M is not positive definite");
  return schur;
}

void BoxProjection::solve(std::span<const double> M, std::span<const double> z0, double C, std::span<double> lambda) {
  const index_t K = K_;
  std::fill(lambda.begin(), lambda.begin() + K, 0.0);
  active_.clear();
  std::fill(in_active_.begin(), in_active_.end(), false);
  steps_ = 0;
  double scale = C;
  for (index_t k = 0; k < K; ++k) scale = std::max(scale, std::abs(z0[k]));
  const double slack = 1e-14 * scale;
  // Each (W, p) occurs at most once; this bound is never reached in exact arithmetic and stops a
  // round-off cycle.
  const index_t max_steps = 4 * K * K + 16;
  const auto score = [&](index_t k) {  // z_k = z0_k − (Mλ)_k
    double s = z0[k];
    for (index_t j = 0; j < K; ++j) s -= M[k * K + j] * lambda[j];
    return s;
  };
  for (;;) {
    // The most violated bound outside W (the smallest index on ties).
    index_t p = -1;
    double worst = slack;
    for (index_t k = 0; k < K; ++k) {
      if (in_active_[k]) continue;
      z_[k] = score(k);
      if (std::abs(z_[k]) - C > worst) {
        worst = std::abs(z_[k]) - C;
        p = k;
      }
    }
    if (p < 0) return;  // primal feasible, dual feasible, complementary: the KKT point
    const double s = z_[p] > 0.0 ? 1.0 : -1.0;
    for (;;) {  // raise λ_p by s·t, keeping z_W at its bounds
      if (++steps_ > max_steps) throw NumericError("box projection: no convergence in " + number_text(max_steps) + " steps");
      const double schur = direction(M, p);
      const double full = (s * score(p) - C) / schur;  // z_p reaches s·C
      double partial = full;
      index_t drop = -1;
      for (std::size_t i = 0; i < active_.size(); ++i) {
        const double li = lambda[active_[i]], di = s * direction_[i];
        if (li * di < 0.0 && -li / di < partial) {  // this multiplier would change sign first
          partial = -li / di;
          drop = static_cast<index_t>(i);
        }
      }
      const double t = std::max(partial, 0.0);
      for (std::size_t i = 0; i < active_.size(); ++i) lambda[active_[i]] += t * s * direction_[i];
      lambda[p] += s * t;
      if (drop < 0) {
        active_.push_back(p);
        in_active_[p] = true;
        break;
      }
      const index_t j = active_[drop];
      lambda[j] = 0.0;
      in_active_[j] = false;
      active_.erase(active_.begin() + drop);
    }
  }
}

}  // namespace adasketch::detail
