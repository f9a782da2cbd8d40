#include "adasketch/learners/comp_adagrad/comp_adagrad.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "../../linalg/hadamard.hpp"
#include "../family_options.hpp"
#include "../learner_families.hpp"
#include "adasketch/error.hpp"
#include "srht_lasso.hpp"

namespace adasketch {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidArgument("CompAdaGrad: " + what);
}

void validate(const CompAdaGradOptions& o) {
  require(std::isfinite(o.eta) && o.eta > 0.0, "eta must be positive and finite, got " + number_text(o.eta));
  // The table's ranges; a subnormal δ is refused there: 1/δ overflows (the complement's B = (τD + ηλ₂)⁻¹
  // with G⊥ = 0).
  detail::check_hyperparameters(o, "CompAdaGrad");
  require(o.tau > 0.0 || o.lambda2 > 0.0,
          "tau = 0 needs lambda2 > 0: without either the complement step min ⟨P⊥g, x⟩ is unbounded");
  require(o.rank_tolerance >= 0.0 && o.rank_tolerance < 1.0,
          "rank_tolerance must be in [0, 1), got " + number_text(o.rank_tolerance));
  require(o.lasso_tolerance > 0.0 && o.lasso_tolerance < 1.0,
          "lasso_tolerance must be in (0, 1), got " + number_text(o.lasso_tolerance));
  require(o.lasso_max_iterations >= 1, "lasso_max_iterations must be >= 1, got " + number_text(o.lasso_max_iterations));
}

// The ℓ1 solver's step limit: lasso_max_iterations plus 4n, since its feature-sign steps add one
// coordinate at a time (srht_lasso.hpp).
int lasso_step_limit(int max_iterations, index_t n) {
  const index_t limit = static_cast<index_t>(max_iterations) + 4 * n;
  return static_cast<int>(std::min<index_t>(limit, std::numeric_limits<int>::max()));
}

}  // namespace

CompAdaGrad::CompAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const CompAdaGradOptions& options)
    : CompAdaGrad(comm, BlockPartition(dim, comm.size()), loss, options) {}

CompAdaGrad::CompAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                         const CompAdaGradOptions& options)
    : Learner(comm, partition, loss, options.scale), options_(options), given_(options_), root_delta_(options_.delta), classes_(loss.outputs()) {
  validate(options);
  const index_t N = partition.dim() * classes_;
  n_ = detail::next_power_of_two(N);
  require(options.ell >= 0 && options.ell <= n_, "k (ell) must be in [0, n] with n = " + number_text(n_) +
                                                 " (d·K = " + number_text(N) + " padded to a power of two), got " +
                                                 number_text(options.ell));
  k_ = options.ell;
  real_ = local_dim() * classes_;
  const int rank = comm.rank();
  if (n_ > N) {
    padding_.emplace(n_ - N, comm.size());
    pad_ = padding_->size(rank);
  }
  const detail::CoordinateRange ranges[] = {{partition.begin(rank) * classes_, real_},
                                            {padding_ ? N + padding_->begin(rank) : N, pad_}};
  srht_ = std::make_unique<detail::Srht>(n_, k_, options.seed, ranges);
  if (options.lambda1 > 0.0)
    lasso_ = std::make_unique<detail::SrhtLasso>(this->comm(), *srht_, options.lasso_tolerance,
                                                      lasso_step_limit(options.lasso_max_iterations, n_));
  if (k_ >= 1) eigen_.emplace(static_cast<int>(k_));

  const std::size_t L = sz(real_ + pad_), k = sz(k_), K = sz(classes_);
  coef_.assign(k, 0.0);
  block_.assign(k * k, 0.0);
  perp_.assign(L, 0.0);
  perp_sq_.assign(L, 0.0);
  reduce_.assign(k * K + K, 0.0);
  second_.assign(k * (k + 1) / 2 + k, 0.0);
  scores_.assign(K, 0.0);
  dscores_.assign(K, 0.0);
  for (auto* v : {&pg_, &kappa_, &rotated_, &small_}) v->assign(k, 0.0);
  system_.assign(k * k, 0.0);
  full_block_.assign(k * k, 0.0);
  for (auto* v : {&perp_grad_, &diag_, &local_[0], &local_[1], &local_[2]}) v->assign(L, 0.0);
  if (dual_averaging()) {
    sum_proj_.assign(k, 0.0);
    sum_perp_.assign(L, 0.0);
  }
  class_indices_.assign(sz(local_dim()), 0);
  products_.assign(k * K, 0.0);
  if (K > 1) class_row_.assign(sz(real_), 0.0);
}

CompAdaGrad::~CompAdaGrad() = default;

std::string CompAdaGrad::name() const { return dual_averaging() ? "comp-adagrad-da" : "comp-adagrad"; }

LearnerSpec CompAdaGrad::spec() const {
  return detail::spec_from_options(*this, given_);
}

void CompAdaGrad::on_data_scale(const DataScale& scale) {
  options_ = detail::at_data_scale(given_, scale);
  root_delta_ = given_.delta * scale.rms() * scale.rms();  // inside the root, δ adds to squared gradients
}

// The run state: c, Π̃GΠ̃ᵀ, x⊥ and diag(G⊥) (and Π̃ḡ, P⊥ḡ). Everything else is rewritten in each step before it is read.
void CompAdaGrad::add_state_fields(StateFields& fields) {
  if (k_ > 0) {
    fields.array("comp.coef", coef_);
    fields.array("comp.block", block_);
  }
  const int rank = comm().rank();
  fields.block("comp.perp", partition(), rank, classes_, std::span<double>(perp_).first(sz(real_)));
  fields.block("comp.perp_sq", partition(), rank, classes_, std::span<double>(perp_sq_).first(sz(real_)));
  if (padding_) {
    fields.block("comp.pad", *padding_, rank, 1, std::span<double>(perp_).subspan(sz(real_), sz(pad_)));
    fields.block("comp.pad_sq", *padding_, rank, 1, std::span<double>(perp_sq_).subspan(sz(real_), sz(pad_)));
  }
  if (!dual_averaging()) return;
  if (k_ > 0) fields.array("comp.sum_proj", sum_proj_);
  fields.block("comp.sum_perp", partition(), rank, classes_, std::span<double>(sum_perp_).first(sz(real_)));
  if (padding_) fields.block("comp.pad_sum", *padding_, rank, 1, std::span<double>(sum_perp_).subspan(sz(real_), sz(pad_)));
}

std::unique_ptr<Learner> make_comp_adagrad(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  if (spec.algorithm != "comp-adagrad" && spec.algorithm != "comp-adagrad-da") return nullptr;
  auto o = detail::options_from_spec<CompAdaGradOptions>(spec);
  if (spec.algorithm == "comp-adagrad-da") o.update = CompAdaGradOptions::Update::dual_averaging;
  return std::make_unique<CompAdaGrad>(comm, partition, Loss(spec.loss, spec.classes), o);
}

}  // namespace adasketch
