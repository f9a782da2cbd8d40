#include "adasketch/learners/diagonal_adagrad.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "adasketch/error.hpp"
#include "learner_families.hpp"
#include "nonzeros.hpp"

namespace adasketch {

DiagonalAdaGrad::DiagonalAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const DiagonalAdaGradOptions& options)
    : DiagonalAdaGrad(comm, BlockPartition(dim, comm.size()), loss, options) {}

DiagonalAdaGrad::DiagonalAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                                 const DiagonalAdaGradOptions& options)
    : Learner(comm, partition, loss), options_(options) {
  ADASKETCH_REQUIRE(std::isfinite(options.eta) && options.eta > 0.0, "eta = " + std::to_string(options.eta));
  ADASKETCH_REQUIRE(std::isfinite(options.delta) && options.delta >= std::numeric_limits<double>::min(),
                    "delta = " + std::to_string(options.delta) + " (needs a positive normal number: 1/δ of a subnormal overflows)");
  const auto entries = static_cast<std::size_t>(local_dim() * outputs());
  state_.assign(entries, 0.0);
  sum_square_.assign(entries, 0.0);
  scores_.assign(static_cast<std::size_t>(outputs()), 0.0);
  dscores_.assign(static_cast<std::size_t>(outputs()), 0.0);
}

std::string DiagonalAdaGrad::name() const {
  return options_.form == DiagonalAdaGradOptions::Form::dual_averaging ? "ada-diag-da" : "ada-diag";
}

double DiagonalAdaGrad::weight(std::size_t entry) const noexcept {
  if (options_.form == DiagonalAdaGradOptions::Form::mirror_descent) return state_[entry];
  // Dual averaging, ADA-FD paper eq. (1) with φ = 0: w = −η H⁻¹ Σ_s g_s.
  return -options_.eta * state_[entry] / (options_.delta + std::sqrt(sum_square_[entry]));
}

void DiagonalAdaGrad::update(std::size_t entry, double g) noexcept {
  const double G = sum_square_[entry] += g * g;
  if (options_.form == DiagonalAdaGradOptions::Form::mirror_descent)
    state_[entry] -= options_.eta * g / (options_.delta + std::sqrt(G));  // eq. (2), φ = 0: w − η H_t⁻¹ g_t
  else
    state_[entry] += g;
}

void DiagonalAdaGrad::add_local_scores(const LocalRow& x, std::span<double> out) const {
  const std::size_t K = out.size();
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k) out[k] += v * weight(j * K + k);
  });
}

StepResult DiagonalAdaGrad::do_step(const LocalRow& x, double label) {
  std::fill(scores_.begin(), scores_.end(), 0.0);
  detail::prefetch_entries(x, state_.data(), scores_.size());
  detail::prefetch_entries(x, sum_square_.data(), scores_.size());
  add_local_scores(x, scores_);
  comm().allreduce_sum(scores_);  // the step's one Allreduce: K numbers
  for (double s : scores_)
    if (!std::isfinite(s)) throw NumericError(name() + ": the score wᵀx is not finite");
  const StepResult result{loss().value(scores_, label), loss().mistake(scores_, label)};
  loss().derivative(scores_, label, dscores_);
  if (std::all_of(dscores_.begin(), dscores_.end(), [](double g) { return g == 0.0; })) return result;
  const std::size_t K = dscores_.size();
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k) update(j * K + k, v * dscores_[k]);  // g_jk = x_j ∂ℓ/∂p_k
  });
  return result;
}

void DiagonalAdaGrad::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= state_.size(), "out.size() = " + std::to_string(out.size()) + ", needs " +
                                                     std::to_string(state_.size()));
  for (std::size_t e = 0; e < state_.size(); ++e) out[e] = weight(e);
}

LearnerSpec DiagonalAdaGrad::spec() const {
  LearnerSpec s;
  s.algorithm = name();
  s.loss = loss().kind();
  if (loss().kind() == LossKind::softmax) s.classes = outputs();
  s.eta = options_.eta;
  s.delta = options_.delta;
  return s;
}

void DiagonalAdaGrad::add_state_fields(StateFields& fields) {
  fields.block("diag.state", partition(), comm().rank(), outputs(), state_);
  fields.block("diag.sum_square", partition(), comm().rank(), outputs(), sum_square_);
}

std::unique_ptr<Learner> make_diagonal_adagrad(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  DiagonalAdaGradOptions options{.eta = spec.eta, .delta = spec.delta};
  if (spec.algorithm == "ada-diag-da")
    options.form = DiagonalAdaGradOptions::Form::dual_averaging;
  else if (spec.algorithm != "ada-diag")
    return nullptr;
  return std::make_unique<DiagonalAdaGrad>(comm, partition, Loss(spec.loss, spec.classes), options);
}

}  // namespace adasketch
