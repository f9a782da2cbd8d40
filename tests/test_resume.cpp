// Resuming the training loop (online_training.hpp) from checkpoints: ExampleSource::skip against
// calls of next() for LIBSVM text, dense binary and synthetic sources; a run stopped by a request
// (on one rank only), or resumed from any of its periodic checkpoints or from its final one, ends
// with the weights and totals of the uninterrupted run, bit for bit; time-based checkpoints happen
// after the same example on every rank; bad start states are refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "adasketch/data/dense_binary.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/data/synthetic.hpp"
#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/training/online_training.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

constexpr index_t kDim = 9, kRows = 23;

std::string shared_dir() {
  double pid = world().rank() == 0 ? static_cast<double>(getpid()) : 0.0;
  pid = world().allreduce_sum(pid);
  const std::string dir = "/tmp/adasketch-test-resume-" + std::to_string(static_cast<long long>(pid));
  if (world().rank() == 0) std::filesystem::create_directories(dir);
  world().barrier();
  return dir;
}

// After the last test, on every rank: rank 0 removes the shared directory once all are done with it.
class RemoveSharedDir : public ::testing::Environment {
 public:
  void TearDown() override {
    const std::string dir = shared_dir();
    world().barrier();
    if (world().rank() == 0) std::filesystem::remove_all(dir);
  }
};
[[maybe_unused]] const ::testing::Environment* const kRemoveSharedDir =
    ::testing::AddGlobalTestEnvironment(new RemoveSharedDir);

// kRows examples as LIBSVM text (with comment and blank lines) and as a dense binary file.
struct Files {
  std::string libsvm, dense;
};

Files write_files(const std::string& dir) {
  Files f{dir + "/data.svm", dir + "/data.bin"};
  if (world().rank() == 0) {
    std::mt19937_64 gen(5);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> x(kRows * kDim, 0.0), y(kRows);
    std::ofstream svm(f.libsvm);
    svm << "# header comment\n";
    for (index_t i = 0; i < kRows; ++i) {
      for (index_t j = 0; j < kDim; ++j)
        if (unit(gen) < 0.5 || j == kDim - 1) x[i * kDim + j] = normal(gen);
      y[i] = x[i * kDim] + x[i * kDim + 1] >= 0.0 ? 1.0 : -1.0;
      svm << (y[i] > 0 ? "+1" : "-1");
      for (index_t j = 0; j < kDim; ++j)
        if (x[i * kDim + j] != 0.0) svm << ' ' << j + 1 << ':' << x[i * kDim + j];
      svm << (i % 5 == 2 ? "\n\n   \t\n# comment\n" : "\n");
    }
    svm.close();
    write_dense_binary(f.dense, kRows, kDim, y.data(), x.data());
  }
  world().barrier();
  return f;
}

std::unique_ptr<ExampleSource> synthetic(index_t examples = kRows) {
  return make_low_rank_regression(world(), {.dim = kDim, .examples = examples, .rank = 4, .seed = 3});
}

void expect_same_example(const Example& a, const Example& b) {
  EXPECT_EQ(a.position, b.position);
  EXPECT_EQ(a.label, b.label);
  EXPECT_EQ(a.dense, b.dense);
  EXPECT_EQ(a.indices, b.indices);
  EXPECT_EQ(a.values, b.values);
}

// skip(n) then next() must give what n + 1 calls of next() give, from the start or mid-stream.
void check_skip(ExampleSource& skipping, ExampleSource& reading) {
  for (const index_t start : {index_t{0}, index_t{3}})
    for (const index_t n : {index_t{0}, index_t{1}, index_t{6}, index_t{17}}) {
      SCOPED_TRACE("start " + std::to_string(start) + ", skip " + std::to_string(n));
      skipping.rewind();
      reading.rewind();
      Example a, b;
      for (index_t i = 0; i < start; ++i) {
        ASSERT_TRUE(skipping.next(a));
        ASSERT_TRUE(reading.next(b));
      }
      EXPECT_EQ(skipping.skip(n), n);
      for (index_t i = 0; i < n; ++i) ASSERT_TRUE(reading.next(b));
      ASSERT_TRUE(skipping.next(a));
      ASSERT_TRUE(reading.next(b));
      expect_same_example(a, b);
    }
  skipping.rewind();
  EXPECT_EQ(skipping.skip(kRows + 5), kRows);  // the rest of the stream
  Example e;
  EXPECT_FALSE(skipping.next(e));
  EXPECT_EQ(skipping.skip(3), 0);
}

}  // namespace

TEST(Skip, MatchesNextForEverySource) {
  const Files files = write_files(shared_dir());
  {
    LibsvmReader a(world(), files.libsvm), b(world(), files.libsvm);
    check_skip(a, b);
  }
  {
    DenseBinaryReader a(world(), files.dense, 4), b(world(), files.dense, 4);  // 4 rows per read: skips cross reads
    check_skip(a, b);
  }
  auto a = synthetic(), b = synthetic();
  check_skip(*a, *b);
  world().barrier();
}

namespace {

struct Scenario {
  std::string name;
  LearnerSpec spec;
  LabelMap labels;
  std::function<std::unique_ptr<ExampleSource>()> source;
};

std::vector<Scenario> scenarios(const Files& files) {
  LearnerSpec fd;
  fd.algorithm = "fast-ada-fd";
  fd.ell = 3;
  fd.eta = 0.5;
  LearnerSpec son;
  son.algorithm = "fast-rfd-son";
  son.loss = LossKind::squared;
  son.ell = 2;
  son.eta = 1.0;
  son.sigma = 0.1;
  son.eta_schedule = EtaSchedule::inv_t;
  LearnerSpec diag;
  diag.algorithm = "ada-diag-da";
  diag.loss = LossKind::squared;
  diag.eta = 0.05;
  return {
      {"fast-ada-fd on LIBSVM text", fd, LabelMap(LabelMap::Kind::plus_minus_one),
       [path = files.libsvm] { return std::make_unique<LibsvmReader>(world(), path, LibsvmOptions{kDim}); }},
      {"fast-rfd-son on dense binary", son, LabelMap(LabelMap::Kind::real),
       [path = files.dense] { return std::make_unique<DenseBinaryReader>(world(), path, 5); }},
      {"ada-diag-da on synthetic data", diag, LabelMap(LabelMap::Kind::real), [] { return synthetic(); }},
  };
}

std::vector<double> local_weights(const Learner& learner) {
  std::vector<double> w(static_cast<std::size_t>(learner.local_dim() * learner.outputs()));
  learner.weights(w);
  return w;
}

bool everywhere(bool ok) { return world().allreduce_max(static_cast<index_t>(ok ? 0 : 1)) == 0; }

void expect_same_run(const Learner& a, const TrainingStats& sa, const Learner& b, const TrainingStats& sb) {
  const auto wa = local_weights(a), wb = local_weights(b);
  EXPECT_TRUE(everywhere(std::memcmp(wa.data(), wb.data(), wa.size() * sizeof(double)) == 0)) << "weights differ";
  EXPECT_EQ(sa.examples, sb.examples);
  EXPECT_EQ(sa.mistakes, sb.mistakes);
  EXPECT_EQ(std::memcmp(&sa.cumulative_loss, &sb.cumulative_loss, sizeof(double)), 0)
      << sa.cumulative_loss << " vs " << sb.cumulative_loss;
  EXPECT_EQ(sa.classified, sb.classified);
  EXPECT_EQ(a.steps(), b.steps());
}

CheckpointRun run_of(const Scenario& s, const TrainingState& state) {
  CheckpointRun r;
  r.labels = s.labels;
  r.state = state;
  r.passes = 3;
  r.data_name = s.name;
  r.data_examples = kRows;
  return r;
}

// A fresh learner restored from `path`, trained to the end of `passes`.
TrainingStats resume(const Scenario& s, const std::string& path, int passes, std::unique_ptr<Learner>& learner) {
  learner = make_learner(world(), kDim, s.spec);
  const CheckpointHeader h = load_checkpoint(path, *learner);
  auto source = s.source();
  return train(*learner, *source, s.labels, {.passes = passes, .source_name = s.name, .start = h.run.state});
}

}  // namespace

TEST(Resume, FromEveryKindOfCheckpointEqualsTheUninterruptedRun) {
  const std::string dir = shared_dir();
  const Files files = write_files(dir);
  for (const Scenario& s : scenarios(files)) {
    SCOPED_TRACE(s.name);
    // Uninterrupted, with a checkpoint every 7 examples (each into its own file) and the final one.
    auto a = make_learner(world(), kDim, s.spec);
    auto source = s.source();
    std::vector<TrainingState> states;
    TrainingOptions options{.passes = 3, .source_name = s.name};
    options.checkpoint_every = 7;
    options.checkpoint = [&](const TrainingState& state) {
      save_checkpoint(dir + "/periodic" + std::to_string(states.size()) + ".ckpt", *a, run_of(s, state));
      states.push_back(state);
    };
    const TrainingStats stats_a = train(*a, *source, s.labels, options);
    ASSERT_EQ(states.size(), std::size_t{3 * kRows / 7 + 1});
    EXPECT_EQ(states[1].pass, 1);
    EXPECT_EQ(states[1].position, 14);
    EXPECT_EQ(states[3].pass, 2);
    EXPECT_EQ(states[3].position, 28 - kRows);
    EXPECT_EQ(states.back().pass, 4);
    EXPECT_EQ(states.back().position, 0);
    EXPECT_EQ(states.back().examples, 3 * kRows);

    for (const std::size_t k : {std::size_t{0}, std::size_t{4}, std::size_t{8}, states.size() - 1}) {
      SCOPED_TRACE("resumed from periodic checkpoint " + std::to_string(k));
      std::unique_ptr<Learner> b;
      const TrainingStats stats_b = resume(s, dir + "/periodic" + std::to_string(k) + ".ckpt", 3, b);
      expect_same_run(*a, stats_a, *b, stats_b);
    }

    // Stopped by a request on the last rank only, after its 40th poll (a poll per example).
    auto c = make_learner(world(), kDim, s.spec);
    source = s.source();
    int polls = 0;
    TrainingState stopped_at;
    TrainingOptions stop{.passes = 3, .source_name = s.name};
    stop.poll_interval = 1e-12;
    stop.stop_requested = [&] { return ++polls == 40 && world().rank() == world().size() - 1; };
    stop.checkpoint = [&](const TrainingState& state) {
      save_checkpoint(dir + "/stopped.ckpt", *c, run_of(s, state));
      stopped_at = state;
    };
    const TrainingStats stats_c = train(*c, *source, s.labels, stop);
    EXPECT_TRUE(stats_c.stopped);
    EXPECT_EQ(stats_c.examples, 40);
    EXPECT_EQ(stopped_at.pass, 2);
    EXPECT_EQ(stopped_at.position, 40 - kRows);
    std::unique_ptr<Learner> d;
    expect_same_run(*a, stats_a, *d, resume(s, dir + "/stopped.ckpt", 3, d));

    // The final checkpoint continues into a 4th pass like an uninterrupted 4-pass run.
    auto e = make_learner(world(), kDim, s.spec);
    source = s.source();
    const TrainingStats stats_e = train(*e, *source, s.labels, {.passes = 4, .source_name = s.name});
    std::unique_ptr<Learner> f;
    const std::string last = dir + "/periodic" + std::to_string(states.size() - 1) + ".ckpt";
    expect_same_run(*e, stats_e, *f, resume(s, last, 4, f));
  }
  world().barrier();
}

TEST(Resume, TimedCheckpointsAreCollective) {
  const Scenario s = scenarios(write_files(shared_dir()))[0];
  auto learner = make_learner(world(), kDim, s.spec);
  auto source = s.source();
  TrainingOptions options{.passes = 2, .source_name = s.name};
  options.checkpoint_seconds = 1e-9;  // due at every poll
  options.poll_interval = 1e-12;      // a poll per example
  std::vector<index_t> at;
  options.checkpoint = [&](const TrainingState& state) { at.push_back(state.examples); };
  train(*learner, *source, s.labels, options);
  EXPECT_EQ(at.size(), std::size_t{2 * kRows + 1});  // after every example, and the final one
  const auto n = static_cast<index_t>(at.size());
  EXPECT_EQ(world().allreduce_min(n), world().allreduce_max(n));
  for (std::size_t i = 0; i < at.size(); ++i) {
    EXPECT_EQ(world().allreduce_min(at[i]), world().allreduce_max(at[i]));
    EXPECT_EQ(at[i], std::min<index_t>(static_cast<index_t>(i) + 1, 2 * kRows));
  }
}

TEST(Resume, BadStartStatesAreRefused) {
  const Scenario s = scenarios(write_files(shared_dir()))[0];
  auto learner = make_learner(world(), kDim, s.spec);
  auto source = s.source();
  TrainingOptions options{.passes = 2, .source_name = "short.svm"};
  options.start.pass = 3;
  options.start.position = 1;
  EXPECT_THROW(train(*learner, *source, s.labels, options), InvalidArgument);
  options.start.pass = 2;
  options.start.position = kRows + 1;  // more examples than the data has
  try {
    train(*learner, *source, s.labels, options);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "short.svm");
    EXPECT_NE(std::string(e.what()).find("has 23 examples"), std::string::npos) << e.what();
  }
  options.start.pass = 3;  // passes + 1 at position 0: nothing left
  options.start.position = 0;
  EXPECT_EQ(train(*learner, *source, s.labels, options).examples, 0);
  EXPECT_EQ(learner->steps(), 0);
}
