#include "low_rank_l1_prox.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "adasketch/error.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"
#include "adasketch/sketch/local_row.hpp"

namespace adasketch::detail {

namespace {

constexpr index_t kChunk = 64;  // active columns of Z gathered per rank-k update of Z diag(A) Zᵀ

double norm(std::span<const double> v) {
  double s = 0.0;
  for (const double x : v) s += x * x;
  return std::sqrt(s);
}

}  // namespace

LowRankL1Prox::LowRankL1Prox(const Sketch& sketch, double tolerance)
    : sketch_(sketch),
      tolerance_(tolerance),
      rows_(sketch.rows()),
      basis_(sketch.basis_rows()),
      n_(sketch.local_dim()) {
  const index_t R = rows_, Rz = basis_;
  t_.assign(sz(R * Rz), 0.0);
  y_.assign(sz(Rz), 0.0);
  reduce_.assign(sz(Rz + Rz * (Rz + 1) / 2 + 2), 0.0);
  kernel_.assign(sz(Rz * Rz), 0.0);
  tk_.assign(sz(R * Rz), 0.0);
  chunk_.assign(sz(kChunk * Rz), 0.0);
  direction_.assign(sz(R), 0.0);
  negated_.assign(sz(R), 0.0);
  factor_.assign(sz(R * R), 0.0);
  for (Point* p : {&current_, &trial_}) {
    p->mu.assign(sz(R), 0.0);
    p->grad.assign(sz(R), 0.0);
    p->hess.assign(sz(R * R), 0.0);
    p->s.assign(sz(n_), 0.0);
    p->pattern.assign(sz(n_), 0);
  }
}

std::span<double> LowRankL1Prox::set_rank(index_t r) {
  ADASKETCH_REQUIRE(r >= 0 && r <= rows_, "r = " + number_text(r));
  rank_ = r;
  return std::span<double>(t_).first(sz(r * basis_));
}

void LowRankL1Prox::apply_t(std::span<const double> zw, std::span<double> out) const {
  for (index_t i = 0; i < rank_; ++i) {
    const double* ti = t_.data() + i * basis_;
    double v = 0.0;
    for (index_t j = 0; j < basis_; ++j) v += ti[j] * zw[sz(j)];
    out[sz(i)] = v;
  }
}

void LowRankL1Prox::add_ct(std::span<const double> mu, std::span<double> a) {
  std::fill(y_.begin(), y_.end(), 0.0);
  for (index_t i = 0; i < rank_; ++i) {
    const double* ti = t_.data() + i * basis_;
    for (index_t j = 0; j < basis_; ++j) y_[sz(j)] += ti[j] * mu[sz(i)];
  }
  sketch_.add_local_transpose_product(y_, a);  // Cᵀμ = Zᵀ(Tᵀμ)
}

double LowRankL1Prox::evaluate(Point& p, const Point* reference) {
  const index_t r = rank_, Rz = basis_;
  // s = soft(a − Cᵀμ, κ), its sign pattern, ‖s‖² and the pattern changes (local).
  std::copy(a_.begin(), a_.end(), p.s.begin());
  for (index_t i = 0; i < r; ++i) negated_[sz(i)] = -p.mu[sz(i)];
  add_ct(std::span<const double>(negated_).first(sz(r)), p.s);
  double norm2 = 0.0, changes = 0.0;
  for (std::size_t e = 0; e < sz(n_); ++e) {
    const double v = p.s[e];
    const double m = std::abs(v) - kappa_;
    const signed char sign = m > 0.0 ? (v > 0.0 ? 1 : -1) : 0;
    p.s[e] = sign != 0 ? std::copysign(m, v) : 0.0;
    norm2 += p.s[e] * p.s[e];
    if (reference != nullptr && reference->pattern[e] != sign) changes += 1.0;
    p.pattern[e] = sign;
  }
  // One Allreduce: Zs, the lower triangle of Z diag(A) Zᵀ, ‖s‖², changes.
  std::fill(reduce_.begin(), reduce_.end(), 0.0);
  sketch_.add_local_product(LocalRow::dense(p.s), std::span<double>(reduce_).first(sz(Rz)));
  std::fill(kernel_.begin(), kernel_.end(), 0.0);
  index_t filled = 0;
  const auto flush = [&] {
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, static_cast<int>(Rz), static_cast<int>(filled), 1.0,
                chunk_.data(), static_cast<int>(Rz), 1.0, kernel_.data(), static_cast<int>(Rz));
    filled = 0;
  };
  const double one = 1.0;
  for (index_t e = 0; e < n_; ++e) {
    if (p.pattern[sz(e)] == 0) continue;
    const auto column = std::span<double>(chunk_).subspan(sz(filled * Rz), sz(Rz));
    std::fill(column.begin(), column.end(), 0.0);
    sketch_.add_local_product(LocalRow::sparse(std::span<const index_t>(&e, 1), std::span<const double>(&one, 1)),
                              column);  // column e of Z
    if (++filled == kChunk) flush();
  }
  if (filled > 0) flush();
  std::size_t n = sz(Rz);
  for (index_t i = 0; i < Rz; ++i)
    for (index_t j = 0; j <= i; ++j) reduce_[n++] = kernel_[sz(i * Rz + j)];
  reduce_[n] = norm2;
  reduce_[n + 1] = changes;
  sketch_.comm().allreduce_sum(reduce_);

  // Replicated from here: identical inputs on every rank.
  n = sz(Rz);
  for (index_t i = 0; i < Rz; ++i)
    for (index_t j = 0; j <= i; ++j) kernel_[sz(i * Rz + j)] = kernel_[sz(j * Rz + i)] = reduce_[n++];
  norm2 = reduce_[n];
  changes = reduce_[n + 1];
  apply_t(std::span<const double>(reduce_).first(sz(Rz)), p.grad);  // T(Zs) = δ'·Cw
  double mu2 = 0.0, cw2 = 0.0;
  for (index_t i = 0; i < r; ++i) {
    const double cw = p.grad[sz(i)] / delta_;
    cw2 += cw * cw;
    mu2 += p.mu[sz(i)] * p.mu[sz(i)];
    p.grad[sz(i)] = cw - p.mu[sz(i)];  // ∇D = Cw(μ) − μ
  }
  p.cw_norm = std::sqrt(cw2);
  p.value = -0.5 * mu2 - norm2 / (2.0 * delta_);
  // −∂²D = I + T (Z diag(A) Zᵀ) Tᵀ / δ'.
  if (r > 0) {
    const int ri = static_cast<int>(r), rz = static_cast<int>(Rz);
    cblas_dsymm(CblasRowMajor, CblasRight, CblasLower, ri, rz, 1.0, kernel_.data(), rz, t_.data(), rz, 0.0,
                tk_.data(), rz);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, ri, ri, rz, 1.0 / delta_, tk_.data(), rz, t_.data(), rz,
                0.0, p.hess.data(), ri);
    for (index_t i = 0; i < r; ++i) p.hess[sz(i * r + i)] += 1.0;
  }
  if (!std::isfinite(p.value) || !std::isfinite(p.cw_norm))
    throw NumericError("l1 prox: non-finite dual value (the weights or the sketch are not finite)");
  return changes;
}

void LowRankL1Prox::solve(std::span<const double> a, std::span<const double> mu0, double kappa, double delta,
                           std::span<double> w) {
  const index_t r = rank_;
  a_ = a;
  kappa_ = kappa;
  delta_ = delta;
  if (r == 0) {  // H' = δ'I: the entry-wise prox, no communication
    for (std::size_t e = 0; e < sz(n_); ++e) {
      const double m = std::abs(a[e]) - kappa;
      w[e] = m > 0.0 ? std::copysign(m, a[e]) / delta : 0.0;
    }
    return;
  }
  std::copy(mu0.begin(), mu0.begin() + r, current_.mu.begin());
  evaluate(current_, nullptr);
  for (int iterations = 0;; ++iterations) {
    const double gnorm = norm(std::span<const double>(current_.grad).first(sz(r)));
    const double scale = std::max(norm(std::span<const double>(current_.mu).first(sz(r))), current_.cw_norm);
    if (gnorm <= tolerance_ * scale) break;
    if (iterations == max_iterations)
      throw NumericError("l1 prox: the dual Newton iteration did not converge in " + number_text(max_iterations) +
                         " iterations (|grad D| = " + number_text(gnorm) + ", |mu| = " + number_text(scale) + ")");
    // Δ = (−∂²D)⁻¹ ∇D by Cholesky.
    std::copy(current_.hess.begin(), current_.hess.begin() + r * r, factor_.begin());
    cholesky_lower(static_cast<int>(r), std::span<double>(factor_).first(sz(r * r)));
    for (index_t i = 0; i < r; ++i) {
      double v = current_.grad[sz(i)];
      for (index_t j = 0; j < i; ++j) v -= factor_[sz(i * r + j)] * direction_[sz(j)];
      direction_[sz(i)] = v / factor_[sz(i * r + i)];
    }
    for (index_t i = r; i-- > 0;) {
      double v = direction_[sz(i)];
      for (index_t j = i + 1; j < r; ++j) v -= factor_[sz(j * r + i)] * direction_[sz(j)];
      direction_[sz(i)] = v / factor_[sz(i * r + i)];
    }
    double slope = 0.0;
    for (index_t i = 0; i < r; ++i) slope += current_.grad[sz(i)] * direction_[sz(i)];
    // Armijo backtracking; a full step that keeps the sign pattern reached the optimum.
    double alpha = 1.0;
    bool exact = false;
    for (;;) {
      for (index_t i = 0; i < r; ++i) trial_.mu[sz(i)] = current_.mu[sz(i)] + alpha * direction_[sz(i)];
      const double changes = evaluate(trial_, &current_);
      if (alpha == 1.0 && changes == 0.0) {
        exact = true;
        break;
      }
      const double slack = 16.0 * 0x1p-53 * (std::abs(current_.value) + std::abs(trial_.value));
      if (trial_.value >= current_.value + 1e-4 * alpha * slope - slack) break;
      alpha *= 0.5;
      if (alpha < 0x1p-40)
        throw NumericError("l1 prox: the line search of the dual Newton iteration cannot increase D (|grad D| = " +
                           number_text(gnorm) + ", |mu| = " + number_text(scale) + ")");
    }
    std::swap(current_, trial_);
    if (exact) break;
  }
  for (std::size_t e = 0; e < sz(n_); ++e) w[e] = current_.s[e] / delta;
}

}  // namespace adasketch::detail
