#include "adasketch/learners/sketched_newton/sketched_newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "../box_projection.hpp"
#include "../family_options.hpp"
#include "../learner_families.hpp"
#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"
#include "adasketch/sketch/make_sketch.hpp"

namespace adasketch {

SketchedNewton::SketchedNewton(const Communicator& comm, index_t dim, const Loss& loss, const SketchedNewtonOptions& options)
    : SketchedNewton(comm, BlockPartition(dim, comm.size()), loss, options) {}

SketchedNewton::SketchedNewton(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                               const SketchedNewtonOptions& options)
    : Learner(comm, partition, loss, options.scale), options_(options), given_(options_), classes_(loss.outputs()) {
  detail::check_hyperparameters(options, "SketchedNewton");
  ADASKETCH_REQUIRE(options.alpha0 == 0.0 || options.alpha0 >= std::numeric_limits<double>::min(),
                    "alpha = " + number_text(options.alpha0) +
                        " (SON needs α > 0 and normal, since 1/α of a subnormal overflows, or α = 0)");
  pseudo_inverse_ = options.alpha0 == 0.0;
  // α = 0 (the pseudo-inverse): where the paper allows it (sketched_newton.hpp).
  ADASKETCH_REQUIRE(!pseudo_inverse_ || options.sketch == SketchKind::fd || options.sketch == SketchKind::fast_fd ||
                        options.sketch == SketchKind::rp,
                    "alpha = 0 takes the pseudo-inverse of BᵀB (SON App. D) only in fd-son, fast-fd-son and rp-son, not " +
                        name() + (options.sketch == SketchKind::oja
                                      ? " (Oja's SᵀS is no sketch of GᵀG whose pseudo-inverse the paper uses)"
                                      : " (RFD-SON needs α₀ > 0: α₀I + BᵀB is singular before the first shrink)"));
  ADASKETCH_REQUIRE(!pseudo_inverse_ || options.ell >= 1, "alpha = 0 with ell = 0 leaves A = 0: the weights never move");
  ADASKETCH_REQUIRE(!pseudo_inverse_ || classes_ == 1,
                    "alpha = 0 with the softmax loss: Lemma 2's pseudo-inverse projection is for one slab |wᵀx| ≤ C, "
                    "not K (use alpha > 0)");
  ADASKETCH_REQUIRE(options.rank_tolerance > 0.0 && options.rank_tolerance < 1.0,
                    "rank_tolerance = " + number_text(options.rank_tolerance));
  ADASKETCH_REQUIRE(options.oja_gamma.empty() || (options.sketch == SketchKind::oja && options.ell >= 1),
                    "oja_gamma has " + number_text(options.oja_gamma.size()) + " values, but only oja-son with ell >= 1 " +
                        "takes Oja's step sizes (" + name() + ", ell = " + number_text(options.ell) + ")");
  regularized_ = options.sketch == SketchKind::rfd || options.sketch == SketchKind::fast_rfd;
  form_resolved_ = options.form != FormChoice::automatic;
  install_sketch(options.form == FormChoice::sparse ? SketchForm::sparse : SketchForm::dense);
}

void SketchedNewton::install_sketch(SketchForm form) {
  const auto dp = static_cast<std::size_t>(local_dim());
  const auto K = static_cast<std::size_t>(classes_);
  ubar_ = PageBuffer(static_cast<std::size_t>(dp * K));
  work_.reduce.assign(2, 0.0);
  if (options_.diag_rescale) {
    diag_.assign(dp * K, options_.rescale_d1);  // D_1 = rescale_d1·I (SON footnote 6: 0.1)
    work_.rescaled.assign(dp, 0.0);
  }
  if (options_.ell > 0) install_factor(form);
  if (K > 1) install_classes();
}

void SketchedNewton::install_classes() {
  const auto dp = static_cast<std::size_t>(local_dim());
  const auto K = static_cast<std::size_t>(classes_);
  const auto R = static_cast<std::size_t>(rows_), Rz = static_cast<std::size_t>(basis_);
  box_ = std::make_unique<detail::BoxProjection>(classes_);
  dense_class_index_.resize(dp * K);
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t j = 0; j < dp; ++j) dense_class_index_[k * dp + j] = static_cast<index_t>(class_entry(j, k, K));
  work_.class_index.assign(dp * K, 0);
  if (options_.diag_rescale) work_.class_value.assign(dp * K, 0.0);
  work_.ghat = PageBuffer(dp * K);
  work_.ghat_index.assign(dp * K, 0);
  work_.reduce.assign(K * Rz + 2 * K, 0.0);
  work_.zxk.assign(K * Rz, 0.0);
  work_.xhat.assign(K * R, 0.0);
  work_.mtilde.assign(K * K, 0.0);
  for (auto* v : {&work_.scores, &work_.norms, &work_.lambda, &work_.dscores, &work_.ucoef}) v->assign(K, 0.0);
  work_.zgrad.assign(Rz, 0.0);
}

void SketchedNewton::install_factor(SketchForm form) {
  const auto dp = static_cast<std::size_t>(local_dim());
  SketchSpec spec;
  spec.kind = options_.sketch;
  spec.ell = options_.ell;
  spec.seed = options_.seed;
  spec.alpha0 = regularized_ ? options_.alpha0 : 0.0;
  spec.form = form;
  spec.max_growth = options_.max_growth;
  spec.oja_gamma = options_.oja_gamma;
  // K > 1: the sketch of the dK-dimensional gradients, a feature's K entries on its owner.
  sketch_ = make_sketch(comm(), classes_ > 1 ? partition().interleaved(classes_) : partition(), spec);
  rows_ = sketch_->rows();
  basis_ = sketch_->basis_rows();
  const auto R = static_cast<std::size_t>(rows_), Rz = static_cast<std::size_t>(basis_);
  work_.ghat = PageBuffer(dp);
  c_.assign(Rz, 0.0);
  work_.zg.assign(Rz, 0.0);
  work_.rhs.assign(R, 0.0);
  factor_.assign(R * R, 0.0);
  work_.factor_columns.assign(R * R, 0.0);
  trace_part_.assign(R, 0.0);
  work_.reduce.assign(Rz + 2, 0.0);
  work_.zx.assign(Rz, 0.0);
  work_.hx.assign(R, 0.0);
  work_.dc.assign(Rz, 0.0);
  if (pseudo_inverse_) {
    eigen_ = SymmetricEigen(static_cast<int>(R));
    work_.pinv_product.assign(R, 0.0);
  }
  factor_all();
}

SketchedNewton::~SketchedNewton() = default;

void SketchedNewton::choose_form(FormChoice form) {
  if (form_resolved_ || form == FormChoice::automatic || !sketch_) return;
  if (form == FormChoice::sparse) install_sketch(SketchForm::sparse);
  form_resolved_ = true;
}

void SketchedNewton::prefetch(const LocalRow& x) const noexcept {
  if (sketch_ && outputs() == 1) sketch_->prefetch(x);  // (K = 1: the sketched row has x's features)
}

std::string SketchedNewton::name() const { return to_string(options_.sketch) + "-son"; }

LearnerSpec SketchedNewton::spec() const {
  LearnerSpec s = detail::spec_from_options(*this, given_);
  s.form = !form_resolved_ || !sketch_              ? FormChoice::automatic
           : sketch_->form() == SketchForm::sparse ? FormChoice::sparse
                                                   : FormChoice::dense;
  if (options_.sketch != SketchKind::rp && options_.sketch != SketchKind::oja)
    s.seed = LearnerSpec{}.seed;  // only the random sketches read it
  return s;
}

void SketchedNewton::on_data_scale(const DataScale& scale) {
  options_ = detail::at_data_scale(given_, scale);
  if (options_.diag_rescale) std::fill(diag_.begin(), diag_.end(), options_.rescale_d1);  // D_1 (zero gradients so far)
  if (!sketch_) return;
  if (regularized_) sketch_->set_alpha0(options_.alpha0);
  factor_all();  // (the sketch holds only zero rows: the factor of αI at the new α)
}

// State: ū, c, the factor and what it was computed from, D, the projection count, the sketch; work_ is
// rewritten in each step before it is read.
void SketchedNewton::add_state_fields(StateFields& fields) {
  fields.block("son.ubar", partition(), comm().rank(), classes_, ubar_);
  if (options_.diag_rescale) fields.block("son.diag", partition(), comm().rank(), classes_, diag_);
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

double SketchedNewton::alpha() const noexcept { return regularized_ && sketch_ ? sketch_->alpha() : options_.alpha0; }

double SketchedNewton::eta(index_t t) const noexcept {
  return scheduled_eta(options_.eta_schedule, options_.eta, t);
}

void SketchedNewton::add_local_scores(const LocalRow& original, std::span<double> out) const {
  if (classes_ > 1) {  // out[k] += uᵀX_k, local parts
    build_class_rows(original);
    for (index_t k = 0; k < classes_; ++k) {
      const LocalRow row = class_row(original, k);
      double s = detail::local_dot(ubar_, row);
      if (sketch_) s += sketch_->local_deferred_dot(row);
      if (sketch_) {
        std::fill(work_.dc.begin(), work_.dc.end(), 0.0);
        sketch_->add_local_product(row, work_.dc);
        for (index_t i = 0; i < basis_; ++i) s += c_[i] * work_.dc[i];
      }
      out[k] += s;
    }
    return;
  }
  const LocalRow x = rescaled(original);  // wᵀx = uᵀx̃ (diag_rescale)
  double s = detail::local_dot(ubar_, x);
  if (sketch_) s += sketch_->local_deferred_dot(x);
  if (sketch_ && std::any_of(c_.begin(), c_.end(), [](double v) { return v != 0.0; })) {
    std::fill(work_.dc.begin(), work_.dc.end(), 0.0);
    sketch_->add_local_product(x, work_.dc);
    for (index_t i = 0; i < basis_; ++i) s += c_[i] * work_.dc[i];
  }
  out[0] += s;
}

void SketchedNewton::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= ubar_.size(), "out.size() = " + number_text(out.size()) + ", needs " +
                                                    number_text(ubar_.size()));
  std::copy_n(ubar_.data(), ubar_.size(), out.begin());
  if (sketch_) {
    sketch_->add_local_deferred(out);
    sketch_->add_local_transpose_product(c_, out);
  }
  unscale(out);
}

void SketchedNewton::unscale(std::span<double> w) const noexcept {
  if (!options_.diag_rescale) return;
  for (std::size_t j = 0; j < diag_.size(); ++j) w[j] /= std::sqrt(diag_[j]);  // w = D^{-1/2}u
}

void SketchedNewton::projected_weights(const LocalRow& original, std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= ubar_.size(), "out.size() = " + number_text(out.size()) + ", needs " +
                                                    number_text(ubar_.size()));
  if (classes_ > 1) {  // w = u − Σ_k λ'_k(X_k − BᵀHx̂_k), as in step_classes
    std::vector<double> c(c_);
    std::copy_n(ubar_.data(), ubar_.size(), out.begin());
    if (sketch_) sketch_->add_local_deferred(out);
    if (project_classes(original)) {
      for (index_t k = 0; k < classes_; ++k) detail::add_scaled(class_row(original, k), -work_.lambda[k], out);
      if (sketch_) {
        sketch_->mix_transpose(work_.hx, work_.dc);
        for (index_t i = 0; i < basis_; ++i) c[i] += work_.dc[i];
      }
    }
    if (sketch_) sketch_->add_local_transpose_product(c, out);
    unscale(out);
    return;
  }
  const LocalRow x = rescaled(original);
  const Projection pr = project(x);
  std::vector<double> c(c_);
  std::copy_n(ubar_.data(), ubar_.size(), out.begin());
  if (sketch_) sketch_->add_local_deferred(out);
  if (pr.gamma != 0.0) {  // w = u − γ(x − BᵀHx̂) (or u − γBᵀH²x̂), as in do_step
    if (sketch_) {
      sketch_->mix_transpose(work_.hx, work_.dc);
      const double step = pr.in_range ? -pr.gamma : pr.gamma;
      for (index_t i = 0; i < basis_; ++i) c[i] += step * work_.dc[i];
    }
    if (!pr.in_range) detail::add_scaled(x, -pr.gamma, out);
  }
  if (sketch_) sketch_->add_local_transpose_product(c, out);
  unscale(out);
}

std::unique_ptr<Learner> make_sketched_newton(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  const std::string& a = spec.algorithm;
  if (!a.ends_with("-son")) return nullptr;
  auto options = detail::options_from_spec<SketchedNewtonOptions>(spec);
  try {
    options.sketch = from_string<SketchKind>(std::string_view(a).substr(0, a.size() - 4));
  } catch (const InvalidArgument&) {
    return nullptr;  // not a SON algorithm
  }
  return std::make_unique<SketchedNewton>(comm, partition, Loss(spec.loss, spec.classes), options);
}

}  // namespace adasketch

