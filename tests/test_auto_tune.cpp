// --auto (AutoTunedLearner): the race's winner, chosen by the documented rule from the candidates
// each run alone over the race's examples, is the learner from then on, bit for bit; the steps of the
// race report the leader's results; checkpoints during and after the race restore exactly; a
// candidate that diverges leaves the race. At 1, 2 and 3 ranks (every run here is on that count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/auto_tune/auto_tuned_learner.hpp"
#include "checkpoint_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

constexpr index_t kRace = 12;  // of kCheckpointExamples = 30

LearnerSpec auto_spec(const std::string& algorithm, bool softmax) {
  LearnerSpec s = checkpoint_spec(algorithm, softmax);
  s.auto_tune = true;
  s.auto_examples = kRace;
  return s;
}

// The race's result computed apart: each candidate alone over the first kRace examples, then the
// rule of auto_tuned_learner.hpp on the second half (fewest mistakes, then least loss, then the
// earlier candidate; regression: least loss, then the earlier).
struct Alone {
  std::vector<std::vector<double>> results;  // per candidate: (loss, mistake) per race example
  int winner = 0;
};

// The candidate ahead after the first `t` race examples by that rule, scored from example kRace/2.
int ahead_after(const Alone& a, const LearnerSpec& spec, index_t t) {
  const bool classification = Loss(spec.loss, spec.classes).is_classification();
  std::vector<double> mistakes, losses;
  for (const auto& r : a.results) {
    double m = 0.0, s = 0.0;
    for (index_t i = kRace / 2; i < t; ++i) {
      s += r[static_cast<std::size_t>(2 * i)];
      m += r[static_cast<std::size_t>(2 * i + 1)];
    }
    mistakes.push_back(m);
    losses.push_back(s);
  }
  int best = 0;
  for (int i = 1; i < static_cast<int>(a.results.size()); ++i) {
    const auto w = static_cast<std::size_t>(best), c = static_cast<std::size_t>(i);
    if (classification && mistakes[c] != mistakes[w] ? mistakes[c] < mistakes[w] : losses[c] < losses[w]) best = i;
  }
  return best;
}

Alone race_alone(const LearnerSpec& spec, const StepData& data) {
  Alone a;
  for (const LearnerSpec& c : auto_candidates(spec)) {
    EXPECT_FALSE(c.auto_tune);
    auto l = make_learner(world(), kCheckpointDim, c);
    a.results.push_back(run_steps(*l, data, 0, kRace));
  }
  a.winner = ahead_after(a, spec, kRace);
  return a;
}

const std::vector<std::pair<std::string, bool>> kCases = {
    {"ada-diag", false}, {"ada-diag", true}, {"ada-fd", false},     {"fast-ada-fd", true},
    {"fd-son", false},   {"rfd-son", true},  {"oja-son", false},    {"comp-adagrad", false}};

}  // namespace

TEST(AutoTune, TheWinnerIsTheCandidateRunAloneBitwise) {
  for (const auto& [algorithm, softmax] : kCases)
    for (const bool sparse : {false, true}) {
      SCOPED_TRACE(algorithm + (softmax ? " softmax" : "") + (sparse ? " sparse" : " dense"));
      const StepData data = make_step_data(sparse);
      const LearnerSpec spec = auto_spec(algorithm, softmax);
      const Alone alone = race_alone(spec, data);

      auto learner = make_learner(world(), kCheckpointDim, spec);
      auto* tuned = dynamic_cast<AutoTunedLearner*>(learner.get());
      ASSERT_NE(tuned, nullptr);
      EXPECT_EQ(learner->spec().auto_tune, true);
      EXPECT_EQ(learner->spec().eta, spec.eta);
      const std::vector<double> results = run_steps(*learner, data, 0, kCheckpointExamples);
      ASSERT_TRUE(tuned->decided());
      EXPECT_EQ(tuned->leader(), alone.winner);

      // The winner alone over every example: the same weights and, after the race, the same steps.
      auto winner = make_learner(world(), kCheckpointDim, auto_candidates(spec)[static_cast<std::size_t>(alone.winner)]);
      const std::vector<double> winner_results = run_steps(*winner, data, 0, kCheckpointExamples);
      EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*learner), local_weights(*winner))));
      EXPECT_TRUE(bitwise_equal(std::vector<double>(results.begin() + 2 * kRace, results.end()),
                                std::vector<double>(winner_results.begin() + 2 * kRace, winner_results.end())));
      // Each race step reports the result of the candidate ahead on the examples before it.
      for (index_t t = 0; t < kRace; ++t) {
        const int lead = ahead_after(alone, spec, t);
        const auto& r = alone.results[static_cast<std::size_t>(lead)];
        EXPECT_TRUE(bitwise_equal({r[2 * t], r[2 * t + 1]}, {results[2 * t], results[2 * t + 1]})) << "race step " << t;
      }
    }
}

TEST(AutoTune, CheckpointsDuringAndAfterTheRaceRestoreBitwise) {
  const std::string path = shared_checkpoint_dir() + "/auto.ckpt";
  for (const auto& [algorithm, softmax] : kCases) {
    const StepData data = make_step_data(true);
    const LearnerSpec spec = auto_spec(algorithm, softmax);
    auto whole = make_learner(world(), kCheckpointDim, spec);
    run_steps(*whole, data, 0, kCheckpointExamples);
    for (const index_t n : {index_t{5}, kRace, index_t{20}}) {
      SCOPED_TRACE(algorithm + (softmax ? " softmax" : "") + ", checkpoint after " + std::to_string(n));
      auto a = make_learner(world(), kCheckpointDim, spec);
      run_steps(*a, data, 0, n);
      save_checkpoint(path, *a, run_after(*a, n));
      // Into a new learner, and into one past the race (whose beaten candidates come back).
      auto fresh = make_learner(world(), kCheckpointDim, spec);
      auto past = make_learner(world(), kCheckpointDim, spec);
      run_steps(*past, data, 0, kCheckpointExamples);
      for (Learner* b : {fresh.get(), past.get()}) {
        load_checkpoint(path, *b);
        EXPECT_EQ(b->steps(), n);
        run_steps(*b, data, n, kCheckpointExamples);
        EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*whole), local_weights(*b))));
        const auto& c = dynamic_cast<AutoTunedLearner&>(*b).candidates();
        const auto& w = dynamic_cast<AutoTunedLearner&>(*whole).candidates();
        for (std::size_t i = 0; i < c.size(); ++i) {
          EXPECT_EQ(c[i].mistakes, w[i].mistakes);
          EXPECT_EQ(c[i].loss, w[i].loss);
        }
      }
    }
  }
}

TEST(AutoTune, ADivergedCandidateLeavesTheRace) {
  // ada-diag with the squared loss and η = 1e153: the candidates with the larger η overflow the loss
  // within the race, the smaller ones do not. Which ones fail is found by running each alone.
  LearnerSpec spec = checkpoint_spec("ada-diag", false);
  spec.loss = LossKind::squared;
  spec.eta = 1e153;
  spec.auto_tune = true;
  spec.auto_examples = kRace;
  const StepData data = make_step_data(false);
  std::vector<bool> fails;
  for (const LearnerSpec& c : auto_candidates(spec)) {
    auto alone = make_learner(world(), kCheckpointDim, c);
    bool failed = false;
    try {
      run_steps(*alone, data, 0, kRace);
    } catch (const NumericError&) {
      failed = true;
    }
    fails.push_back(failed);
  }
  ASSERT_NE(std::count(fails.begin(), fails.end(), true), 0) << "no candidate fails: the test needs a larger η";
  ASSERT_NE(std::count(fails.begin(), fails.end(), false), 0) << "every candidate fails: the test needs a smaller η";

  auto learner = make_learner(world(), kCheckpointDim, spec);
  run_steps(*learner, data, 0, kCheckpointExamples);
  const auto& tuned = dynamic_cast<const AutoTunedLearner&>(*learner);
  for (std::size_t i = 0; i < fails.size(); ++i) EXPECT_EQ(tuned.candidates()[i].failed, fails[i]) << "candidate " << i;
  EXPECT_FALSE(fails[static_cast<std::size_t>(tuned.leader())]);
  for (const double w : local_weights(*learner)) EXPECT_TRUE(std::isfinite(w));

  // When every candidate fails, the learner says so.
  spec.eta = 1e300;
  auto hopeless = make_learner(world(), kCheckpointDim, spec);
  EXPECT_THROW(run_steps(*hopeless, data, 0, kRace), NumericError);
}

TEST(AutoTune, RefusesAnEmptyRace) {
  LearnerSpec spec = auto_spec("ada-diag", false);
  spec.auto_examples = 0;
  EXPECT_THROW(make_learner(world(), kCheckpointDim, spec), InvalidArgument);
}
