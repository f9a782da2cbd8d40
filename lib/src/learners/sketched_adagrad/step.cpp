// SketchedAdaGrad's step per example: the Allreduce, the scores, and the mirror-descent or
// dual-averaging update of the gradient sketches (ADA-FD, ADA-GP) and the data sketch (ADA-DP);
// the composite steps are in composite.cpp.
#include <algorithm>
#include <cmath>

#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"
#include "adasketch/learners/sketched_adagrad/sketched_adagrad.hpp"

namespace adasketch {

StepResult SketchedAdaGrad::do_step(const LocalRow& x, double label) {
  check_row(x);
  // FormChoice::automatic: sparse rows take the sparse form (agreed by all ranks).
  if (!form_resolved_)
    choose_form(comm().allreduce_max(index_t{x.is_dense() ? 0 : 1}) != 0 ? FormChoice::sparse : FormChoice::dense);
  const index_t R = basis_, K = classes_;
  const index_t products = sketches_gradients() ? R * K : R;
  const index_t weight_products = prox_ == Prox::lasso ? static_cast<index_t>(coef_.size()) : 0;
  std::fill(work_.reduce.begin(), work_.reduce.end(), 0.0);
  detail::prefetch_entries(x, lazy_.data(), sz(K));
  if (sketches_gradients())  // the folds the sketch deferred on the example's entries, into w̄
    for (index_t k = 0; k < K; ++k) sketch_->settle(gradient_row(x, k), lazy_);
  add_local_products(x, std::span<double>(work_.reduce).first(sz(products)));
  add_local_lazy_dots(x, std::span<double>(work_.reduce).subspan(sz(products), sz(K)));
  work_.reduce[sz(products + K)] = x.local_norm2();
  if (weight_products > 0) add_local_weight_products(std::span<double>(work_.reduce).subspan(sz(products + K + 1)));
  // The step's one Allreduce: R_z·K + K + 1 numbers (R_z + K + 1 for ADA-DP), and Z w_t with ℓ1.
  comm().allreduce_sum(work_.reduce);
  const std::span<const double> prod = std::span<const double>(work_.reduce).first(sz(products));
  const std::span<const double> dots = std::span<const double>(work_.reduce).subspan(sz(products), sz(K));
  const double xx = work_.reduce[sz(products + K)];
  const std::span<double> zw = std::span<double>(work_.reduce).subspan(sz(products + K + 1), sz(weight_products));

  const double scale = weight_scale(steps());
  for (index_t k = 0; k < K; ++k) {
    const double* pk = prod.data() + (sketches_gradients() ? k * R : 0);
    const double* c = coef_.data() + (sketches_gradients() ? 0 : k * R);
    double s = dots[sz(k)];
    for (index_t i = 0; i < R; ++i) s += c[i] * pk[i];
    if (scale != 1.0) s *= scale;
    if (!std::isfinite(s)) throw NumericError(name() + ": the score wᵀx is not finite");
    work_.scores[sz(k)] = s;
  }
  const StepResult result{loss().value(work_.scores, label), loss().mistake(work_.scores, label)};
  loss().derivative(work_.scores, label, work_.dscores);
  if (sketches_gradients())
    step_gradient_sketch(x, prod, dots, zw, xx);
  else
    step_data_sketch(x, prod, dots, zw, xx);
  return result;
}

void SketchedAdaGrad::step_gradient_sketch(const LocalRow& x, std::span<const double> products,
                                           std::span<const double> lazy_dots, std::span<double> weight_products,
                                           double xx) {
  const index_t R = basis_, K = classes_;
  double dd = 0.0, gw = 0.0, gwt = 0.0;
  for (index_t k = 0; k < K; ++k) {
    dd += work_.dscores[sz(k)] * work_.dscores[sz(k)];
    gw += work_.dscores[sz(k)] * lazy_dots[sz(k)];  // gᵀw̄ = Σ_k ∂ℓ/∂p_k w̄ᵀ(x⊗e_k)
    gwt += work_.dscores[sz(k)] * work_.scores[sz(k)];   // gᵀw_t
  }
  const double gg = xx * dd;  // ‖x ⊗ ∂ℓ/∂p‖² = ‖x‖²‖∂ℓ/∂p‖²
  const bool inserted = gg != 0.0;
  // g = 0: H, w̄ and c stay as they are (nothing is inserted); a composite term still takes its step.
  if (!inserted && prox_ == Prox::none) return;
  const bool md = !dual_averaging();
  const bool lazy_md = md && prox_ != Prox::lasso;  // mirror descent on w = s(w̄ + Zᵀc)
  LocalRow g = LocalRow::sparse({}, {});
  double beta = 0.0;
  if (inserted) {
    // Zg = Σ_k ∂ℓ/∂p_k Z(x ⊗ e_k), from the reduced products.
    for (index_t i = 0; i < R; ++i) {
      double v = 0.0;
      for (index_t k = 0; k < K; ++k) v += work_.dscores[sz(k)] * products[sz(k * R + i)];
      work_.projected[sz(i)] = v;
    }
    if (lazy_md && sketch_->next_insert_restructures()) fold();
    // g = x ⊗ ∂ℓ/∂p as a local row of the dK-dimensional sketch (dense x → dense g).
    if (x.is_dense()) {
      const auto v = x.values();
      for (index_t j = 0; j < dp_; ++j)
        for (index_t k = 0; k < K; ++k) work_.g_values[sz(class_entry(j, k, K))] = v[sz(j)] * work_.dscores[sz(k)];
      g = LocalRow::dense(std::span<const double>(work_.g_values).first(sz(dp_ * K)));
    } else {
      const auto xi = x.indices();
      const auto v = x.values();
      std::size_t n = 0;
      for (std::size_t m = 0; m < xi.size(); ++m)
        for (index_t k = 0; k < K; ++k, ++n) {
          work_.g_indices[n] = class_entry(xi[m], k, K);
          work_.g_values[n] = v[m] * work_.dscores[sz(k)];
        }
      g = LocalRow::sparse(std::span<const index_t>(work_.g_indices).first(n), std::span<const double>(work_.g_values).first(n));
    }
    sketch_->insert(g, work_.projected, gg);
    // β from carrying c through the insertion (mirror descent on the lazy form).
    if (lazy_md) beta = sketch_->update_coefficients(coef_, lazy_, 1);
    sketch_->update_product(work_.projected, gg);                             // Z_new g
    if (!dual_.empty()) sketch_->update_product(dual_, gw);              // Z_new w̄_old
    if (!zw_.empty()) sketch_->update_product(zw_, gwt);                 // Z_new w_t
    if (!weight_products.empty()) sketch_->update_product(weight_products, gwt);
  } else {
    std::fill(work_.projected.begin(), work_.projected.end(), 0.0);
  }
  if (prox_ == Prox::lasso) return lasso_gradient_step(g, weight_products);
  if (md && prox_ == Prox::ridge) return ridge_gradient_step(g, beta);
  // w̄ += (β − η/δ) g: β from carrying c through the insertion (mirror descent), −η/δ the step's
  // isotropic part of −ηH⁻¹g = −(η/δ)(g − BᵀPBg).
  const double step = options_.eta / options_.delta;
  const double a = beta - step;
  const auto gv = g.values();
  if (g.is_dense()) {
    for (std::size_t e = 0; e < gv.size(); ++e) lazy_[e] += a * gv[e];
  } else {
    const auto gi = g.indices();
    for (std::size_t e = 0; e < gv.size(); ++e) lazy_[sz(gi[e])] += a * gv[e];
  }
  factor_gram(md ? options_.delta : averaged_delta(steps() + 1));
  if (md) {
    // ADA-FD Alg. 2 line 7 / ADA-GP Alg. 1 line 6: w ← w − (η/δ)(g − BᵀPBg); BᵀPBg = Zᵀ(MᵀP(M Zg)).
    apply_p(work_.projected, work_.q);
    for (index_t i = 0; i < R; ++i) coef_[sz(i)] += step * work_.q[sz(i)];
  } else {
    // ADA-FD Alg. 1 line 7, eq. (6): w = −(η/δ)(ḡ − BᵀPBḡ) = w̄ − Zᵀ(MᵀP(M Zw̄)), w̄ = −(η/δ)ḡ; with
    // the ℓ2 term P uses δ' and the weights are read as (δ/δ')(w̄ + Zᵀc) (weight_scale).
    for (index_t i = 0; i < R; ++i) dual_[sz(i)] -= step * work_.projected[sz(i)];
    apply_p(dual_, coef_);
    for (index_t i = 0; i < R; ++i) coef_[sz(i)] = -coef_[sz(i)];
  }
}

void SketchedAdaGrad::step_data_sketch(const LocalRow& x, std::span<const double> products,
                                       std::span<const double> lazy_dots, std::span<double> weight_products,
                                       double xx) {
  const index_t R = basis_, K = classes_;
  const bool md = !dual_averaging();
  const bool lazy_md = md && prox_ != Prox::lasso;
  if (lazy_md && sketch_->next_insert_restructures()) fold();
  std::copy(products.begin(), products.end(), work_.projected.begin());
  sketch_->insert(x, work_.projected, xx);  // ADA-DP Alg. 2 line 4: S_t = S_{t−1} + r_t x_tᵀ
  sketch_->update_product(work_.projected, xx);  // Z_new x
  for (index_t k = 0; k < K; ++k) {  // Z_new w_k from p_k = xᵀw_k
    if (!zw_.empty()) sketch_->update_product(std::span<double>(zw_).subspan(sz(k * R), sz(R)), work_.scores[sz(k)]);
    if (!weight_products.empty())
      sketch_->update_product(weight_products.subspan(sz(k * R), sz(R)), work_.scores[sz(k)]);
  }
  if (prox_ == Prox::lasso) return lasso_data_step(x, weight_products);
  if (md && prox_ == Prox::ridge) return ridge_data_step(x);
  const double step = options_.eta / options_.delta;
  // W̄_{:,k} += (β_k − (η/δ)∂ℓ/∂p_k) x, β_k from carrying C_k through the insertion.
  for (index_t k = 0; k < K; ++k) {
    const double beta = md ? sketch_->update_coefficients(std::span<double>(coef_).subspan(sz(k * R), sz(R)),
                                                          std::span<double>(lazy_).subspan(sz(k)), K)
                           : 0.0;
    work_.scores[sz(k)] = beta - step * work_.dscores[sz(k)];  // work_.scores is free now: the per-class factor
  }
  {
    const std::size_t Kz = sz(K);
    detail::for_each_nonzero(x, [&](std::size_t j, double v) {
      double* wj = lazy_.data() + j * Kz;
      for (std::size_t k = 0; k < Kz; ++k) wj[k] += v * work_.scores[k];
    });
  }
  if (!md)
    for (index_t k = 0; k < K; ++k)
      sketch_->update_product(std::span<double>(dual_).subspan(sz(k * R), sz(R)), lazy_dots[sz(k)]);
  factor_gram(md ? options_.delta : averaged_delta(steps() + 1));
  if (md) {
    // ADA-DP Alg. 2 line 6 per class: W_{:,k} −= (η/δ)∂ℓ/∂p_k (x − BᵀPBx).
    apply_p(work_.projected, work_.q);
    for (index_t k = 0; k < K; ++k) {
      const double f = step * work_.dscores[sz(k)];
      if (f == 0.0) continue;
      for (index_t i = 0; i < R; ++i) coef_[sz(k * R + i)] += f * work_.q[sz(i)];
    }
  } else {
    for (index_t k = 0; k < K; ++k) {
      auto dual_k = std::span<double>(dual_).subspan(sz(k * R), sz(R));
      auto coef_k = std::span<double>(coef_).subspan(sz(k * R), sz(R));
      const double f = step * work_.dscores[sz(k)];
      for (index_t i = 0; i < R; ++i) dual_k[sz(i)] -= f * work_.projected[sz(i)];
      apply_p(dual_k, coef_k);
      for (index_t i = 0; i < R; ++i) coef_k[sz(i)] = -coef_k[sz(i)];
    }
  }
}

}  // namespace adasketch
