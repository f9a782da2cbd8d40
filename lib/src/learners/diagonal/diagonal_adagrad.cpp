#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"

#include <cmath>
#include <memory>
#include <string>

#include "../family_options.hpp"
#include "../learner_families.hpp"
#include "adasketch/error.hpp"

namespace adasketch {

DiagonalAdaGrad::DiagonalAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const DiagonalAdaGradOptions& options)
    : DiagonalAdaGrad(comm, BlockPartition(dim, comm.size()), loss, options) {}

DiagonalAdaGrad::DiagonalAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                                 const DiagonalAdaGradOptions& options)
    : Learner(comm, partition, loss, options.scale), options_(options), given_(options_) {
  ADASKETCH_REQUIRE(std::isfinite(options.eta) && options.eta > 0.0, "eta = " + number_text(options.eta));
  detail::check_hyperparameters(options, "DiagonalAdaGrad");  // δ normal: 1/δ of a subnormal overflows
  const auto entries = static_cast<std::size_t>(local_dim() * outputs());
  state_.assign(entries, 0.0);
  sum_square_.assign(entries, 0.0);
  if (lazy_shrink()) last_.assign(entries, 0.0);
  scores_.assign(static_cast<std::size_t>(outputs()), 0.0);
  dscores_.assign(static_cast<std::size_t>(outputs()), 0.0);
}

std::string DiagonalAdaGrad::name() const {
  return options_.update == DiagonalAdaGradOptions::Update::dual_averaging ? "ada-diag-da" : "ada-diag";
}

LearnerSpec DiagonalAdaGrad::spec() const { return detail::spec_from_options(*this, given_); }

void DiagonalAdaGrad::add_state_fields(StateFields& fields) {
  fields.block("diag.state", partition(), comm().rank(), outputs(), state_);
  fields.block("diag.sum_square", partition(), comm().rank(), outputs(), sum_square_);
  if (lazy_shrink()) fields.block("diag.last", partition(), comm().rank(), outputs(), last_);
}

void DiagonalAdaGrad::on_data_scale(const DataScale& scale) { options_ = detail::at_data_scale(given_, scale); }

std::unique_ptr<Learner> make_diagonal_adagrad(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  auto options = detail::options_from_spec<DiagonalAdaGradOptions>(spec);
  if (spec.algorithm == "ada-diag-da")
    options.update = DiagonalAdaGradOptions::Update::dual_averaging;
  else if (spec.algorithm != "ada-diag")
    return nullptr;
  return std::make_unique<DiagonalAdaGrad>(comm, partition, Loss(spec.loss, spec.classes), options);
}

}  // namespace adasketch
