// SketchedAdaGrad's composite steps, φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖² (formulas: docs/design.md §2, "Sketched AdaGrad").
#include <algorithm>
#include <cmath>

#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/learners/sketched_adagrad/sketched_adagrad.hpp"
#include "low_rank_l1_prox.hpp"

namespace adasketch {

namespace {

// Ridge mirror descent folds its global scale s into w̄ and c below this (rare: s shrinks by
// δ/(δ + ηλ₂) per step); w̄ then holds at most 10¹⁵⁰ times the weights' magnitude.
constexpr double kSmallestScale = 1e-150;

}  // namespace

double SketchedAdaGrad::weight_scale(index_t steps) const noexcept {
  if (prox_ != Prox::ridge) return 1.0;
  if (!dual_averaging()) return scale_;
  return options_.delta / averaged_delta(steps);  // w = −ηH'⁻¹ḡ = (δ/δ')(w̄ + Zᵀc)
}

double SketchedAdaGrad::averaged_delta(index_t t) const noexcept {
  if (options_.lambda2 == 0.0) return options_.delta;
  return options_.delta + options_.eta * static_cast<double>(t) * options_.lambda2;
}

void SketchedAdaGrad::renormalize() {
  if (scale_ >= kSmallestScale) return;
  if (sketches_gradients()) sketch_->settle_all(lazy_);  // the deferred folds are in the old scale too
  for (double& w : lazy_) w *= scale_;
  for (double& c : coef_) c *= scale_;
  scale_ = 1.0;
}

// w_{t+1} = H'⁻¹(H w_t − ηg) = ρw_t − (η/δ')g + Zᵀq, q = MᵀP'M((η/δ')Zg + (ηλ₂/δ')Zw_t), ρ = δ/δ'.
void SketchedAdaGrad::ridge_gradient_step(const LocalRow& g, double beta) {
  const index_t R = basis_;
  const double delta = options_.delta + options_.eta * options_.lambda2;  // δ'
  const double rho = options_.delta / delta, f = options_.eta / delta, h = options_.eta * options_.lambda2 / delta;
  const double scale = rho * scale_;
  factor_gram(delta);
  auto v = std::span<double>(work_.ridge).first(sz(R));
  auto kq = std::span<double>(work_.ridge).subspan(sz(R), sz(R));
  for (index_t i = 0; i < R; ++i) v[sz(i)] = f * work_.projected[sz(i)] + h * zw_[sz(i)];
  apply_p(v, work_.q);
  // w = s(w̄ + βg + Zᵀc) before the step; after it s' = ρs and w = s'(w̄ + (β − f/s')g + Zᵀ(c + q/s')).
  const double a = beta - f / scale;
  const auto gv = g.values();
  if (g.is_dense()) {
    for (std::size_t e = 0; e < gv.size(); ++e) lazy_[e] += a * gv[e];
  } else {
    const auto gi = g.indices();
    for (std::size_t e = 0; e < gv.size(); ++e) lazy_[sz(gi[e])] += a * gv[e];
  }
  for (index_t i = 0; i < R; ++i) coef_[sz(i)] += work_.q[sz(i)] / scale;
  sketch_->apply_basis_gram(work_.q, kq);  // Z w_{t+1} = ρ Zw_t − f Zg + Kq
  for (index_t i = 0; i < R; ++i) zw_[sz(i)] = rho * zw_[sz(i)] - f * work_.projected[sz(i)] + kq[sz(i)];
  scale_ = scale;
  renormalize();
}

// ADA-DP applies H ⊗ I_K: the step above per class, with g_k = ∂ℓ/∂p_k x.
void SketchedAdaGrad::ridge_data_step(const LocalRow& x) {
  const index_t R = basis_, K = classes_;
  const double delta = options_.delta + options_.eta * options_.lambda2;
  const double rho = options_.delta / delta, h = options_.eta * options_.lambda2 / delta;
  const double scale = rho * scale_;
  factor_gram(delta);
  auto v = std::span<double>(work_.ridge).first(sz(R));
  auto kq = std::span<double>(work_.ridge).subspan(sz(R), sz(R));
  for (index_t k = 0; k < K; ++k) {
    auto coef_k = std::span<double>(coef_).subspan(sz(k * R), sz(R));
    auto zw_k = std::span<double>(zw_).subspan(sz(k * R), sz(R));
    const double beta = sketch_->update_coefficients(coef_k, std::span<double>(lazy_).subspan(sz(k)), K);
    const double f = options_.eta * work_.dscores[sz(k)] / delta;
    for (index_t i = 0; i < R; ++i) v[sz(i)] = f * work_.projected[sz(i)] + h * zw_k[sz(i)];
    apply_p(v, work_.q);
    const double a = beta - f / scale;
    detail::for_each_nonzero(x, [&](std::size_t j, double xj) { lazy_[j * sz(K) + sz(k)] += a * xj; });
    for (index_t i = 0; i < R; ++i) coef_k[sz(i)] += work_.q[sz(i)] / scale;
    sketch_->apply_basis_gram(work_.q, kq);
    for (index_t i = 0; i < R; ++i) zw_k[sz(i)] = rho * zw_k[sz(i)] - f * work_.projected[sz(i)] + kq[sz(i)];
  }
  scale_ = scale;
  renormalize();
}

void SketchedAdaGrad::add_local_weight_products(std::span<double> out) {
  const index_t R = basis_, K = classes_;
  if (sketches_gradients()) {  // the explicit w on the interleaved columns
    sketch_->add_local_product(LocalRow::dense(lazy_), out.first(sz(R)));
    return;
  }
  for (index_t k = 0; k < K; ++k) {
    for (index_t j = 0; j < dp_; ++j) work_.column[sz(j)] = lazy_[sz(class_entry(j, k, K))];
    sketch_->add_local_product(LocalRow::dense(work_.column), out.subspan(sz(k * R), sz(R)));
  }
}

// C = Σ^{1/2}Vᵀ = Σ^{-1/2}UᵀB = T·Z with T = Σ^{-1/2}UᵀM over the kept eigenpairs (V = BᵀUΣ⁻¹).
void SketchedAdaGrad::load_prox_factor() {
  const index_t R = rows_, Rz = basis_;
  index_t r = 0;
  if (diagonal_) {
    for (index_t i = 0; i < R; ++i) r += sigma_[sz(i)] > 0.0 ? 1 : 0;
  } else {
    r = rank_;
  }
  const auto t = prox_solver_->set_rank(r);
  const auto u = gram_eigen_->vectors();
  index_t row = 0;
  for (index_t i = 0; i < R && row < r; ++i) {
    if (diagonal_ ? !(sigma_[sz(i)] > 0.0) : i >= rank_) continue;
    for (index_t c = 0; c < R; ++c) work_.mv[sz(c)] = diagonal_ ? (c == i ? 1.0 : 0.0) : u[sz(c * R + i)];
    auto t_row = t.subspan(sz(row * Rz), sz(Rz));
    sketch_->mix_transpose(work_.mv, t_row);
    const double w = 1.0 / std::sqrt(sigma_[sz(i)]);
    for (double& e : t_row) e *= w;
    ++row;
  }
}

void SketchedAdaGrad::lasso_solve(std::span<double> target, std::span<const double> zw, std::span<double> w) {
  const bool md = !dual_averaging();
  // η' = η (mirror descent) or ηt (dual averaging): κ = η'λ₁, H' = H + η'λ₂I.
  const double eta = md ? options_.eta : options_.eta * static_cast<double>(steps() + 1);
  const auto r = sz(prox_solver_->rank());
  const auto mu0 = std::span<double>(work_.mu0).first(r);
  prox_solver_->apply_t(zw, mu0);  // μ₀ = Cw_t
  if (md) prox_solver_->add_ct(mu0, target);  // b = Hw_t − ηg = δw_t − ηg + CᵀCw_t
  prox_solver_->solve(target, mu0, eta * options_.lambda1, options_.delta + eta * options_.lambda2, w);
}

void SketchedAdaGrad::lasso_gradient_step(const LocalRow& g, std::span<const double> zw) {
  factor_gram(options_.delta);
  load_prox_factor();
  const double eta = options_.eta, delta = options_.delta;
  const auto gv = g.values();
  const auto gi = g.indices();
  const auto entry = [&](std::size_t e) { return g.is_dense() ? e : sz(gi[e]); };
  if (!dual_averaging()) {
    for (std::size_t e = 0; e < lazy_.size(); ++e) work_.target[e] = delta * lazy_[e];
    for (std::size_t e = 0; e < gv.size(); ++e) work_.target[entry(e)] -= eta * gv[e];
  } else {
    for (std::size_t e = 0; e < gv.size(); ++e) gsum_[entry(e)] += gv[e];
    for (std::size_t e = 0; e < gsum_.size(); ++e) work_.target[e] = -eta * gsum_[e];
  }
  lasso_solve(work_.target, zw, lazy_);
}

void SketchedAdaGrad::lasso_data_step(const LocalRow& x, std::span<const double> zw) {
  const index_t R = basis_, K = classes_;
  factor_gram(options_.delta);
  load_prox_factor();
  const double eta = options_.eta, delta = options_.delta;
  const std::size_t Kz = sz(K);
  for (index_t k = 0; k < K; ++k) {
    const double d = work_.dscores[sz(k)];
    if (!dual_averaging()) {
      for (index_t j = 0; j < dp_; ++j) work_.target[sz(j)] = delta * lazy_[sz(class_entry(j, k, K))];
      detail::for_each_nonzero(x, [&](std::size_t j, double v) { work_.target[j] -= eta * d * v; });
    } else {
      detail::for_each_nonzero(x, [&](std::size_t j, double v) { gsum_[j * Kz + sz(k)] += d * v; });
      for (index_t j = 0; j < dp_; ++j) work_.target[sz(j)] = -eta * gsum_[sz(class_entry(j, k, K))];
    }
    lasso_solve(work_.target, zw.subspan(sz(k * R), sz(R)), work_.column);
    for (index_t j = 0; j < dp_; ++j) lazy_[sz(class_entry(j, k, K))] = work_.column[sz(j)];
  }
}

}  // namespace adasketch
