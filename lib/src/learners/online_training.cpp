#include "adasketch/learners/online_training.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "adasketch/error.hpp"

namespace adasketch {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The clock is read about this many times per progress interval (a step can take well under a
// microsecond, or seconds).
constexpr double kChecksPerInterval = 100.0;

void require_same_partition(const BlockPartition& model, const ExampleSource& source, int rank) {
  const BlockPartition& data = source.partition();
  if (data.dim() != model.dim() || data.begin(rank) != model.begin(rank) || data.end(rank) != model.end(rank))
    throw InvalidArgument("the data has d = " + std::to_string(data.dim()) + " features partitioned as [" +
                          std::to_string(data.begin(rank)) + ", " + std::to_string(data.end(rank)) +
                          ") on this rank, the model d = " + std::to_string(model.dim()) + " as [" +
                          std::to_string(model.begin(rank)) + ", " + std::to_string(model.end(rank)) + ")");
}

template <class Predict>
EvaluationStats evaluate_with(const Loss& loss, const LabelMap& labels, ExampleSource& source,
                              const std::string& source_name, Predict&& predict) {
  const auto start = Clock::now();
  std::vector<double> scores(static_cast<std::size_t>(loss.outputs()));
  EvaluationStats stats;
  double total_loss = 0.0;
  bool signs = true;  // every label ±1
  Example example;
  source.rewind();
  while (source.next(example)) {
    const double y = labels.apply(example.label, source_name, example.position);
    predict(example.row(), scores);
    for (double s : scores)
      if (!std::isfinite(s))
        throw InputError(source_name, example.position, "the score Wᵀx is not finite (non-finite input values?)");
    total_loss += loss.value(scores, y);
    stats.mistakes += loss.mistake(scores, y) ? 1 : 0;
    signs = signs && (y == 1.0 || y == -1.0);
    ++stats.examples;
  }
  const double n = static_cast<double>(stats.examples);
  stats.mean_loss = stats.examples > 0 ? total_loss / n : 0.0;
  stats.accuracy = !loss.is_classification() && !signs ? std::numeric_limits<double>::quiet_NaN()
                   : stats.examples > 0     ? 1.0 - static_cast<double>(stats.mistakes) / n
                                            : 0.0;
  stats.seconds = seconds_since(start);
  return stats;
}

// The collective decisions of the loop (header of online_training.hpp): checkpoints by example
// count, by rank 0's clock, and stop requests, all taken after the same example on every rank.
class CheckpointPolicy {
 public:
  CheckpointPolicy(const Communicator& comm, const TrainingOptions& o, Clock::time_point start, index_t first_example)
      : comm_(comm), options_(o), start_(start), last_checkpoint_(start), first_example_(first_example),
        polling_(o.stop_requested || o.checkpoint_seconds > 0.0), next_poll_(first_example + 1) {
    ADASKETCH_REQUIRE(o.checkpoint_every >= 0, "checkpoint_every = " + std::to_string(o.checkpoint_every));
    ADASKETCH_REQUIRE(o.checkpoint_seconds >= 0.0, "checkpoint_seconds = " + std::to_string(o.checkpoint_seconds));
    ADASKETCH_REQUIRE(o.poll_interval > 0.0, "poll_interval = " + std::to_string(o.poll_interval));
  }

  struct Decision {
    bool checkpoint = false, stop = false;
  };

  /// After the example that brought the run to `examples` steps.
  Decision after(index_t examples) {
    Decision d;
    d.checkpoint = options_.checkpoint_every > 0 && examples % options_.checkpoint_every == 0;
    if (polling_ && examples >= next_poll_) {
      // [stop requested on any rank, rank 0: time-based checkpoint due, rank 0: examples to the next poll]
      double poll[3] = {options_.stop_requested && options_.stop_requested() ? 1.0 : 0.0, 0.0, 0.0};
      if (comm_.rank() == 0) {
        const auto now = Clock::now();
        poll[1] = options_.checkpoint_seconds > 0.0 &&
                          std::chrono::duration<double>(now - last_checkpoint_).count() >= options_.checkpoint_seconds
                      ? 1.0
                      : 0.0;
        const double rate = static_cast<double>(examples - first_example_) / std::max(seconds_since(start_), 1e-9);
        poll[2] = std::clamp(std::floor(rate * options_.poll_interval), 1.0, 1e9);
      }
      comm_.allreduce_sum(std::span<double>(poll, 3));
      d.stop = poll[0] > 0.0;
      d.checkpoint = d.checkpoint || poll[1] > 0.0;
      next_poll_ = examples + static_cast<index_t>(poll[2]);
    }
    d.checkpoint = d.checkpoint && options_.checkpoint;
    if (d.checkpoint) last_checkpoint_ = Clock::now();
    return d;
  }

 private:
  const Communicator& comm_;
  const TrainingOptions& options_;
  Clock::time_point start_, last_checkpoint_;
  index_t first_example_;
  bool polling_;
  index_t next_poll_;
};

}  // namespace

TrainingStats train(Learner& learner, ExampleSource& source, const LabelMap& labels, const TrainingOptions& options) {
  ADASKETCH_REQUIRE(options.passes >= 1, "passes = " + std::to_string(options.passes));
  ADASKETCH_REQUIRE(labels.fits(learner.loss()), "label map " + labels.describe() + " for loss " + learner.loss().name());
  require_same_partition(learner.partition(), source, learner.comm().rank());
  const TrainingState& from = options.start;
  ADASKETCH_REQUIRE(from.pass >= 1 && from.position >= 0 &&
                        (from.pass <= options.passes || (from.pass == options.passes + 1 && from.position == 0)),
                    "the start state (pass " + std::to_string(from.pass) + ", position " +
                        std::to_string(from.position) + ") is beyond passes = " + std::to_string(options.passes));
  const auto start = Clock::now();
  auto last_report = start;
  index_t next_check = from.examples + 1;
  TrainingState state = from;
  CheckpointPolicy policy(learner.comm(), options, start, from.examples);
  // The state after the current example, as a checkpoint records it.
  const auto snapshot = [&](int pass, index_t position) {
    state.pass = pass;
    state.position = position;
    state.seconds = from.seconds + seconds_since(start);
    return state;
  };
  TrainingStats stats;
  const auto finish = [&] {
    stats.examples = state.examples;
    stats.mistakes = state.mistakes;
    stats.cumulative_loss = state.cumulative_loss;
    stats.classified = learner.loss().is_classification() || state.signs;
    stats.seconds = from.seconds + learner.comm().allreduce_max(seconds_since(start));
    return stats;
  };
  Example example;
  for (int pass = from.pass; pass <= options.passes; ++pass) {
    source.rewind();
    index_t position = 0;
    if (pass == from.pass && from.position > 0) {
      position = source.skip(from.position);
      if (position != from.position)
        throw InputError(options.source_name, 0, "has " + std::to_string(position) + " examples, but the run to resume had stepped " +
                                                     std::to_string(from.position) + " of pass " + std::to_string(pass));
    }
    while (source.next(example)) {
      const double y = labels.apply(example.label, options.source_name, example.position);
      StepResult r;
      try {
        r = learner.step(example.row(), y);
      } catch (const NumericError& e) {  // e.g. a non-finite score: found on reduced values, so on every rank
        throw InputError(options.source_name, example.position, e.what());
      }
      state.cumulative_loss += r.loss;
      state.mistakes += r.mistake ? 1 : 0;
      state.signs = state.signs && (y == 1.0 || y == -1.0);
      ++state.examples;
      ++position;
      if (options.progress && state.examples >= next_check) {
        const auto now = Clock::now();
        const double elapsed = std::chrono::duration<double>(now - start).count();
        if (std::chrono::duration<double>(now - last_report).count() >= options.progress_interval) {
          last_report = now;
          options.progress({pass, state.examples, state.mistakes, state.cumulative_loss, from.seconds + elapsed});
        }
        const double rate = static_cast<double>(state.examples - from.examples) / std::max(elapsed, 1e-9);
        next_check = state.examples + std::max<index_t>(1, static_cast<index_t>(rate * options.progress_interval /
                                                                                 kChecksPerInterval));
      }
      const CheckpointPolicy::Decision decision = policy.after(state.examples);
      if (decision.stop) {
        if (options.checkpoint) options.checkpoint(snapshot(pass, position));
        stats.stopped = true;
        return finish();
      }
      if (decision.checkpoint) options.checkpoint(snapshot(pass, position));
    }
  }
  if (options.checkpoint) options.checkpoint(snapshot(options.passes + 1, 0));
  return finish();
}

EvaluationStats evaluate(const Learner& learner, ExampleSource& source, const LabelMap& labels,
                         const std::string& source_name) {
  ADASKETCH_REQUIRE(labels.fits(learner.loss()), "label map " + labels.describe() + " for loss " + learner.loss().name());
  require_same_partition(learner.partition(), source, learner.comm().rank());
  EvaluationStats stats = evaluate_with(learner.loss(), labels, source, source_name,
                                        [&](const LocalRow& x, std::span<double> s) { learner.predict(x, s); });
  stats.seconds = learner.comm().allreduce_max(stats.seconds);
  return stats;
}

EvaluationStats evaluate(const LinearModel& model, ExampleSource& source, const std::string& source_name) {
  require_same_partition(model.partition(), source, model.comm().rank());
  EvaluationStats stats = evaluate_with(model.loss(), model.labels(), source, source_name,
                                        [&](const LocalRow& x, std::span<double> s) { model.predict(x, s); });
  stats.seconds = model.comm().allreduce_max(stats.seconds);
  return stats;
}

}  // namespace adasketch
