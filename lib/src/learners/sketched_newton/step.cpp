// SketchedNewton's step (sketched_newton.hpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "../nonzeros.hpp"
#include "adasketch/error.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"

namespace adasketch {

namespace {

// τ_C(z) = sgn(z) max(|z| − C, 0) (SON Lemma 1).
double tau_c(double z, double C) noexcept {
  if (z > C) return z - C;
  if (z < -C) return z + C;
  return 0.0;
}

}  // namespace

void SketchedNewton::add_to_ubar(const LocalRow& x, double a) noexcept { detail::add_scaled(x, a, ubar_); }

// ---- The step ---------------------------------------------------------------------------------------

SketchedNewton::Projection SketchedNewton::project(const LocalRow& x) const {
  const index_t R = rows_, Rz = basis_;
  // The example's one Allreduce: [Z_p x_p, ū_pᵀx_p, ‖x_p‖²] (docs/design.md §3).
  std::fill(work_.reduce.begin(), work_.reduce.end(), 0.0);
  detail::prefetch_entries(x, ubar_.data(), 1);
  if (sketch_) sketch_->add_local_product(x, std::span<double>(work_.reduce).first(static_cast<std::size_t>(Rz)));
  work_.reduce[Rz] = detail::local_dot(ubar_, x) + (sketch_ ? sketch_->local_deferred_dot(x) : 0.0);
  work_.reduce[Rz + 1] = x.local_norm2();
  comm().allreduce_sum(work_.reduce);
  Projection p;
  p.ux = work_.reduce[Rz];
  p.xx = work_.reduce[Rz + 1];
  for (index_t i = 0; i < Rz; ++i) {
    work_.zx[i] = work_.reduce[i];
    p.ux += c_[i] * work_.zx[i];  // uᵀx = ūᵀx + cᵀ(Z x)
  }
  if (!std::isfinite(p.ux) || !std::isfinite(p.xx))
    throw NumericError(name() + ": the score uᵀx is not finite");
  p.tau = tau_c(p.ux, options_.C);
  if (p.tau == 0.0 || p.xx == 0.0) return p;
  if (!sketch_) {  // A = αI: γ = τ_C(uᵀx)/‖x‖²
    p.gamma = p.tau / p.xx;
    return p;
  }
  // SON Alg. 1 line 5 / Lemma 1: γ = τ_C(uᵀx)/(xᵀx − x̂ᵀHx̂) with x̂ = Bx = M(Z x).
  sketch_->mix(work_.zx, work_.hx);
  forward(work_.hx);  // L⁻¹x̂, so x̂ᵀHx̂ = ‖L⁻¹x̂‖²
  double q = 0.0;
  for (index_t i = 0; i < R; ++i) q += work_.hx[i] * work_.hx[i];
  backward(work_.hx);  // H x̂
  if (pseudo_inverse_) {
    // α = 0, Lemma 2: r = xᵀx − x̂ᵀHx̂ = ‖(I − A⁺A)x‖², H = (BBᵀ)⁺.
    const double r = p.xx - q;
    if (r > std::sqrt(options_.rank_tolerance) * p.xx) {  // x ∉ range(A): γ = τ_C(uᵀx)/r
      p.gamma = p.tau / r;
      return p;
    }
    // x ∈ range(A): xᵀA⁺x = ‖Hx̂‖², A⁺x = BᵀH²x̂.
    double s = 0.0;
    for (index_t i = 0; i < R; ++i) s += work_.hx[i] * work_.hx[i];
    forward(work_.hx);
    backward(work_.hx);  // H²x̂
    p.in_range = true;
    p.gamma = s > 0.0 ? p.tau / s : 0.0;
    return p;
  }
  // xᵀx − x̂ᵀHx̂ = α xᵀA⁻¹x ≥ α‖x‖²/(α + λ_max(BᵀB)) ≥ α‖x‖²/(α + tr BBᵀ).
  const double floor = factor_alpha_ * p.xx / (factor_alpha_ + factor_trace_);
  const double denom = std::max(p.xx - q, floor);
  p.gamma = p.tau / denom;
  return p;
}

LocalRow SketchedNewton::rescaled(const LocalRow& x) const {
  if (!options_.diag_rescale) return x;
  const auto v = x.values();
  ADASKETCH_REQUIRE(v.size() <= work_.rescaled.size(), "the example has more local entries than local features");
  if (x.is_dense()) {
    for (std::size_t j = 0; j < v.size(); ++j) work_.rescaled[j] = v[j] / std::sqrt(diag_[j]);
    return LocalRow::dense(std::span<const double>(work_.rescaled).first(v.size()));
  }
  const auto idx = x.indices();
  for (std::size_t n = 0; n < v.size(); ++n) work_.rescaled[n] = v[n] / std::sqrt(diag_[static_cast<std::size_t>(idx[n])]);
  return LocalRow::sparse(idx, std::span<const double>(work_.rescaled).first(v.size()));
}

void SketchedNewton::update_diagonal(const LocalRow& x, double dl) noexcept {
  if (dl == 0.0) return;
  detail::for_each_nonzero(x, [&](std::size_t j, double v) { diag_[j] += (dl * v) * (dl * v); });
}

LocalRow SketchedNewton::rescale_for_step(const LocalRow& original, const LocalRow& fed, double dl, double& kappa) {
  if (!options_.diag_rescale || dl == 0.0) return fed;
  add_to_ubar(fed, kappa);  // the projection's multiple of D_t^{-1/2}x, before fed's values are rewritten
  kappa = 0.0;
  update_diagonal(original, dl);
  return rescaled(original);
}

double SketchedNewton::reduce_step_row(const LocalRow& x) {
  // With diag_rescale the step's row D_{t+1}^{-1/2}x is known only after ℓ'(wᵀx): its Z x and ‖x‖² take
  // a second Allreduce (docs/design.md §3).
  const index_t Rz = basis_;
  const std::span<double> buf = std::span<double>(work_.reduce).first(static_cast<std::size_t>(Rz) + 1);
  std::fill(buf.begin(), buf.end(), 0.0);
  sketch_->add_local_product(x, buf.first(static_cast<std::size_t>(Rz)));
  buf[static_cast<std::size_t>(Rz)] = x.local_norm2();
  comm().allreduce_sum(buf);
  std::copy_n(buf.begin(), Rz, work_.zx.begin());
  return buf[static_cast<std::size_t>(Rz)];
}

StepResult SketchedNewton::do_step(const LocalRow& x, double label) {
  // FormChoice::automatic: sparse rows take the sparse form (agreed by all ranks), before anything
  // reads the buffers the chosen form sizes.
  if (!form_resolved_ && sketch_)
    choose_form(comm().allreduce_max(index_t{x.is_dense() ? 0 : 1}) != 0 ? FormChoice::sparse : FormChoice::dense);
  if (classes_ > 1) return step_classes(x, label);
  // SON §5.2 as the paper's runs (Vowpal Wabbit's OjaNewton) do it: the projection and the prediction
  // see x̃ = D_t^{-1/2}x; D then takes the diagonal of the original gradient's g gᵀ, and the step (g, ĝ,
  // the sketch) sees D_{t+1}^{-1/2}x (rescale_for_step), as AdaGrad's step includes its own gradient.
  const LocalRow fed = rescaled(x);
  return sketch_ ? step_sketched(x, fed, label) : step_plain(x, fed, label);
}

StepResult SketchedNewton::step_plain(const LocalRow& original, const LocalRow& x, double label) {
  // m = 0: A = αI. Projection (Lemma 1): w = u − τ_C(uᵀx)/‖x‖² x; Newton: u_{t+1} = w − ℓ'(wᵀx)x/α.
  const Projection pr = project(x);
  double kappa = -pr.gamma;
  if (pr.gamma != 0.0) ++projections_;
  const double score[1] = {pr.ux - pr.tau};
  const StepResult result{loss().value(score, label), loss().mistake(score, label)};
  double dl = 0.0;
  loss().derivative(score, label, std::span<double>(&dl, 1));
  const LocalRow xs = rescale_for_step(original, x, dl, kappa);
  kappa -= dl / options_.alpha0;
  add_to_ubar(xs, kappa);
  return result;
}

StepResult SketchedNewton::step_sketched(const LocalRow& original, const LocalRow& fed, double label) {
  const index_t Rz = basis_;
  Sketch& sk = *sketch_;
  sk.settle(fed, ubar_);  // the folds the sketch deferred on x's features, into ū
  const Projection pr = project(fed);
  // ū collects multiples of x (projection, β of the insertion, Woodbury term) and takes them in one
  // pass at the end; Zᵀc is folded in only before a restructuring insertion.
  double kappa = 0.0;
  double prediction = pr.ux;
  if (pr.gamma != 0.0) {
    // w = u − γ(x − BᵀHx̂): ū −= γx, c += γ Mᵀ(Hx̂) (w = u − γBᵀH²x̂: c only, when α = 0 and
    // x ∈ range(A)). Prediction wᵀx = uᵀx − τ = ±C.
    if (!pr.in_range) kappa -= pr.gamma;
    const double step = pr.in_range ? -pr.gamma : pr.gamma;
    sk.mix_transpose(work_.hx, work_.dc);
    for (index_t i = 0; i < Rz; ++i) c_[i] += step * work_.dc[i];
    prediction = pr.ux - pr.tau;
    ++projections_;
  }
  const double score[1] = {prediction};
  const StepResult result{loss().value(score, label), loss().mistake(score, label)};
  double dl = 0.0;
  loss().derivative(score, label, std::span<double>(&dl, 1));
  if (dl == 0.0 || pr.xx == 0.0) {  // g_t = 0: u_{t+1} = w_t
    add_to_ubar(fed, kappa);
    return result;
  }
  // The step's row: fed, or with diag_rescale D_{t+1}^{-1/2}x with its Z x in work_.zx.
  const LocalRow x = rescale_for_step(original, fed, dl, kappa);
  const double xx = options_.diag_rescale ? reduce_step_row(x) : pr.xx;

  // SON Alg. 1 line 7–8: ĝ = sqrt(σ_t + η_t) g, g = ℓ'(wᵀx) x, inserted into the sketch.
  const double root = std::sqrt(options_.sigma + eta(steps() + 1));
  const double gscale = root * dl;  // ĝ = gscale · x
  bool in_row_space = false;        // x is (a multiple of) the stored row `slot`
  index_t slot = -1;
  if (gscale != 0.0) {
    // A shrink or a rebase rewrites every row: fold u = ū + Zᵀc into ū first.
    if (sk.next_insert_restructures()) sk.fold_coefficients(c_, ubar_);
    // ĝ's local slice (a scaled copy of x), Z ĝ = gscale · Z x and ‖ĝ‖² = gscale² ‖x‖²: no communication.
    const auto xv = x.values();
    ADASKETCH_REQUIRE(xv.size() <= work_.ghat.size(), "the example has more local entries than local features");
    for (std::size_t n = 0; n < xv.size(); ++n) work_.ghat.data()[n] = gscale * xv[n];
    const std::span<const double> gv(work_.ghat.data(), xv.size());
    const LocalRow ghat = x.is_dense() ? LocalRow::dense(gv) : LocalRow::sparse(x.indices(), gv);
    for (index_t i = 0; i < Rz; ++i) work_.zg[i] = gscale * work_.zx[i];
    sk.insert(ghat, work_.zg, gscale * gscale * xx);
    // Carry u = ū + Zᵀc and Z x through the insertion (Sketch::update_coefficients, update_product).
    kappa += sk.update_coefficients(c_, ubar_, 1) * gscale;  // Z_oldᵀc = Z_newᵀc' + β ĝ + (retired rows)
    sk.update_product(work_.zx, gscale * xx);                     // work_.zx = Z_new x
    slot = sk.last_appended_row();
    if (slot >= 0) {
      factor_row(slot);  // only row `slot` of the Gram changed, α did not
      in_row_space = true;
    } else {
      factor_all();
    }
  }

  // SON Alg. 1 line 9 / RFD-SON Alg. 5 line 10: u_{t+1} = w_t − A_t⁻¹g_t, A_t = α_tI + B_tᵀB_t.
  if (in_row_space) {
    // Row `slot` of B is ĝ = root·g, so g = Bᵀe_slot/root and A⁻¹g = Bᵀ(αI + BBᵀ)⁻¹e_slot/root
    // (with α = 0: A⁺Bᵀ = BᵀH, H = (BBᵀ)⁺).
    std::fill(work_.rhs.begin(), work_.rhs.end(), 0.0);
    work_.rhs[slot] = 1.0;
    forward(work_.rhs);
    backward(work_.rhs);
    sk.mix_transpose(work_.rhs, work_.dc);
    for (index_t i = 0; i < Rz; ++i) c_[i] -= work_.dc[i] / root;
  } else if (pseudo_inverse_) {
    // α = 0 (SON App. D): A⁺g = BᵀH²Bg with Bg = ℓ' M(Z_new x): c −= Mᵀ(H²Bg).
    sk.mix(work_.zx, work_.rhs);
    for (double& v : work_.rhs) v *= dl;
    forward(work_.rhs);
    backward(work_.rhs);
    forward(work_.rhs);
    backward(work_.rhs);
    sk.mix_transpose(work_.rhs, work_.dc);
    for (index_t i = 0; i < Rz; ++i) c_[i] -= work_.dc[i];
  } else {
    // Woodbury: A⁻¹g = (g − BᵀHBg)/α with Bg = ℓ' M(Z_new x): ū −= (ℓ'/α)x, c += Mᵀ(H Bg)/α.
    const double a = factor_alpha_;
    sk.mix(work_.zx, work_.rhs);
    for (double& v : work_.rhs) v *= dl;
    forward(work_.rhs);
    backward(work_.rhs);
    sk.mix_transpose(work_.rhs, work_.dc);
    for (index_t i = 0; i < Rz; ++i) c_[i] += work_.dc[i] / a;
    kappa -= dl / a;
  }
  add_to_ubar(x, kappa);
  return result;
}


}  // namespace adasketch
