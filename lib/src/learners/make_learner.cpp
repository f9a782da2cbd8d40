#include <memory>

#include "adasketch/error.hpp"
#include "adasketch/learners/auto_tune/auto_tuned_learner.hpp"
#include "adasketch/learners/learner.hpp"
#include "learner_families.hpp"

namespace adasketch {

std::unique_ptr<Learner> make_learner(const Communicator& comm, index_t dim, const LearnerSpec& spec) {
  return make_learner(comm, BlockPartition(dim, comm.size()), spec);
}

std::unique_ptr<Learner> make_learner(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  if (spec.auto_tune) {  // its candidates check their own divergence (a diverging one leaves the race)
    auto learner = std::make_unique<AutoTunedLearner>(comm, partition, spec);
    learner->set_divergence(0.0);
    return learner;
  }
  for (auto* family :
       {&make_diagonal_adagrad, &make_sketched_adagrad, &make_sketched_newton, &make_comp_adagrad, &make_full_matrix})
    if (auto learner = family(comm, partition, spec)) {
      learner->set_divergence(spec.divergence);  // read by the base, for every learner
      return learner;
    }
  throw InvalidArgument("unknown algorithm '" + spec.algorithm +
                        "' (expected ada-diag, ada-diag-da, ada-fd, ada-fd-da, fast-ada-fd, fast-ada-fd-da, ada-gp, ada-gp-da, "
                        "ada-dp, ada-dp-da, fd-son, fast-fd-son, "
                        "rp-son, oja-son, rfd-son, fast-rfd-son, comp-adagrad, comp-adagrad-da, ada-full, ada-full-da or full-on)");
}

}  // namespace adasketch
