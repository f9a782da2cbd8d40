// SketchedNewton's cached factor of α I + BBᵀ, or of the pseudo-inverse (BBᵀ)⁺ when α = 0
// (sketched_newton.hpp).
#include <algorithm>
#include <cmath>

#include "adasketch/error.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"

namespace adasketch {

// ---- The cached Cholesky factor L Lᵀ = α I + B Bᵀ (row-major lower triangle of factor_). -------------

void SketchedNewton::factor_all() {
  if (pseudo_inverse_) return factor_pseudo_inverse();
  // Right-looking (outer-product) Cholesky on the columns of L, stored contiguously (cols[j·R + i] =
  // L_ij): its inner loops run over independent entries, where factor_row's dot products wait on one
  // accumulator. Each entry takes the same operations in the same order as in factor_row (g, then
  // − L_ip L_jp for p = 0, 1, …, then one division or square root), so both give the same bits.
  const auto g = sketch_->gram();
  const index_t R = rows_;
  const double a = alpha();
  factor_alpha_ = a;
  double* cols = work_.factor_columns.data();
  for (index_t j = 0; j < R; ++j)
    for (index_t i = j; i < R; ++i) cols[j * R + i] = g[i * R + j] + (i == j ? a : 0.0);
  for (index_t p = 0; p < R; ++p) {
    double* lp = cols + p * R;
    if (!std::isfinite(lp[p])) throw NumericError(name() + ": non-finite entry in the factor of αI + BBᵀ");
    lp[p] = std::sqrt(std::max(lp[p], a));  // see factor_row
    for (index_t i = p + 1; i < R; ++i) lp[i] /= lp[p];
    for (index_t j = p + 1; j < R; ++j) {
      double* lj = cols + j * R;
      const double ljp = lp[j];
      for (index_t i = j; i < R; ++i) lj[i] -= lp[i] * ljp;
    }
  }
  factor_trace_ = 0.0;
  for (index_t i = 0; i < R; ++i) {
    for (index_t j = 0; j < R; ++j) factor_[i * R + j] = j <= i ? cols[j * R + i] : 0.0;
    factor_trace_ += g[i * R + i];
    trace_part_[i] = g[i * R + i];
  }
}

void SketchedNewton::factor_pseudo_inverse() {
  // BBᵀ = UΛUᵀ; H = (BBᵀ)⁺ = YᵀY with Y = Λ⁺^{1/2}Uᵀ, λ_i ≤ rank_tolerance·λ_max taken as zero
  // (SON App. D, Lemma 2).
  const auto g = sketch_->gram();
  const index_t R = rows_;
  eigen_.compute(g);
  const auto lambda = eigen_.values();  // descending
  const auto u = eigen_.vectors();      // eigenvector i in column i
  factor_alpha_ = 0.0;
  factor_trace_ = 0.0;
  for (index_t i = 0; i < R; ++i) {
    const double l = lambda[i];
    const bool kept = lambda[0] > 0.0 && l > options_.rank_tolerance * lambda[0];
    const double scale = kept ? 1.0 / std::sqrt(l) : 0.0;
    for (index_t r = 0; r < R; ++r) factor_[i * R + r] = scale * u[r * R + i];
    factor_trace_ += g[i * R + i];
    trace_part_[i] = g[i * R + i];
  }
}

void SketchedNewton::factor_row(index_t k) {
  if (pseudo_inverse_) return factor_pseudo_inverse();
  // Cholesky–Banachiewicz: row k of L from rows 0..k−1, so recomputing one row after the Gram changed
  // only in row/column k (an FD insertion into a free row, whose later rows are zero) gives exactly
  // the factor a full recomputation would.
  const auto g = sketch_->gram();
  const index_t R = rows_;
  const double a = factor_alpha_;
  double* lk = factor_.data() + k * R;
  for (index_t j = 0; j < k; ++j) {
    const double* lj = factor_.data() + j * R;
    double s = g[k * R + j];
    for (index_t p = 0; p < j; ++p) s -= lk[p] * lj[p];
    lk[j] = s / lj[j];
  }
  double s = g[k * R + k] + a;
  for (index_t p = 0; p < k; ++p) s -= lk[p] * lk[p];
  // The pivots of αI + BBᵀ are ≥ α (its leading blocks dominate αI); round-off may undercut that when
  // BBᵀ is (nearly) singular and α is tiny.
  if (!std::isfinite(s)) throw NumericError(name() + ": non-finite entry in the factor of αI + BBᵀ");
  lk[k] = std::sqrt(std::max(s, a));
  for (index_t j = k + 1; j < R; ++j) lk[j] = 0.0;
  factor_trace_ += g[k * R + k] - trace_part_[k];  // tr BBᵀ, for the projection's lower bound
  trace_part_[k] = g[k * R + k];
}

void SketchedNewton::forward(std::span<double> v) const noexcept {
  const index_t R = rows_;
  if (pseudo_inverse_) {  // v ← Yv
    for (index_t i = 0; i < R; ++i) {
      const double* yi = factor_.data() + i * R;
      double s = 0.0;
      for (index_t r = 0; r < R; ++r) s += yi[r] * v[r];
      work_.pinv_product[i] = s;
    }
    std::copy(work_.pinv_product.begin(), work_.pinv_product.end(), v.begin());
    return;
  }
  for (index_t i = 0; i < R; ++i) {
    const double* li = factor_.data() + i * R;
    double s = v[i];
    for (index_t j = 0; j < i; ++j) s -= li[j] * v[j];
    v[i] = s / li[i];
  }
}

void SketchedNewton::backward(std::span<double> v) const noexcept {
  const index_t R = rows_;
  if (pseudo_inverse_) {  // v ← Yᵀv
    std::fill(work_.pinv_product.begin(), work_.pinv_product.end(), 0.0);
    for (index_t i = 0; i < R; ++i) {
      const double* yi = factor_.data() + i * R;
      for (index_t r = 0; r < R; ++r) work_.pinv_product[r] += yi[r] * v[i];
    }
    std::copy(work_.pinv_product.begin(), work_.pinv_product.end(), v.begin());
    return;
  }
  for (index_t i = R - 1; i >= 0; --i) {
    double s = v[i];
    for (index_t j = i + 1; j < R; ++j) s -= factor_[j * R + i] * v[j];
    v[i] = s / factor_[i * R + i];
  }
}


}  // namespace adasketch
