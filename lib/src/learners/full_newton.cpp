#include "adasketch/learners/full_newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../linalg/feature_grid.hpp"
#include "../linalg/scalapack_api.hpp"
#include "adasketch/error.hpp"
#include "dense_slice.hpp"
#include "nonzeros.hpp"

namespace adasketch {

namespace {

constexpr int kOne = 1;
constexpr char kStagedInverse[] = "full.inverse";

const Loss& checked_loss(const Loss& loss) {
  if (loss.kind() == LossKind::softmax)
    throw InvalidArgument("the full online Newton step (FULL-ON) takes a binary or regression loss, not softmax");
  return loss;
}

const FullNewtonOptions& checked(const FullNewtonOptions& o) {
  ADASKETCH_REQUIRE(std::isfinite(o.alpha) && o.alpha >= std::numeric_limits<double>::min(),
                    "alpha = " + std::to_string(o.alpha) + " (needs a positive normal number: A_0 = αI is inverted)");
  ADASKETCH_REQUIRE(o.C > 0.0, "C = " + std::to_string(o.C));  // +∞ allowed, NaN rejected
  ADASKETCH_REQUIRE(std::isfinite(o.sigma) && o.sigma >= 0.0, "sigma = " + std::to_string(o.sigma));
  ADASKETCH_REQUIRE(std::isfinite(o.eta) && o.eta >= 0.0, "eta = " + std::to_string(o.eta));
  return o;
}

// τ_C(z) = sgn(z) max(|z| − C, 0) (SON Lemma 1).
double tau_c(double z, double C) noexcept {
  if (z > C) return z - C;
  if (z < -C) return z + C;
  return 0.0;
}

}  // namespace

/// The ScaLAPACK side: A⁻¹ and the step's vectors x and v = A⁻¹x on the grid.
struct FullNewton::Grid {
  Grid(const Communicator& comm, const BlockPartition& partition, const FullNewtonOptions& o)
      : layout(comm, partition, 1, o.grid_rows, o.block), inverse(layout.square()), x(layout.vectors(1)),
        v(layout.vectors(1)) {
    inverse.add_to_diagonal(1.0 / o.alpha);  // A_0⁻¹ = I/α
  }

  FeatureGrid layout;
  DistributedMatrix inverse;  ///< A_t⁻¹ (both triangles, exactly symmetric)
  DistributedMatrix x, v;
};

FullNewton::FullNewton(const Communicator& comm, index_t dim, const Loss& loss, const FullNewtonOptions& options)
    : FullNewton(comm, BlockPartition(dim, comm.size()), loss, options) {}

FullNewton::FullNewton(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                       const FullNewtonOptions& options)
    : Learner(comm, partition, checked_loss(loss)),
      options_(checked(options)),
      grid_(std::make_unique<Grid>(comm, partition, options)) {
  const auto dp = static_cast<std::size_t>(local_dim());
  u_.assign(dp, 0.0);
  if (options_.diag_rescale) diag_.assign(dp, defaults::rescale_d1);  // D_1 = 0.1·I (SON footnote 6)
  x_.assign(dp, 0.0);
  v_.assign(dp, 0.0);
  reduce_.assign(4, 0.0);
}

FullNewton::~FullNewton() = default;

std::string FullNewton::name() const { return "full-on"; }

int FullNewton::grid_rows() const noexcept { return grid_->layout.nprow(); }
int FullNewton::grid_cols() const noexcept { return grid_->layout.npcol(); }
int FullNewton::block() const noexcept { return grid_->layout.block(); }

LearnerSpec FullNewton::spec() const {
  LearnerSpec s;
  s.algorithm = name();
  s.loss = loss().kind();
  s.alpha0 = options_.alpha;
  s.C = options_.C;
  s.sigma = options_.sigma;
  s.eta = options_.eta;
  s.eta_schedule = options_.eta_schedule;
  s.grid_rows = options_.grid_rows;
  s.diag_rescale = options_.diag_rescale;
  return s;
}

double FullNewton::eta(index_t t) const noexcept {
  const double tt = static_cast<double>(std::max<index_t>(t, 1));
  switch (options_.eta_schedule) {
    case EtaSchedule::constant: return options_.eta;
    case EtaSchedule::inv_t: return options_.eta / tt;
    case EtaSchedule::inv_sqrt_t: return options_.eta / std::sqrt(tt);
  }
  return options_.eta;
}

void FullNewton::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= u_.size(), "out.size() = " + std::to_string(out.size()) + ", needs " + std::to_string(u_.size()));
  std::copy(u_.begin(), u_.end(), out.begin());
  if (options_.diag_rescale)
    for (std::size_t j = 0; j < diag_.size(); ++j) out[j] /= std::sqrt(diag_[j]);  // w = D^{-1/2}u
}

void FullNewton::add_local_scores(const LocalRow& x, std::span<double> out) const {
  if (!detail::slice_ok(x, local_dim())) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, local_dim()));
  double s = 0.0;
  if (options_.diag_rescale)
    detail::for_each_nonzero(x, [&](std::size_t j, double v) { s += u_[j] * (v / std::sqrt(diag_[j])); });  // uᵀx̃
  else
    detail::for_each_nonzero(x, [&](std::size_t j, double v) { s += u_[j] * v; });
  out[0] += s;
}

// x_, v_, reduce_ and the grid's vectors are rewritten in each step before they are read.
void FullNewton::add_state_fields(StateFields& fields) {
  const int rank = comm().rank();
  fields.block("full.u", partition(), rank, 1, u_);
  if (options_.diag_rescale) fields.block("full.diag", partition(), rank, 1, diag_);
  fields.integer("full.projections", projections_);
  fields.real("full.curvature", curvature_);
  fields.staged_block(kStagedInverse, partition(), rank, grid_->layout.n());  // rows of A⁻¹
}

void FullNewton::before_state_save(StateFields& fields) {
  grid_->layout.stage(grid_->inverse, fields.field(kStagedInverse).values);
}

void FullNewton::after_state_load(StateFields& fields) {
  grid_->layout.unstage(fields.field(kStagedInverse).values, grid_->inverse);
}

StepResult FullNewton::do_step(const LocalRow& x, double label) {
  Grid& gr = *grid_;
  const int n = gr.layout.n();
  const bool ok = detail::slice_ok(x, local_dim());
  detail::densify(x, x_);  // zero on a malformed slice: every rank still takes part until the Allreduce
  // SON §5.2: the algorithm sees x̃ = D^{-1/2}x (x_ holds x̃ from here on).
  if (options_.diag_rescale)
    for (std::size_t j = 0; j < x_.size(); ++j) x_[j] /= std::sqrt(diag_[j]);
  gr.layout.to_grid(x_, gr.x);
  const double one = 1.0, zero = 0.0;
  pdgemv_("N", &n, &n, &one, gr.inverse.data(), &kOne, &kOne, gr.inverse.desc(), gr.x.data(), &kOne, &kOne,
          gr.x.desc(), &kOne, &zero, gr.v.data(), &kOne, &kOne, gr.v.desc(), &kOne);  // v = A_{t−1}⁻¹x
  gr.layout.to_features(gr.v, v_);
  // The step's one Allreduce: [uᵀx, xᵀv, ‖x‖², malformed slices] (docs/design.md §3).
  double ux = 0.0, xv = 0.0, xx = 0.0;
  for (std::size_t j = 0; j < x_.size(); ++j) {
    ux += u_[j] * x_[j];
    xv += x_[j] * v_[j];
    xx += x_[j] * x_[j];
  }
  reduce_[0] = ux;
  reduce_[1] = xv;
  reduce_[2] = xx;
  reduce_[3] = ok ? 0.0 : 1.0;
  comm().allreduce_sum(reduce_);
  if (reduce_[3] != 0.0) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, local_dim()));
  ux = reduce_[0];
  xx = reduce_[2];
  if (!std::isfinite(ux) || !std::isfinite(reduce_[1]) || !std::isfinite(xx))
    throw NumericError(name() + ": the score uᵀx is not finite");
  // q = xᵀA⁻¹x ≥ ‖x‖²/λ_max(A) ≥ ‖x‖²/(α + tr(A − αI)).
  const double q = std::max(reduce_[1], xx / (options_.alpha + curvature_));

  // SON Alg. 1 line 5 / Lemma 1: w = u − τ_C(uᵀx)/(xᵀA⁻¹x) · A⁻¹x, so that wᵀx = uᵀx − τ = ±C.
  const double tau = tau_c(ux, options_.C);
  double prediction = ux;
  if (tau != 0.0 && xx != 0.0) {
    const double gamma = tau / q;
    for (std::size_t j = 0; j < u_.size(); ++j) u_[j] -= gamma * v_[j];
    prediction = ux - tau;
    ++projections_;
  }
  const double score[1] = {prediction};
  const StepResult result{loss().value(score, label), loss().mistake(score, label)};
  double dl = 0.0;
  loss().derivative(score, label, std::span<double>(&dl, 1));
  // SON §5.2: D takes the diagonal of g gᵀ, g = ℓ'x in the original coordinates.
  if (options_.diag_rescale && dl != 0.0)
    detail::for_each_nonzero(x, [&](std::size_t j, double v) { diag_[j] += (dl * v) * (dl * v); });
  if (dl == 0.0 || xx == 0.0) return result;  // g_t = 0: u_{t+1} = w_t, A_t = A_{t−1}

  // Alg. 1 line 9 with A_t = A_{t−1} + c x xᵀ, c = (σ + η_t)ℓ'²: A_t⁻¹g = ℓ' v/(1 + c q).
  const double c = (options_.sigma + eta(steps() + 1)) * dl * dl;
  const double denominator = 1.0 + c * q;
  const double newton = dl / denominator;
  for (std::size_t j = 0; j < u_.size(); ++j) u_[j] -= newton * v_[j];
  if (c > 0.0) {
    // Sherman–Morrison: A_t⁻¹ = A_{t−1}⁻¹ − (s v)(s v)ᵀ, s = √(c/(1 + c q)).
    const double s = std::sqrt(c / denominator), minus_one = -1.0;
    if (gr.v.local_cols() > 0)
      for (int r = 0; r < gr.v.local_rows(); ++r) gr.v.data()[r] *= s;
    pdger_(&n, &n, &minus_one, gr.v.data(), &kOne, &kOne, gr.v.desc(), &kOne, gr.v.data(), &kOne, &kOne, gr.v.desc(),
           &kOne, gr.inverse.data(), &kOne, &kOne, gr.inverse.desc());
    curvature_ += c * xx;
  }
  return result;
}

}  // namespace adasketch
