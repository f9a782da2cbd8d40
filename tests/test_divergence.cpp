// The divergence check of Learner::step (docs/design.md §2, "Divergence"), at any rank count:
//   - ADA-FD with the squared loss at its default η on a small low-rank regression set (d = 17,
//     ℓ = 5) grows its loss without bound but finite: stopped at the first window's end, step 1000,
//     with a LossDivergenceError (a NumericError) on every rank, whose message names the learner, the
//     steps, the measured losses and eta; the same run with the check off (divergence = 0) completes,
//     and its own sums are the message's numbers;
//   - FD-SON with α₀ = 0.01 on ill-conditioned classification: the online loss stays near log 2
//     (the projection |wᵀx| ≤ C bounds it) while the model's own scores blow up: stopped by the
//     sampled model loss, naming alpha0;
//   - runs at the defaults on the classification set (every family) are not stopped, and their
//     weights are bitwise those of the same runs without the check;
//   - a run resumed from a checkpoint in the middle of the window stops at the same step with the
//     same message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adasketch/data/synthetic.hpp"
#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/learner.hpp"
#include "test_support.hpp"

namespace adasketch {
namespace {

using test::world;

constexpr index_t kDim = 17;
constexpr index_t kWindow = defaults::divergence_window, kSample = defaults::divergence_sample;
const double kLimit = LearnerSpec{}.divergence;  // the table's default

std::unique_ptr<ExampleSource> regression(index_t n) {
  return make_low_rank_regression(world(), {.dim = kDim, .examples = n});
}
std::unique_ptr<ExampleSource> classification(index_t n) {
  return make_ill_conditioned_classification(world(), {.dim = kDim, .examples = n});
}

LearnerSpec reproducer() {  // the earlier session's silent divergence: ADA-FD, squared loss, default η
  LearnerSpec spec;
  spec.algorithm = "ada-fd";
  spec.loss = LossKind::squared;
  spec.ell = 5;
  spec.scale = ScaleRule::none;  // the papers' absolute η, as that session ran it
  return spec;
}

LearnerSpec son_reproducer() {  // FD-SON with a small α₀: long Newton steps, projected predictions
  LearnerSpec spec;
  spec.algorithm = "fd-son";
  spec.alpha0 = 0.01;
  spec.scale = ScaleRule::none;  // an absolute α₀ that small
  return spec;
}

// What a run saw: the step that threw LossDivergenceError (0: none) and its message, and the sums
// the check keeps, computed here from the step results (online) and from predict() before each
// sampled step (the model's own scores), over the first window.
struct Observed {
  index_t stopped_at = 0;
  std::string message;
  index_t steps = 0;
  double loss = 0, zero = 0, model = 0, model_zero = 0;
};

// Steps `learner` through `source` from its current position (after `skip` examples).
Observed run(Learner& learner, ExampleSource& source, index_t skip = 0) {
  Observed r;
  Example e;
  source.rewind();
  source.skip(skip);
  std::vector<double> scores(static_cast<std::size_t>(learner.outputs())), zeros(scores.size(), 0.0);
  while (source.next(e)) {
    const index_t t = learner.steps() + 1;
    if (t <= kWindow && t % kSample == 0) {
      learner.predict(e.row(), scores);
      r.model += learner.loss().value(scores, e.label);
      r.model_zero += learner.loss().value(zeros, e.label);
    }
    try {
      const StepResult s = learner.step(e.row(), e.label);
      if (t <= kWindow) r.loss += s.loss, r.zero += learner.loss().value(zeros, e.label);
    } catch (const LossDivergenceError& error) {
      r.stopped_at = error.example();
      r.message = error.what();
      break;
    }
    r.steps = learner.steps();
  }
  return r;
}

// The number after `before` in `text` (NaN when absent).
double number_after(const std::string& text, const std::string& before) {
  const auto at = text.find(before);
  return at == std::string::npos ? std::nan("") : std::strtod(text.c_str() + at + before.size(), nullptr);
}

// Every rank holds the same text.
bool same_on_every_rank(const std::string& text) {
  const double h = static_cast<double>(std::hash<std::string>{}(text) % (1u << 30));
  return world().allreduce_max(h) == h && -world().allreduce_max(-h) == h;
}

// The message prints 4 significant digits (%.4g): relative error at most 5e-4 of the exact ratio.
constexpr double kPrinted = 5e-4;

TEST(Divergence, AdaFdOnSmallRegressionStopsAtTheFirstWindow) {
  LearnerSpec off = reproducer();
  off.divergence = 0.0;
  auto source = regression(2 * kWindow);
  const auto unchecked = make_learner(world(), kDim, off);
  const Observed control = run(*unchecked, *source);
  ASSERT_EQ(control.stopped_at, 0);
  ASSERT_EQ(control.steps, 2 * kWindow);  // finite throughout: the non-finite check never fires
  const double ratio = control.loss / control.zero;
  ASSERT_GT(ratio, kLimit) << "the reproducer no longer diverges";

  const auto learner = make_learner(world(), kDim, reproducer());
  const Observed checked = run(*learner, *source);
  EXPECT_EQ(checked.stopped_at, kWindow);  // at every rank count
  EXPECT_EQ(learner->steps(), kWindow);
  const std::string& m = checked.message;
  EXPECT_NE(m.find("ada-fd: diverged: over steps 1-1000, the mean online loss "), std::string::npos) << m;
  EXPECT_NE(m.find("lower eta (now 0.1), or set divergence 0 to train on"), std::string::npos) << m;
  EXPECT_NE(m.find("(limit: divergence " + number_text(kLimit) + ")"), std::string::npos) << m;
  EXPECT_NEAR(number_after(m, " is ") / ratio, 1.0, kPrinted) << m;
  EXPECT_NEAR(number_after(m, "the zero predictor's ") / (control.zero / kWindow), 1.0, kPrinted) << m;
  EXPECT_TRUE(same_on_every_rank(m)) << m;
}

TEST(Divergence, SonBlowUpIsSeenInTheModelsOwnScores) {
  LearnerSpec off = son_reproducer();
  off.divergence = 0.0;
  auto source = classification(kWindow);
  const Observed control = run(*make_learner(world(), kDim, off), *source);
  ASSERT_EQ(control.steps, kWindow);
  EXPECT_LT(control.loss / control.zero, 2.0);  // the online loss looks healthy: |wᵀx| ≤ C = 1
  const double ratio = control.model / control.model_zero;
  ASSERT_GT(ratio, kLimit) << "the SON reproducer no longer blows up";

  const auto learner = make_learner(world(), kDim, son_reproducer());
  const Observed checked = run(*learner, *source);
  EXPECT_EQ(checked.stopped_at, kWindow);
  const std::string& m = checked.message;
  EXPECT_NE(m.find("fd-son: diverged: over steps 1-1000, the mean loss of the model's own scores (every 10th step) "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("raise alpha0 (now 0.01)"), std::string::npos) << m;
  EXPECT_NEAR(number_after(m, " is ") / ratio, 1.0, kPrinted) << m;
  EXPECT_TRUE(same_on_every_rank(m)) << m;
}

TEST(Divergence, DefaultRunsAreNotStopped) {
  auto source = classification(kWindow);
  for (const char* algorithm : {"ada-diag", "ada-fd", "fast-ada-fd-da", "ada-gp", "ada-dp-da", "comp-adagrad", "fd-son", "rp-son",
                                "oja-son", "rfd-son", "fast-rfd-son"}) {
    LearnerSpec spec;
    spec.algorithm = algorithm;
    const auto learner = make_learner(world(), kDim, spec);
    const Observed r = run(*learner, *source);
    EXPECT_EQ(r.stopped_at, 0) << algorithm << ": " << r.message;
    EXPECT_EQ(r.steps, kWindow) << algorithm;
  }
}

// Sampling the model's own scores (SON, FULL-ON: predict() before every 10th step) changes no result:
// the weights after the pass are bitwise those of the run without the check.
TEST(Divergence, CheckChangesNoResult) {
  auto source = classification(kWindow);
  for (const char* algorithm : {"fd-son", "fast-rfd-son", "rp-son", "oja-son", "ada-fd"}) {
    LearnerSpec on, off;
    on.algorithm = off.algorithm = algorithm;
    off.divergence = 0.0;
    const auto a = make_learner(world(), kDim, on), b = make_learner(world(), kDim, off);
    for (Learner* learner : {a.get(), b.get()}) {  // steps alone (run() calls predict too)
      Example e;
      source->rewind();
      while (source->next(e)) learner->step(e.row(), e.label);
    }
    std::vector<double> wa(static_cast<std::size_t>(a->local_dim() * a->outputs())), wb(wa.size());
    a->weights(wa);
    b->weights(wb);
    EXPECT_EQ(std::memcmp(wa.data(), wb.data(), wa.size() * sizeof(double)), 0) << algorithm;
  }
}

std::string checkpoint_path() {
  double pid = world().rank() == 0 ? static_cast<double>(getpid()) : 0.0;
  pid = world().allreduce_sum(pid);
  return "/tmp/adasketch-test-divergence-" + std::to_string(static_cast<long long>(pid)) + ".ck";
}

// Resumed from the middle of the window (after a sampled step and after an unsampled one), the check
// continues the saved sums: the same step, the same message (bitwise the same numbers).
TEST(Divergence, ResumedRunStopsAtTheSameStep) {
  for (const LearnerSpec& spec : {reproducer(), son_reproducer()}) {
    const bool son = spec.algorithm == "fd-son";
    auto source = son ? classification(2 * kWindow) : regression(2 * kWindow);
    const Observed whole = run(*make_learner(world(), kDim, spec), *source);
    ASSERT_EQ(whole.stopped_at, kWindow) << spec.algorithm;
    for (const index_t at : {index_t{500}, index_t{503}}) {
      auto first = make_learner(world(), kDim, spec);
      Example e;
      source->rewind();
      for (index_t t = 0; t < at && source->next(e); ++t) first->step(e.row(), e.label);
      const std::string path = checkpoint_path();
      save_checkpoint(path, *first);
      auto resumed = make_learner(world(), kDim, spec);
      load_checkpoint(path, *resumed);
      world().barrier();
      if (world().rank() == 0) std::filesystem::remove(path);
      const Observed rest = run(*resumed, *source, at);
      EXPECT_EQ(rest.stopped_at, kWindow) << spec.algorithm << " resumed at " << at;
      EXPECT_EQ(rest.message, whole.message) << spec.algorithm << " resumed at " << at;
    }
  }
}

TEST(Divergence, LimitIsAHyperparameter) {
  LearnerSpec spec = reproducer();
  spec.divergence = 2.5;
  EXPECT_EQ(make_learner(world(), kDim, spec)->spec().divergence, 2.5);
  spec.divergence = -1.0;
  try {
    make_learner(world(), kDim, spec);
    ADD_FAILURE() << "divergence -1 accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("divergence must be >= 0, got -1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace adasketch
