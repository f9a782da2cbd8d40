#include "adasketch/training/online_training.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include "adasketch/error.hpp"
#include "checkpoint_policy.hpp"
#include "training_support.hpp"

namespace adasketch {

namespace {

using detail::Clock;
using detail::seconds_since;

// The clock is read about this many times per progress interval (a step can take well under a
// microsecond, or seconds).
constexpr double kChecksPerInterval = 100.0;

}  // namespace

TrainingStats train(Learner& learner, ExampleSource& source, const LabelMap& labels, const TrainingOptions& options) {
  ADASKETCH_REQUIRE(options.passes >= 1, "passes = " + number_text(options.passes));
  ADASKETCH_REQUIRE(labels.fits(learner.loss()), "label map " + labels.describe() + " for loss " + learner.loss().name());
  detail::require_same_partition(learner.partition(), source, learner.comm().rank());
  const TrainingState& from = options.start;
  ADASKETCH_REQUIRE(from.pass >= 1 && from.position >= 0 &&
                        (from.pass <= options.passes || (from.pass == options.passes + 1 && from.position == 0)),
                    "the start state (pass " + number_text(from.pass) + ", position " +
                        number_text(from.position) + ") is beyond passes = " + number_text(options.passes));
  const auto start = Clock::now();
  auto last_report = start;
  index_t next_check = from.examples + 1;
  TrainingState state = from;
  detail::CheckpointPolicy policy(learner.comm(), options, start, from.examples);
  // The state after the current example, as a checkpoint records it.
  const auto snapshot = [&](int pass, index_t position) {
    state.pass = pass;
    state.position = position;
    state.seconds = from.seconds + seconds_since(start);
    return state;
  };
  const bool tracing = options.trace && options.trace_every > 0;
  const auto now_progress = [&](int pass) {
    return TrainingProgress{pass, state.examples, state.mistakes, state.cumulative_loss, from.seconds + seconds_since(start)};
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
  Example example, next;
  for (int pass = from.pass; pass <= options.passes; ++pass) {
    source.rewind();
    index_t position = 0;
    if (pass == from.pass && from.position > 0) {
      position = source.skip(from.position);
      if (position != from.position)
        throw InputError(options.source_name, 0, "has " + number_text(position) + " examples, but the run to resume had stepped " +
                                                     number_text(from.position) + " of pass " + number_text(pass));
    }
    // One example ahead: the learner loads its features' state during the step before (a hint). An
    // error reading it is raised where it was before, after that step and its checkpoint.
    bool more = source.next(example);
    while (more) {
      std::exception_ptr unread;
      try {
        more = source.next(next);
      } catch (...) {
        unread = std::current_exception();
        more = false;
      }
      if (more) learner.prefetch(next.row());
      const double y = labels.apply(example.label, options.source_name, example.position);
      StepResult r;
      try {
        r = learner.step(example.row(), y);
      } catch (const NumericError& e) {  // e.g. a non-finite score: found on reduced values, so on every rank
        throw DivergenceError(options.source_name, example.position, e.what());
      }
      state.cumulative_loss += r.loss;
      state.mistakes += r.mistake ? 1 : 0;
      state.signs = state.signs && (y == 1.0 || y == -1.0);
      ++state.examples;
      ++position;
      if (tracing && state.examples % options.trace_every == 0) options.trace(now_progress(pass));
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
      const detail::CheckpointPolicy::Decision decision = policy.after(state.examples);
      if (decision.stop) {
        if (options.checkpoint) options.checkpoint(snapshot(pass, position));
        stats.stopped = true;
        return finish();
      }
      if (decision.checkpoint) options.checkpoint(snapshot(pass, position));
      if (unread) std::rethrow_exception(unread);
      std::swap(example, next);
    }
  }
  if (options.checkpoint) options.checkpoint(snapshot(options.passes + 1, 0));
  if (tracing && state.examples % options.trace_every != 0) options.trace(now_progress(options.passes));
  return finish();
}

}  // namespace adasketch
