#include "adasketch/learners/exact/full_adagrad.hpp"

#include <cmath>
#include <string>

#include "../family_options.hpp"
#include "adasketch/error.hpp"
#include "full_adagrad_grid.hpp"

namespace adasketch {

namespace {

constexpr char kStagedG[] = "full.G";

const FullAdaGradOptions& checked(const FullAdaGradOptions& o) {
  ADASKETCH_REQUIRE(std::isfinite(o.eta) && o.eta > 0.0, "eta = " + number_text(o.eta));
  detail::check_hyperparameters(o, "FullAdaGrad");  // δ normal: 1/δ of a subnormal overflows
  ADASKETCH_REQUIRE(o.rank_tolerance >= 0.0 && o.rank_tolerance < 1.0, "rank_tolerance = " + number_text(o.rank_tolerance));
  return o;
}

}  // namespace

FullAdaGrad::FullAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const FullAdaGradOptions& options)
    : FullAdaGrad(comm, BlockPartition(dim, comm.size()), loss, options) {}

FullAdaGrad::FullAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                         const FullAdaGradOptions& options)
    : Learner(comm, partition, loss, options.scale),
      options_(checked(options)), given_(options_),
      grid_(std::make_unique<Grid>(comm, partition, loss.outputs(), options, dual_averaging())) {
  const std::size_t entries = sz(local_dim() * outputs());
  w_.assign(entries, 0.0);
  g_.assign(dual_averaging() ? 2 * entries : entries, 0.0);
  step_.assign(entries, 0.0);
  reduce_.assign(sz(outputs()) + 2, 0.0);
  dscores_.assign(sz(outputs()), 0.0);
}

FullAdaGrad::~FullAdaGrad() = default;

std::string FullAdaGrad::name() const { return dual_averaging() ? "ada-full-da" : "ada-full"; }

int FullAdaGrad::grid_rows() const noexcept { return grid_->layout.nprow(); }
int FullAdaGrad::grid_cols() const noexcept { return grid_->layout.npcol(); }
int FullAdaGrad::block() const noexcept { return grid_->layout.block(); }

LearnerSpec FullAdaGrad::spec() const {
  return detail::spec_from_options(*this, given_);
}

void FullAdaGrad::on_data_scale(const DataScale& scale) { options_ = detail::at_data_scale(given_, scale); }

// step_, reduce_ and dscores_ are rewritten in each step before they are read, and so is g_'s first
// column; Σg (dual averaging) is state.
void FullAdaGrad::add_state_fields(StateFields& fields) {
  const int rank = comm().rank();
  const index_t K = outputs();
  fields.block("full.w", partition(), rank, K, w_);
  if (dual_averaging()) fields.block("full.gsum", partition(), rank, K, std::span<double>(g_).subspan(w_.size()));
  fields.real("full.trace", trace_);
  fields.staged_block(kStagedG, partition(), rank, K * grid_->layout.n());  // rows of G, feature-major
}

void FullAdaGrad::before_state_save(StateFields& fields) { grid_->layout.stage(grid_->g, fields.field(kStagedG).values); }

void FullAdaGrad::after_state_load(StateFields& fields) { grid_->layout.unstage(fields.field(kStagedG).values, grid_->g); }

}  // namespace adasketch
