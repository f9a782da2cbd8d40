#include "adasketch/learners/sketched_newton.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "adasketch/error.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "learner_families.hpp"
#include "nonzeros.hpp"

namespace adasketch {

namespace {

const Loss& checked_loss(const Loss& loss) {
  if (loss.kind() == LossKind::softmax)
    throw InvalidArgument("sketched online Newton (SON) takes a binary or regression loss, not softmax");
  return loss;
}

// τ_C(z) = sgn(z) max(|z| − C, 0) (SON Lemma 1).
double tau_c(double z, double C) noexcept {
  if (z > C) return z - C;
  if (z < -C) return z + C;
  return 0.0;
}

// uᵀx on this rank's entries.
double local_dot(std::span<const double> u, const LocalRow& x) noexcept {
  const auto v = x.values();
  if (x.is_dense()) {
    if (v.empty()) return 0.0;
    return cblas_ddot(static_cast<int>(v.size()), u.data(), 1, v.data(), 1);
  }
  const auto idx = x.indices();
  double s = 0.0;
  for (std::size_t n = 0; n < idx.size(); ++n) s += u[static_cast<std::size_t>(idx[n])] * v[n];
  return s;
}

// out += a·x on this rank's entries.
void add_scaled(const LocalRow& x, double a, std::span<double> out) noexcept {
  if (a == 0.0) return;
  const auto v = x.values();
  if (x.is_dense()) {
    if (!v.empty()) cblas_daxpy(static_cast<int>(v.size()), a, v.data(), 1, out.data(), 1);
    return;
  }
  const auto idx = x.indices();
  for (std::size_t n = 0; n < idx.size(); ++n) out[static_cast<std::size_t>(idx[n])] += a * v[n];
}

}  // namespace

SketchedNewton::SketchedNewton(const Communicator& comm, index_t dim, const Loss& loss, const SketchedNewtonOptions& options)
    : SketchedNewton(comm, BlockPartition(dim, comm.size()), loss, options) {}

SketchedNewton::SketchedNewton(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                               const SketchedNewtonOptions& options)
    : Learner(comm, partition, checked_loss(loss)), options_(options) {
  ADASKETCH_REQUIRE(options.ell >= 0, "ell = " + std::to_string(options.ell));
  ADASKETCH_REQUIRE(std::isfinite(options.alpha) && options.alpha >= std::numeric_limits<double>::min(),
                    "alpha = " + std::to_string(options.alpha) +
                        " (SON needs α > 0 and normal, since 1/α of a subnormal overflows; for RFD-SON α₀ > 0, since "
                        "α₀I + BᵀB is singular before the first shrink)");
  ADASKETCH_REQUIRE(options.C > 0.0, "C = " + std::to_string(options.C));  // +∞ allowed, NaN rejected
  ADASKETCH_REQUIRE(std::isfinite(options.sigma) && options.sigma >= 0.0, "sigma = " + std::to_string(options.sigma));
  ADASKETCH_REQUIRE(std::isfinite(options.eta) && options.eta >= 0.0, "eta = " + std::to_string(options.eta));
  ADASKETCH_REQUIRE(options.oja_gamma.empty() || (options.sketch == SketchKind::oja && options.ell >= 1),
                    "oja_gamma has " + std::to_string(options.oja_gamma.size()) + " values, but only oja-son with ell >= 1 " +
                        "takes Oja's step sizes (" + name() + ", ell = " + std::to_string(options.ell) + ")");
  regularized_ = options.sketch == SketchKind::rfd || options.sketch == SketchKind::fast_rfd;
  form_resolved_ = options.sketch_form != FormChoice::automatic;
  install_sketch(options.sketch_form == FormChoice::sparse ? SketchForm::sparse : SketchForm::dense);
}

void SketchedNewton::install_sketch(SketchForm form) {
  const auto dp = static_cast<std::size_t>(local_dim());
  ubar_.assign(dp, 0.0);
  reduce_.assign(2, 0.0);
  if (options_.ell == 0) return;  // A = αI: no sketch, no factor
  SketchSpec spec;
  spec.kind = options_.sketch;
  spec.ell = options_.ell;
  spec.seed = options_.seed;
  spec.alpha0 = regularized_ ? options_.alpha : 0.0;
  spec.form = form;
  spec.max_growth = options_.max_growth;
  spec.oja_gamma = options_.oja_gamma;
  sketch_ = make_sketch(comm(), partition(), spec);
  rows_ = sketch_->rows();
  basis_ = sketch_->basis_rows();
  const auto R = static_cast<std::size_t>(rows_), Rz = static_cast<std::size_t>(basis_);
  ghat_.assign(dp, 0.0);
  c_.assign(Rz, 0.0);
  zg_.assign(Rz, 0.0);
  solve_.assign(R, 0.0);
  factor_.assign(R * R, 0.0);
  factor_columns_.assign(R * R, 0.0);
  trace_part_.assign(R, 0.0);
  reduce_.assign(Rz + 2, 0.0);
  zx_.assign(Rz, 0.0);
  hx_.assign(R, 0.0);
  scratch_.assign(Rz, 0.0);
  factor_all();
}

SketchedNewton::~SketchedNewton() = default;

void SketchedNewton::choose_form(FormChoice form) {
  if (form_resolved_ || form == FormChoice::automatic || !sketch_) return;
  if (form == FormChoice::sparse) install_sketch(SketchForm::sparse);
  form_resolved_ = true;
}

std::string SketchedNewton::name() const { return to_string(options_.sketch) + "-son"; }

LearnerSpec SketchedNewton::spec() const {
  LearnerSpec s;
  s.algorithm = name();
  s.loss = loss().kind();
  s.ell = options_.ell;
  s.alpha0 = options_.alpha;
  s.C = options_.C;
  s.sigma = options_.sigma;
  s.eta = options_.eta;
  s.eta_schedule = options_.eta_schedule;
  if (form_resolved_ && sketch_) s.form = sketch_->form() == SketchForm::sparse ? FormChoice::sparse : FormChoice::dense;
  if (options_.sketch == SketchKind::rp || options_.sketch == SketchKind::oja) s.seed = options_.seed;
  s.oja_gamma = options_.oja_gamma;
  return s;
}

// ghat_, yg_, solve_ and the mutable buffers are rewritten in each step before they are read.
void SketchedNewton::add_state_fields(StateFields& fields) {
  fields.block("son.ubar", partition(), comm().rank(), 1, ubar_);
  if (!sketch_) {
    fields.integer("son.projections", projections_);
    return;
  }
  fields.array("son.c", c_);
  fields.integer("son.projections", projections_);
  fields.real("son.factor_alpha", factor_alpha_);
  fields.real("son.factor_trace", factor_trace_);
  fields.array("son.trace_part", trace_part_);
  fields.array("son.factor", factor_);
  sketch_->state_fields(fields);
}

double SketchedNewton::alpha() const noexcept { return regularized_ && sketch_ ? sketch_->alpha() : options_.alpha; }

double SketchedNewton::eta(index_t t) const noexcept {
  const double tt = static_cast<double>(std::max<index_t>(t, 1));
  switch (options_.eta_schedule) {
    case EtaSchedule::constant: return options_.eta;
    case EtaSchedule::inv_t: return options_.eta / tt;
    case EtaSchedule::inv_sqrt_t: return options_.eta / std::sqrt(tt);
  }
  return options_.eta;
}

// ---- The cached Cholesky factor L Lᵀ = α I + B Bᵀ (row-major lower triangle of factor_). -------------

void SketchedNewton::factor_all() {
  // Right-looking (outer-product) Cholesky on the columns of L, stored contiguously (cols[j·R + i] =
  // L_ij): its inner loops run over independent entries, where factor_row's dot products wait on one
  // accumulator. Each entry takes the same operations in the same order as in factor_row (g, then
  // − L_ip L_jp for p = 0, 1, …, then one division or square root), so both give the same bits.
  const auto g = sketch_->gram();
  const index_t R = rows_;
  const double a = alpha();
  factor_alpha_ = a;
  double* cols = factor_columns_.data();
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

void SketchedNewton::factor_row(index_t k) {
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
  for (index_t i = 0; i < R; ++i) {
    const double* li = factor_.data() + i * R;
    double s = v[i];
    for (index_t j = 0; j < i; ++j) s -= li[j] * v[j];
    v[i] = s / li[i];
  }
}

void SketchedNewton::backward(std::span<double> v) const noexcept {
  const index_t R = rows_;
  for (index_t i = R - 1; i >= 0; --i) {
    double s = v[i];
    for (index_t j = i + 1; j < R; ++j) s -= factor_[j * R + i] * v[j];
    v[i] = s / factor_[i * R + i];
  }
}

void SketchedNewton::add_to_ubar(const LocalRow& x, double a) noexcept { add_scaled(x, a, ubar_); }

// ---- The step ---------------------------------------------------------------------------------------

SketchedNewton::Projection SketchedNewton::project(const LocalRow& x) const {
  const index_t R = rows_, Rz = basis_;
  // The example's one Allreduce: [Z_p x_p, ū_pᵀx_p, ‖x_p‖²] (docs/design.md §3).
  std::fill(reduce_.begin(), reduce_.end(), 0.0);
  detail::prefetch_entries(x, ubar_.data(), 1);
  if (sketch_) sketch_->add_local_product(x, std::span<double>(reduce_).first(static_cast<std::size_t>(Rz)));
  reduce_[Rz] = local_dot(ubar_, x);
  reduce_[Rz + 1] = x.local_norm2();
  comm().allreduce_sum(reduce_);
  Projection p;
  p.ux = reduce_[Rz];
  p.xx = reduce_[Rz + 1];
  for (index_t i = 0; i < Rz; ++i) {
    zx_[i] = reduce_[i];
    p.ux += c_[i] * zx_[i];  // uᵀx = ūᵀx + cᵀ(Z x)
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
  sketch_->mix(zx_, hx_);
  forward(hx_);  // L⁻¹x̂, so x̂ᵀHx̂ = ‖L⁻¹x̂‖²
  double q = 0.0;
  for (index_t i = 0; i < R; ++i) q += hx_[i] * hx_[i];
  backward(hx_);  // H x̂
  // xᵀx − x̂ᵀHx̂ = α xᵀA⁻¹x ≥ α‖x‖²/(α + λ_max(BᵀB)) ≥ α‖x‖²/(α + tr BBᵀ).
  const double floor = factor_alpha_ * p.xx / (factor_alpha_ + factor_trace_);
  const double denom = std::max(p.xx - q, floor);
  p.gamma = p.tau / denom;
  return p;
}

StepResult SketchedNewton::do_step(const LocalRow& x, double label) {
  if (!sketch_) return step_plain(x, label);
  return step_sketched(x, label);
}

StepResult SketchedNewton::step_plain(const LocalRow& x, double label) {
  // m = 0: A = αI. Projection (Lemma 1): w = u − τ_C(uᵀx)/‖x‖² x; Newton: u_{t+1} = w − ℓ'(wᵀx)x/α.
  const Projection pr = project(x);
  double kappa = -pr.gamma;
  if (pr.gamma != 0.0) ++projections_;
  const double score[1] = {pr.ux - pr.tau};
  const StepResult result{loss().value(score, label), loss().mistake(score, label)};
  double dl = 0.0;
  loss().derivative(score, label, std::span<double>(&dl, 1));
  kappa -= dl / options_.alpha;
  add_to_ubar(x, kappa);
  return result;
}

StepResult SketchedNewton::step_sketched(const LocalRow& x, double label) {
  // FormChoice::automatic: sparse rows take the sparse form (agreed by all ranks).
  if (!form_resolved_)
    choose_form(comm().allreduce_max(index_t{x.is_dense() ? 0 : 1}) != 0 ? FormChoice::sparse : FormChoice::dense);
  const index_t Rz = basis_;
  Sketch& sk = *sketch_;
  const Projection pr = project(x);
  // ū collects multiples of x (projection, β of the insertion, Woodbury term) and takes them in one
  // pass at the end; Zᵀc is folded in only before a restructuring insertion.
  double kappa = 0.0;
  double prediction = pr.ux;
  if (pr.gamma != 0.0) {
    // w = u − γ(x − BᵀHx̂): ū −= γx, c += γ Mᵀ(Hx̂). Prediction wᵀx = uᵀx − τ = ±C.
    kappa -= pr.gamma;
    sk.mix_transpose(hx_, scratch_);
    for (index_t i = 0; i < Rz; ++i) c_[i] += pr.gamma * scratch_[i];
    prediction = pr.ux - pr.tau;
    ++projections_;
  }
  const double score[1] = {prediction};
  const StepResult result{loss().value(score, label), loss().mistake(score, label)};
  double dl = 0.0;
  loss().derivative(score, label, std::span<double>(&dl, 1));
  if (dl == 0.0 || pr.xx == 0.0) {  // g_t = 0: u_{t+1} = w_t
    add_to_ubar(x, kappa);
    return result;
  }

  // SON Alg. 1 line 7–8: ĝ = sqrt(σ_t + η_t) g, g = ℓ'(wᵀx) x, inserted into the sketch.
  const double root = std::sqrt(options_.sigma + eta(steps() + 1));
  const double gscale = root * dl;  // ĝ = gscale · x
  bool in_row_space = false;        // x is (a multiple of) the stored row `slot`
  index_t slot = -1;
  if (gscale != 0.0) {
    if (sk.next_insert_restructures()) {
      // A dense shrink or a rebase rewrites every row: fold u = ū + Zᵀc into ū first.
      sk.add_local_transpose_product(c_, ubar_);
      std::fill(c_.begin(), c_.end(), 0.0);
    }
    // ĝ's local slice (a scaled copy of x), Z ĝ = gscale · Z x and ‖ĝ‖² = gscale² ‖x‖²: no communication.
    const auto xv = x.values();
    ADASKETCH_REQUIRE(xv.size() <= ghat_.size(), "the example has more local entries than local features");
    for (std::size_t n = 0; n < xv.size(); ++n) ghat_[n] = gscale * xv[n];
    const std::span<const double> gv(ghat_.data(), xv.size());
    const LocalRow ghat = x.is_dense() ? LocalRow::dense(gv) : LocalRow::sparse(x.indices(), gv);
    for (index_t i = 0; i < Rz; ++i) zg_[i] = gscale * zx_[i];
    sk.insert(ghat, zg_, gscale * gscale * pr.xx);
    // Carry u = ū + Zᵀc and Z x through the insertion (Sketch::update_coefficients, update_product).
    kappa += sk.update_coefficients(c_, ubar_, 1) * gscale;  // Z_oldᵀc = Z_newᵀc' + β ĝ + (retired rows)
    sk.update_product(zx_, gscale * pr.xx);                  // zx_ = Z_new x
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
    // Row `slot` of B is ĝ = root·g, so g = Bᵀe_slot/root and A⁻¹g = Bᵀ(αI + BBᵀ)⁻¹e_slot/root.
    std::fill(solve_.begin(), solve_.end(), 0.0);
    solve_[slot] = 1.0;
    forward(solve_);
    backward(solve_);
    sk.mix_transpose(solve_, scratch_);
    for (index_t i = 0; i < Rz; ++i) c_[i] -= scratch_[i] / root;
  } else {
    // Woodbury: A⁻¹g = (g − BᵀHBg)/α with Bg = ℓ' M(Z_new x): ū −= (ℓ'/α)x, c += Mᵀ(H Bg)/α.
    const double a = factor_alpha_;
    sk.mix(zx_, solve_);
    for (double& v : solve_) v *= dl;
    forward(solve_);
    backward(solve_);
    sk.mix_transpose(solve_, scratch_);
    for (index_t i = 0; i < Rz; ++i) c_[i] += scratch_[i] / a;
    kappa -= dl / a;
  }
  add_to_ubar(x, kappa);
  return result;
}

void SketchedNewton::add_local_scores(const LocalRow& x, std::span<double> out) const {
  double s = local_dot(ubar_, x);
  if (sketch_ && std::any_of(c_.begin(), c_.end(), [](double v) { return v != 0.0; })) {
    std::fill(scratch_.begin(), scratch_.end(), 0.0);
    sketch_->add_local_product(x, scratch_);
    for (index_t i = 0; i < basis_; ++i) s += c_[i] * scratch_[i];
  }
  out[0] += s;
}

void SketchedNewton::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= ubar_.size(), "out.size() = " + std::to_string(out.size()) + ", needs " +
                                                    std::to_string(ubar_.size()));
  std::copy(ubar_.begin(), ubar_.end(), out.begin());
  if (sketch_) sketch_->add_local_transpose_product(c_, out);
}

void SketchedNewton::projected_weights(const LocalRow& x, std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= ubar_.size(), "out.size() = " + std::to_string(out.size()) + ", needs " +
                                                    std::to_string(ubar_.size()));
  const Projection pr = project(x);
  std::vector<double> c(c_);
  std::copy(ubar_.begin(), ubar_.end(), out.begin());
  if (pr.gamma != 0.0) {  // w = u − γ(x − BᵀHx̂), as in do_step
    if (sketch_) {
      sketch_->mix_transpose(hx_, scratch_);
      for (index_t i = 0; i < basis_; ++i) c[i] += pr.gamma * scratch_[i];
    }
    add_scaled(x, -pr.gamma, out);
  }
  if (sketch_) sketch_->add_local_transpose_product(c, out);
}

std::unique_ptr<Learner> make_sketched_newton(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  const std::string& a = spec.algorithm;
  if (!a.ends_with("-son")) return nullptr;
  SketchedNewtonOptions options;
  try {
    options.sketch = from_string<SketchKind>(std::string_view(a).substr(0, a.size() - 4));
  } catch (const InvalidArgument&) {
    return nullptr;  // not a SON algorithm
  }
  options.ell = spec.ell;
  options.alpha = spec.alpha0;
  options.C = spec.C;
  options.sigma = spec.sigma;
  options.eta = spec.eta;
  options.eta_schedule = spec.eta_schedule;
  options.seed = spec.seed;
  options.sketch_form = spec.form;
  options.oja_gamma = spec.oja_gamma;
  return std::make_unique<SketchedNewton>(comm, partition, Loss(spec.loss, spec.classes), options);
}

}  // namespace adasketch
