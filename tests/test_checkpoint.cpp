// Checkpoints (checkpoint.hpp) of every learner make_learner knows, dense and sparse data, binary
// (or regression) and softmax losses: a learner trained N steps, checkpointed and trained M more
// ends with the same weights, bit for bit, as a fresh learner restored from the checkpoint and
// trained the same M steps (and a fresh learner trained only M steps does not: the state matters).
// Written at one rank count and read at another: equal to the uninterrupted run at the reader's
// count to round-off.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/version.hpp"
#include "checkpoint_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

TEST(Checkpoint, RestoredLearnerContinuesBitwise) {
  const std::string dir = shared_checkpoint_dir();
  const std::string path = dir + "/same.ckpt";
  constexpr index_t kMore = 10;
  int cases = 0;
  for (const LearnerCase& c : all_learner_cases()) {
    const StepData data = make_step_data(c.sparse);
    const LearnerSpec spec = checkpoint_spec(c.algorithm, c.softmax, c.rescale);
    for (const index_t n : {index_t{5}, index_t{13}}) {
      SCOPED_TRACE(label(c) + ", checkpoint after " + std::to_string(n) + " steps");
      auto a = make_learner(world(), kCheckpointDim, spec);
      run_steps(*a, data, 0, n);
      save_checkpoint(path, *a, run_after(*a, n));
      const std::vector<double> results_a = run_steps(*a, data, n, n + kMore);

      auto b = make_learner(world(), kCheckpointDim, spec);
      const CheckpointHeader header = load_checkpoint(path, *b);
      EXPECT_EQ(header.spec.algorithm, c.algorithm);
      EXPECT_EQ(header.run.state.examples, n);
      EXPECT_EQ(b->steps(), n);
      const std::vector<double> results_b = run_steps(*b, data, n, n + kMore);
      EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*a), local_weights(*b))))
          << "weights after the restored run differ";
      EXPECT_TRUE(bitwise_equal(results_a, results_b)) << "step losses differ";

      // Without the checkpoint the same M steps give other weights: the restored state mattered.
      auto fresh = make_learner(world(), kCheckpointDim, spec);
      run_steps(*fresh, data, n, n + kMore);
      EXPECT_FALSE(bitwise_equal(global_weights(*fresh), global_weights(*a)));
      ++cases;
    }
  }
  // 18 algorithms in every build, and ada-full, ada-full-da, full-on with ScaLAPACK (full-on also
  // rescaled): each binary and softmax, dense and sparse, checkpointed after 5 and after 13 steps.
  const int algorithms = ADASKETCH_WITH_EXACT_LEARNERS ? 18 + 3 + 1 : 18;
  EXPECT_EQ(cases, 2 * 2 * 2 * algorithms);
}

// Sub-communicator of the first `size` world ranks (MPI_COMM_NULL on the others).
struct SubComm {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit SubComm(int size) {
    check_mpi(MPI_Comm_split(MPI_COMM_WORLD, world().rank() < size ? 0 : MPI_UNDEFINED, world().rank(), &comm),
              "MPI_Comm_split");
  }
  ~SubComm() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

TEST(Checkpoint, ResumesAtAnotherRankCount) {
  const int P = world().size();
  if (P == 1) GTEST_SKIP() << "needs 2 or more ranks";
  const std::string path = shared_checkpoint_dir() + "/ranks.ckpt";
  constexpr index_t kSteps = 13, kMore = 10;
  std::vector<std::pair<int, int>> pairs = {{1, P}, {P, 1}};
  if (P == 3) pairs.insert(pairs.end(), {{2, 3}, {3, 2}});
  for (const auto& [writer, reader] : pairs)
    for (const LearnerCase& c : all_learner_cases()) {
      SCOPED_TRACE(label(c) + ": written at " + std::to_string(writer) + " ranks, read at " + std::to_string(reader));
      const StepData data = make_step_data(c.sparse);
      const LearnerSpec spec = checkpoint_spec(c.algorithm, c.softmax, c.rescale);
      std::vector<double> saved(static_cast<std::size_t>(kCheckpointDim * (c.softmax ? 3 : 1)));
      {
        SubComm sub(writer);
        if (sub.comm != MPI_COMM_NULL) {
          auto a = make_learner(Communicator(sub.comm), kCheckpointDim, spec);
          run_steps(*a, data, 0, kSteps);
          save_checkpoint(path, *a, run_after(*a, kSteps));
          saved = global_weights(*a);
        }
      }
      world().broadcast(saved, 0);  // world rank 0 is in every sub-communicator
      SubComm sub(reader);
      if (sub.comm == MPI_COMM_NULL) continue;
      const Communicator comm(sub.comm);
      auto b = make_learner(comm, kCheckpointDim, spec);
      load_checkpoint(path, *b);
      EXPECT_LE(relative_max_diff(global_weights(*b), saved), 1e-12) << "restored weights";
      run_steps(*b, data, kSteps, kSteps + kMore);
      auto reference = make_learner(comm, kCheckpointDim, spec);  // uninterrupted at the reader's rank count
      run_steps(*reference, data, 0, kSteps + kMore);
      EXPECT_LE(relative_max_diff(global_weights(*b), global_weights(*reference)), 1e-9);
    }
}

TEST(Checkpoint, RanksWithoutFeatures) {
  // d = 2: at 3 ranks the last one holds no feature (and no sketch column); ℓ = 2 for Oja (ℓ ≤ d).
  const std::string path = shared_checkpoint_dir() + "/tiny.ckpt";
  constexpr index_t kTiny = 2, kSteps = 9, kMore = 8;
  for (const LearnerCase& c : all_learner_cases()) {
    SCOPED_TRACE(label(c) + ", d = 2");
    const StepData data = make_step_data(c.sparse, kTiny);
    LearnerSpec spec = checkpoint_spec(c.algorithm, c.softmax, c.rescale);
    spec.ell = 2;
    auto a = make_learner(world(), kTiny, spec);
    run_steps(*a, data, 0, kSteps);
    save_checkpoint(path, *a, run_after(*a, kSteps));
    run_steps(*a, data, kSteps, kSteps + kMore);
    auto b = make_learner(world(), kTiny, spec);
    load_checkpoint(path, *b);
    run_steps(*b, data, kSteps, kSteps + kMore);
    EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*a), local_weights(*b))));
  }
}
