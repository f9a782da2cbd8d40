#pragma once
// adasketch-bench-learners --compare-forms N: a learner's sparse form against its dense form on the
// same N examples (SketchForm): how far apart their online results and final weights end up.
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/learners/learner.hpp"
#include "bench_examples.hpp"

namespace adasketch::driver {

struct FormComparison {
  index_t steps = 0;
  index_t mistakes_sparse = 0, mistakes_dense = 0;
  double max_loss_difference = 0.0;  ///< max over steps of |ℓ_sparse − ℓ_dense| / max(1, |ℓ_dense|)
  double weight_difference = 0.0;    ///< max |w_sparse − w_dense| / max |w_dense| at the end
  index_t sparse_rebases = 0;        ///< the sparse sketch's rebases (FD and Oja), 0 for the others
  double seconds_sparse = 0.0, seconds_dense = 0.0;  ///< time in step(), slowest rank
};

/// Collective. Steps both forms of `spec` (its form is overridden) on examples 0..steps−1.
FormComparison compare_forms(const Communicator& comm, LearnerSpec spec, BenchExamples& examples, index_t steps);

}  // namespace adasketch::driver
