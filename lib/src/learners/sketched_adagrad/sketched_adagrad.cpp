#include "adasketch/learners/sketched_adagrad/sketched_adagrad.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "../dense_slice.hpp"
#include "../family_options.hpp"
#include "../learner_families.hpp"
#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/random_projection.hpp"
#include "low_rank_l1_prox.hpp"

namespace adasketch {

namespace {

using Sketching = SketchedAdaGradOptions::Sketching;
using Update = SketchedAdaGradOptions::Update;

void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidArgument("SketchedAdaGrad: " + what);
}

// Validates the options and builds the sketch: gradients live in R^{dK} on the interleaved
// partition (feature j's K entries j·K … j·K+K−1 on j's owner), data in R^d.
std::unique_ptr<Sketch> build_sketch(const Communicator& comm, const BlockPartition& features, const Loss& loss,
                                     const SketchedAdaGradOptions& o, SketchForm form) {
  // The stricter rules first (η > 0, ℓ ≥ 1), then the table's ranges; a subnormal δ is refused there:
  // 1/δ overflows (the preconditioner's null-space scale, ADA-FD eq. (6)).
  require(o.ell >= 1, "ell must be >= 1, got " + number_text(o.ell));
  require(std::isfinite(o.eta) && o.eta > 0.0, "eta must be positive and finite, got " + number_text(o.eta));
  detail::check_hyperparameters(o, "SketchedAdaGrad");
  require(o.rank_tolerance >= 0.0 && o.rank_tolerance < 1.0,
          "rank_tolerance must be in [0, 1), got " + number_text(o.rank_tolerance));
  require(o.prox_tolerance > 0.0 && o.prox_tolerance < 1.0,
          "prox_tolerance must be in (0, 1), got " + number_text(o.prox_tolerance));
  switch (o.sketching) {
    case Sketching::fd_gradients:
    case Sketching::fast_fd_gradients: {
      FrequentDirectionsOptions fd;
      fd.ell = o.ell;
      fd.fast = o.sketching == Sketching::fast_fd_gradients;
      fd.form = form;
      fd.border_gram = fd.fast;  // the learner borders the Gram in the sketch's decomposition (factor_gram)
      return std::make_unique<FrequentDirections>(comm, features.interleaved(loss.outputs()), fd);
    }
    case Sketching::rp_gradients:
      return std::make_unique<RandomProjection>(comm, features.interleaved(loss.outputs()),
                                                RandomProjectionOptions{o.ell, o.seed, 0, form});
    case Sketching::rp_data:
      return std::make_unique<RandomProjection>(comm, features, RandomProjectionOptions{o.ell, o.seed, 0, form});
  }
  throw InvalidArgument("SketchedAdaGrad: unknown sketching");
}

}  // namespace

SketchedAdaGrad::SketchedAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const SketchedAdaGradOptions& options)
    : SketchedAdaGrad(comm, BlockPartition(dim, comm.size()), loss, options) {}

SketchedAdaGrad::SketchedAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                                 const SketchedAdaGradOptions& options)
    : Learner(comm, partition, loss, options.scale),
      options_(options), given_(options_),
      classes_(loss.outputs()),
      dp_(local_dim()),
      eigen_(1),
      form_resolved_(options.form != FormChoice::automatic),
      prox_(options.lambda1 > 0.0 ? Prox::lasso : options.lambda2 > 0.0 ? Prox::ridge : Prox::none) {
  install_sketch(options.form == FormChoice::sparse ? SketchForm::sparse : SketchForm::dense);
}

void SketchedAdaGrad::install_sketch(SketchForm form) {
  sketch_ = build_sketch(comm(), partition(), loss(), options_, form);
  rows_ = sketch_->rows();
  basis_ = sketch_->basis_rows();
  eigen_ = SymmetricEigen(static_cast<int>(rows_));
  auto* fd = dynamic_cast<FrequentDirections*>(sketch_.get());
  gram_eigen_ = fd != nullptr && fd->options().border_gram ? &fd->gram_eigen() : &eigen_;
  const index_t R = rows_, Rz = basis_, K = classes_;
  phi_.assign(sz(R), 0.0);
  sigma_.assign(sz(R), 0.0);
  work_.eigen_coords.assign(sz(R), 0.0);
  work_.mv.assign(sz(R), 0.0);
  work_.q.assign(sz(Rz), 0.0);
  work_.projected.assign(sz(Rz), 0.0);
  lazy_.assign(sz(dp_ * K), 0.0);
  const index_t coefficient_count = sketches_gradients() ? Rz : Rz * K;
  coef_.assign(sz(coefficient_count), 0.0);
  if (dual_averaging() && prox_ != Prox::lasso) dual_.assign(sz(coefficient_count), 0.0);
  const index_t products = sketches_gradients() ? Rz * K : Rz;
  // ℓ1: Z w_t (per class for the data sketch) joins the step's Allreduce.
  work_.reduce.assign(sz(products + K + 1 + (prox_ == Prox::lasso ? coefficient_count : 0)), 0.0);
  scale_ = 1.0;
  if (prox_ == Prox::ridge && !dual_averaging()) {
    zw_.assign(sz(coefficient_count), 0.0);
    work_.ridge.assign(sz(2 * Rz), 0.0);
  }
  if (prox_ == Prox::lasso) {
    if (dual_averaging()) gsum_.assign(sz(dp_ * K), 0.0);
    work_.target.assign(sz(sketch_->local_dim()), 0.0);
    work_.column.assign(sz(sketch_->local_dim()), 0.0);
    work_.mu0.assign(sz(R), 0.0);
    prox_solver_ = std::make_unique<detail::LowRankL1Prox>(*sketch_, options_.prox_tolerance);
  }
  work_.score_products.assign(sz(products), 0.0);
  work_.scores.assign(sz(K), 0.0);
  work_.dscores.assign(sz(K), 0.0);
  if (sketches_gradients()) {
    work_.g_values.assign(sz(dp_ * K), 0.0);
    work_.g_indices.assign(sz(dp_ * K), 0);
    if (K > 1) {
      class_indices_.resize(sz(dp_ * K));
      for (index_t k = 0; k < K; ++k)
        for (index_t j = 0; j < dp_; ++j) class_indices_[sz(k * dp_ + j)] = class_entry(j, k, K);
      work_.sparse_class_indices.assign(sz(dp_), 0);
    }
  }
}

SketchedAdaGrad::~SketchedAdaGrad() = default;

void SketchedAdaGrad::choose_form(FormChoice form) {
  if (form_resolved_ || form == FormChoice::automatic) return;
  if (form == FormChoice::sparse) install_sketch(SketchForm::sparse);
  form_resolved_ = true;
}

std::string SketchedAdaGrad::name() const {
  std::string base;
  switch (options_.sketching) {
    case Sketching::fd_gradients: base = "ada-fd"; break;
    case Sketching::fast_fd_gradients: base = "fast-ada-fd"; break;
    case Sketching::rp_gradients: base = "ada-gp"; break;
    case Sketching::rp_data: base = "ada-dp"; break;
  }
  return dual_averaging() ? base + "-da" : base;
}

LearnerSpec SketchedAdaGrad::spec() const {
  LearnerSpec s = detail::spec_from_options(*this, given_);
  if (form_resolved_) s.form = sketch_->form() == SketchForm::sparse ? FormChoice::sparse : FormChoice::dense;
  if (options_.sketching != Sketching::rp_gradients && options_.sketching != Sketching::rp_data)
    s.seed = LearnerSpec{}.seed;  // only the random projections read it
  return s;
}

void SketchedAdaGrad::on_data_scale(const DataScale& scale) { options_ = detail::at_data_scale(given_, scale); }

// Everything else (phi_, sigma_, the eigenpairs, work_) is rewritten in each step before it is read.
void SketchedAdaGrad::add_state_fields(StateFields& fields) {
  fields.block("ada.lazy", partition(), comm().rank(), classes_, lazy_);
  fields.array("ada.coef", coef_);
  if (!dual_.empty()) fields.array("ada.dual", dual_);
  if (!zw_.empty()) {
    fields.real("ada.scale", scale_);
    fields.array("ada.zw", zw_);
  }
  if (!gsum_.empty()) fields.block("ada.gsum", partition(), comm().rank(), classes_, gsum_);
  sketch_->state_fields(fields);
}

void SketchedAdaGrad::check_row(const LocalRow& x) const {
  if (!detail::slice_ok(x, dp_)) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, dp_));
}

LocalRow SketchedAdaGrad::gradient_row(const LocalRow& x, index_t k) const {
  const index_t K = classes_;
  if (K == 1) return x;
  if (x.is_dense())
    return LocalRow::sparse(std::span<const index_t>(class_indices_).subspan(sz(k * dp_), sz(dp_)), x.values());
  const auto xi = x.indices();
  for (std::size_t n = 0; n < xi.size(); ++n) work_.sparse_class_indices[n] = class_entry(xi[n], k, K);
  return LocalRow::sparse(std::span<const index_t>(work_.sparse_class_indices).first(xi.size()), x.values());
}

void SketchedAdaGrad::prefetch(const LocalRow& x) const noexcept {
  if (sketch_ && classes_ == 1) sketch_->prefetch(x);  // (K = 1: the gradient's row has x's features)
}

void SketchedAdaGrad::add_local_products(const LocalRow& x, std::span<double> out) const {
  const index_t R = basis_, K = classes_;
  if (!sketches_gradients()) {  // data sketch: Z_p x_p
    sketch_->add_local_product(x, out.first(sz(R)));
    return;
  }
  // Z(x ⊗ e_k) gathers rows j·K + k of the feature-major block: the K calls together read each
  // stored entry of x's features once.
  for (index_t k = 0; k < K; ++k) sketch_->add_local_product(gradient_row(x, k), out.subspan(sz(k * R), sz(R)));
}

void SketchedAdaGrad::add_local_lazy_dots(const LocalRow& x, std::span<double> out) const {
  const std::size_t K = sz(classes_);
  const double* w = lazy_.data();
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    const double* wj = w + j * K;
    for (std::size_t k = 0; k < K; ++k) out[k] += v * wj[k];
  });
}

void SketchedAdaGrad::add_local_scores(const LocalRow& x, std::span<double> out) const {
  check_row(x);
  const index_t R = basis_, K = classes_;
  std::fill(work_.score_products.begin(), work_.score_products.end(), 0.0);
  add_local_products(x, work_.score_products);
  add_local_lazy_dots(x, out);
  if (sketches_gradients())  // the folds the sketch deferred on x's entries (a step settles them first)
    for (index_t k = 0; k < K; ++k) out[sz(k)] += sketch_->local_deferred_dot(gradient_row(x, k));
  // The local part of cᵀZ(x ⊗ e_k) (or C_kᵀZx) is cᵀ(Z_p(x_p ⊗ e_k)): it sums over ranks.
  for (index_t k = 0; k < K; ++k) {
    const double* prod = work_.score_products.data() + (sketches_gradients() ? k * R : 0);
    const double* c = coef_.data() + (sketches_gradients() ? 0 : k * R);
    double s = 0.0;
    for (index_t i = 0; i < R; ++i) s += c[i] * prod[i];
    out[sz(k)] += s;
  }
  const double scale = weight_scale(steps());
  if (scale != 1.0)
    for (index_t k = 0; k < K; ++k) out[sz(k)] *= scale;
}

void SketchedAdaGrad::weights(std::span<double> out) const {
  const std::size_t n = lazy_.size();
  ADASKETCH_REQUIRE(out.size() >= n, "out.size() = " + number_text(out.size()) + ", needs " + number_text(n));
  std::copy(lazy_.begin(), lazy_.end(), out.begin());
  if (sketches_gradients()) {
    sketch_->add_local_deferred(out.first(n));
    sketch_->add_local_transpose_product(coef_, out.first(n));
  } else {
    const index_t R = basis_, K = classes_;
    std::vector<double> column(sz(dp_));
    for (index_t k = 0; k < K; ++k) {
      std::fill(column.begin(), column.end(), 0.0);
      sketch_->add_local_transpose_product(std::span<const double>(coef_).subspan(sz(k * R), sz(R)), column);
      for (index_t j = 0; j < dp_; ++j) out[sz(class_entry(j, k, K))] += column[sz(j)];
    }
  }
  const double scale = weight_scale(steps());
  if (scale != 1.0)
    for (std::size_t e = 0; e < n; ++e) out[e] *= scale;
}

void SketchedAdaGrad::fold() {
  // Only a gradient sketch restructures (an FD shrink); ADA-DP's random projection never does.
  ADASKETCH_REQUIRE(sketches_gradients(), "fold: a data sketch never restructures");
  sketch_->fold_coefficients(coef_, lazy_);
}

void SketchedAdaGrad::factor_gram(double delta) {
  const index_t R = rows_;
  const auto M = sketch_->gram();
  // An FD shrink leaves orthogonal rows, BBᵀ = diag(λ_i − λ_ℓ): after every step of plain FD, and
  // after each shrink of fast FD, the recomputed Gram is diagonal up to round-off. Off-diagonal
  // entries within the eigensolver's own backward error (R·u·max_i M_ii) are then ignored and the
  // eigendecomposition is skipped: P = diag(φ(M_ii)).
  double top = 0.0;
  for (index_t r = 0; r < R; ++r) top = std::max(top, M[sz(r * R + r)]);
  diagonal_ = true;
  const double off_tolerance = static_cast<double>(R) * 0x1p-53 * top;
  for (index_t r = 1; r < R && diagonal_; ++r)
    for (index_t c = 0; c < r; ++c)
      if (!(std::abs(M[sz(r * R + c)]) <= off_tolerance)) {
        diagonal_ = false;
        break;
      }
  if (diagonal_) {
    for (index_t r = 0; r < R; ++r) {
      const double l = M[sz(r * R + r)];
      const double sigma = std::sqrt(std::max(l, 0.0));
      const bool kept = top > 0.0 && l > options_.rank_tolerance * top;
      phi_[sz(r)] = kept ? 1.0 / (sigma * (delta + sigma)) : 0.0;
      sigma_[sz(r)] = kept ? sigma : 0.0;
    }
    return;
  }
  // A Gram that grew by one row since the last step (an FD insertion into a free row) is
  // decomposed by bordering the last decomposition (a function of M alone, so resumes repeat it).
  // In a fast FD sketch's own decomposition, which its shrink then continues by one row.
  if (sketch_->last_appended_row() >= 0)
    gram_eigen_->compute_bordered(M);
  else
    gram_eigen_->compute(M);
  const auto lambda = gram_eigen_->values();  // descending
  const double lambda_max = lambda[0];
  rank_ = 0;
  for (index_t i = 0; i < R; ++i) {
    const double l = lambda[sz(i)];
    if (!(lambda_max > 0.0) || l <= options_.rank_tolerance * lambda_max) break;
    const double sigma = std::sqrt(l);
    phi_[sz(i)] = 1.0 / (sigma * (delta + sigma));  // P = U diag(1/(σ_i(δ+σ_i))) Uᵀ
    sigma_[sz(i)] = sigma;
    rank_ = i + 1;
  }
}

void SketchedAdaGrad::apply_p(std::span<const double> v, std::span<double> out) {
  const index_t R = rows_;
  sketch_->mix(v, work_.mv);  // B-space: M v
  if (diagonal_) {
    for (index_t r = 0; r < R; ++r) work_.mv[sz(r)] *= phi_[sz(r)];
  } else {
    const auto u = gram_eigen_->vectors();  // row-major R×R, eigenvector i in column i
    // z = φ ∘ Uᵀ(M v) on the kept eigenpairs, then M v ← U z.
    for (index_t i = 0; i < rank_; ++i) {
      double z = 0.0;
      for (index_t r = 0; r < R; ++r) z += u[sz(r * R + i)] * work_.mv[sz(r)];
      work_.eigen_coords[sz(i)] = phi_[sz(i)] * z;
    }
    for (index_t r = 0; r < R; ++r) {
      double acc = 0.0;
      const double* ur = u.data() + r * R;
      for (index_t i = 0; i < rank_; ++i) acc += ur[i] * work_.eigen_coords[sz(i)];
      work_.mv[sz(r)] = acc;
    }
  }
  sketch_->mix_transpose(work_.mv, out);
}

std::unique_ptr<Learner> make_sketched_adagrad(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  struct Name {
    const char* name;
    Sketching sketching;
    Update update;
  };
  static constexpr Name kNames[] = {
      {"ada-fd", Sketching::fd_gradients, Update::mirror_descent},
      {"ada-fd-da", Sketching::fd_gradients, Update::dual_averaging},
      {"fast-ada-fd", Sketching::fast_fd_gradients, Update::mirror_descent},
      {"fast-ada-fd-da", Sketching::fast_fd_gradients, Update::dual_averaging},
      {"ada-gp", Sketching::rp_gradients, Update::mirror_descent},
      {"ada-gp-da", Sketching::rp_gradients, Update::dual_averaging},
      {"ada-dp", Sketching::rp_data, Update::mirror_descent},
      {"ada-dp-da", Sketching::rp_data, Update::dual_averaging},
  };
  for (const auto& n : kNames) {
    if (spec.algorithm != n.name) continue;
    auto o = detail::options_from_spec<SketchedAdaGradOptions>(spec);
    o.sketching = n.sketching;
    o.update = n.update;
    return std::make_unique<SketchedAdaGrad>(comm, partition, Loss(spec.loss, spec.classes), o);
  }
  return nullptr;
}

}  // namespace adasketch
