// Checkpoints of the exact learners (full_adagrad.hpp, full_newton.hpp), whose d×d matrix lives on a
// ScaLAPACK grid and is written by feature rows through the checkpoint hooks (a staged StateFields
// block): a learner trained N steps, checkpointed and trained M more ends with the same weights, bit for
// bit, as a fresh learner restored from the file and trained the same M steps (and a fresh learner
// trained only M steps does not); written at one rank count (and grid) and read at another, the run
// equals an uninterrupted run at the reader's rank count to round-off.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "adasketch/io/checkpoint.hpp"
#include "checkpoint_support.hpp"
#include "full_matrix_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

constexpr index_t kDim = 9, kSteps = 30, kSaveAt = 12;

std::vector<LearnerSpec> exact_specs() {
  std::vector<LearnerSpec> specs;
  for (const std::string algorithm : {"ada-full", "ada-full-da", "full-on"}) {
    LearnerSpec s;
    s.algorithm = algorithm;
    s.loss = algorithm == "full-on" ? LossKind::squared : LossKind::logistic;
    s.eta = 0.4;
    s.delta = 0.5;
    s.alpha0 = 0.7;
    s.sigma = 0.1;
    s.eta_schedule = EtaSchedule::inv_sqrt_t;
    specs.push_back(s);
    s.loss = LossKind::softmax;  // and with the softmax loss: a dK × dK matrix
    s.classes = 3;
    specs.push_back(s);
    if (algorithm == "full-on") {  // and rescaled (SON §5.2): D is a block field
      s.diag_rescale = true;
      specs.push_back(s);
      s.loss = LossKind::squared;
      specs.push_back(s);
    }
  }
  return specs;
}

std::string label(const LearnerSpec& s) {
  return s.algorithm + (s.loss == LossKind::softmax ? " softmax" : "") + (s.diag_rescale ? " rescaled" : "");
}

}  // namespace

TEST(FullMatrixResume, RestoredLearnerContinuesBitwise) {
  const std::string path = shared_checkpoint_dir() + "/full.ckpt";
  const FullData data = make_full_data(kSteps, kDim, 31, 0.7, 2.0);
  for (LearnerSpec spec : exact_specs()) {
    for (const int rows : grid_rows_cases(world().size())) {
      spec.grid_rows = rows;
      SCOPED_TRACE(label(spec) + ", grid rows " + std::to_string(rows));
      auto a = make_learner(world(), kDim, spec);
      run_examples(*a, data, 0, kSaveAt);
      save_checkpoint(path, *a);
      const auto losses_a = run_examples(*a, data, kSaveAt, kSteps);

      auto b = make_learner(world(), kDim, spec);
      const CheckpointHeader header = load_checkpoint(path, *b);
      EXPECT_EQ(header.spec.algorithm, spec.algorithm);
      EXPECT_EQ(b->steps(), kSaveAt);
      const auto losses_b = run_examples(*b, data, kSaveAt, kSteps);
      EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*a), local_weights(*b))))
          << "weights after the restored run differ";
      EXPECT_TRUE(bitwise_equal(losses_a, losses_b)) << "step losses differ";

      // Without the checkpoint (the matrix above all) the same steps give other weights.
      auto fresh = make_learner(world(), kDim, spec);
      run_examples(*fresh, data, kSaveAt, kSteps);
      EXPECT_FALSE(bitwise_equal(all_weights(*fresh), all_weights(*a)));
    }
  }
}

TEST(FullMatrixResume, ResumesAtAnotherRankCountAndGrid) {
  const int P = world().size();
  if (P == 1) GTEST_SKIP() << "needs 2 or more ranks";
  const std::string path = shared_checkpoint_dir() + "/full-ranks.ckpt";
  const FullData data = make_full_data(kSteps, kDim, 37, 0.7, 2.0);
  std::vector<std::pair<int, int>> pairs = {{1, P}, {P, 1}};
  if (P == 3) pairs.insert(pairs.end(), {{2, 3}, {3, 2}});
  for (const LearnerSpec& spec : exact_specs()) {
    for (const auto& [writer, reader] : pairs) {
      SCOPED_TRACE(label(spec) + ", written at " + std::to_string(writer) + " ranks, read at " + std::to_string(reader));
      {
        // The grids differ with the rank count (1×writer and 1×reader): the file holds G by feature rows.
        const SubComm sub(writer);
        if (sub.comm != MPI_COMM_NULL) {
          auto a = make_learner(Communicator(sub.comm), kDim, spec);
          run_examples(*a, data, 0, kSaveAt);
          save_checkpoint(path, *a);
        }
      }
      world().barrier();
      const SubComm sub(reader);
      if (sub.comm == MPI_COMM_NULL) continue;
      const Communicator comm(sub.comm);
      auto resumed = make_learner(comm, kDim, spec);
      load_checkpoint(path, *resumed);
      const auto losses_resumed = run_examples(*resumed, data, kSaveAt, kSteps);
      auto straight = make_learner(comm, kDim, spec);
      run_examples(*straight, data, 0, kSaveAt);
      const auto losses_straight = run_examples(*straight, data, kSaveAt, kSteps);
      EXPECT_LT(relative_max_diff(all_weights(*resumed), all_weights(*straight)), 1e-10);
      EXPECT_LT(relative_max_diff(losses_resumed, losses_straight), 1e-10);
    }
  }
}
