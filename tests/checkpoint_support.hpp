#pragma once
// Shared by the checkpoint tests: a small data set, every learner make_learner knows with fixed
// hyperparameters, stepping a learner through examples, and comparing weights across ranks.
#include <string>
#include <vector>

#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/learner.hpp"
#include "test_support.hpp"

namespace adasketch::test {

inline constexpr index_t kCheckpointDim = 7, kCheckpointExamples = 30;

/// A directory shared by all ranks (rank 0's pid in the name), created by rank 0; removed when the
/// test binary's tests are done.
std::string shared_checkpoint_dir();
/// ℓ = 3, η = 0.3, δ = 0.5, α = 1, C = 1, σ = 0.1, η_t = η/√t, seed 7; logistic (AdaGrad) or squared
/// (SON, FULL-ON) loss on ±1 labels, or softmax with K = 3; diag_rescale as given.
LearnerSpec checkpoint_spec(const std::string& algorithm, bool softmax, bool rescale = false);

/// kCheckpointExamples examples of dimension `dim` ≥ 2 (about 40% nonzeros when sparse), labels ±1
/// and 0..2.
struct StepData {
  DenseMatrix x;
  std::vector<double> binary, classes;
  bool sparse;
};
StepData make_step_data(bool sparse, index_t dim = kCheckpointDim);
/// Steps examples [from, to) (each rank its slice, dense or sparse) and returns the step results
/// (loss, mistake) in order.
std::vector<double> run_steps(Learner& learner, const StepData& data, index_t from, index_t to);

std::vector<double> local_weights(const Learner& learner);
/// The whole W on every rank of the learner's communicator.
std::vector<double> global_weights(const Learner& learner);
bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b);
/// Whether `ok` holds on every rank of comm.
bool everywhere(const Communicator& comm, bool ok);
/// A CheckpointRun after `steps` steps of the first pass over the data.
CheckpointRun run_after(const Learner& learner, index_t steps);

/// Every learner make_learner knows with binary (or regression) data and with softmax, dense and sparse
/// (the exact learners in a build with ScaLAPACK, FULL-ON also with diagonal rescaling).
struct LearnerCase {
  std::string algorithm;
  bool softmax, sparse;
  bool rescale = false;
};
std::vector<LearnerCase> all_learner_cases();
std::string label(const LearnerCase& c);

}  // namespace adasketch::test
