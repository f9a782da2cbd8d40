#include "adasketch/learners/exact/full_newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../box_projection.hpp"
#include "../family_options.hpp"
#include "adasketch/error.hpp"
#include "full_newton_grid.hpp"

namespace adasketch {

namespace {

constexpr char kStagedInverse[] = "full.inverse";

const FullNewtonOptions& checked(const FullNewtonOptions& o) {
  detail::check_hyperparameters(o, "FullNewton");
  ADASKETCH_REQUIRE(o.alpha0 != 0.0, "alpha = 0 (FULL-ON keeps A⁻¹ by rank-one updates; the pseudo-inverse of SON App. D "
                                    "needs a rank decision per step that a kept inverse cannot make exactly: use fd-son "
                                    "with alpha = 0 and ell ≥ d·K + 1, which is that algorithm; full_newton.hpp)");
  ADASKETCH_REQUIRE(std::isfinite(o.alpha0) && o.alpha0 >= std::numeric_limits<double>::min(),
                    "alpha = " + number_text(o.alpha0) + " (needs a positive normal number: A_0 = αI is inverted)");
  return o;
}

}  // namespace

FullNewton::FullNewton(const Communicator& comm, index_t dim, const Loss& loss, const FullNewtonOptions& options)
    : FullNewton(comm, BlockPartition(dim, comm.size()), loss, options) {}

FullNewton::FullNewton(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                       const FullNewtonOptions& options)
    : Learner(comm, partition, loss, options.scale),
      options_(checked(options)), given_(options_),
      grid_(std::make_unique<Grid>(comm, partition, loss.outputs(), options)),
      box_(std::make_unique<detail::BoxProjection>(loss.outputs())) {
  const auto dp = sz(local_dim()), K = sz(outputs());
  u_.assign(dp * K, 0.0);
  if (options_.diag_rescale) diag_.assign(dp * K, options_.rescale_d1);  // D_1 = rescale_d1·I (SON footnote 6: 0.1)
  dense_.assign(dp, 0.0);
  x_.assign(dp * K * K, 0.0);
  v_.assign(dp * K * K, 0.0);
  if (K > 1) g_.assign(dp * K, 0.0);
  reduce_.assign(K * (K + 5) / 2 + 1, 0.0);
  m_.assign(K * K, 0.0);
  for (auto* b : {&z_, &norms_, &lambda_, &dscores_}) b->assign(K, 0.0);
}

FullNewton::~FullNewton() = default;

std::string FullNewton::name() const { return "full-on"; }

int FullNewton::grid_rows() const noexcept { return grid_->layout.nprow(); }
int FullNewton::grid_cols() const noexcept { return grid_->layout.npcol(); }
int FullNewton::block() const noexcept { return grid_->layout.block(); }

LearnerSpec FullNewton::spec() const {
  return detail::spec_from_options(*this, given_);
}

void FullNewton::on_data_scale(const DataScale& scale) {
  const double before = options_.alpha0;
  options_ = detail::at_data_scale(given_, scale);
  if (options_.diag_rescale) std::fill(diag_.begin(), diag_.end(), options_.rescale_d1);  // D_1 (zero gradients so far)
  grid_->inverse.add_to_diagonal(-1.0 / before);  // A⁻¹ = I/α still (zero examples leave it): exactly 0
  grid_->inverse.add_to_diagonal(1.0 / options_.alpha0);
}

double FullNewton::eta(index_t t) const noexcept {
  return scheduled_eta(options_.eta_schedule, options_.eta, t);
}

// dense_, x_, v_, g_, reduce_, the replicated step vectors and the grid's vectors are rewritten in each
// step before they are read.
void FullNewton::add_state_fields(StateFields& fields) {
  const int rank = comm().rank();
  const index_t K = outputs();
  fields.block("full.u", partition(), rank, K, u_);
  if (options_.diag_rescale) fields.block("full.diag", partition(), rank, K, diag_);
  fields.integer("full.projections", projections_);
  fields.real("full.curvature", curvature_);
  fields.staged_block(kStagedInverse, partition(), rank, K * grid_->layout.n());  // rows of A⁻¹, feature-major
}

void FullNewton::before_state_save(StateFields& fields) {
  grid_->layout.stage(grid_->inverse, fields.field(kStagedInverse).values);
}

void FullNewton::after_state_load(StateFields& fields) {
  grid_->layout.unstage(fields.field(kStagedInverse).values, grid_->inverse);
}

}  // namespace adasketch
