#pragma once
/// @file
/// The online training loop. Collective: every rank calls train() with its own source (same examples,
/// own features).
///
/// Checkpoints and stop requests (adasketch/io/checkpoint.hpp): the loop decides them collectively, so every rank
/// acts after the same example. A checkpoint every N examples needs no communication (the example
/// count is the same everywhere); time-based checkpoints and stop requests are decided at polls, one
/// Allreduce of 3 numbers about every poll_interval seconds: rank 0 contributes whether the time is
/// due and the number of examples to the next poll (from its step rate), every rank whether it was
/// asked to stop.
#include <functional>
#include <string>

#include "adasketch/data/example_source.hpp"
#include "adasketch/error.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/training/training_state.hpp"

namespace adasketch {

/// Progress so far; cumulative over passes.
struct TrainingProgress {
  int pass = 1;            ///< 1-based pass being run
  index_t examples = 0;    ///< examples stepped so far
  index_t mistakes = 0;    ///< online (progressive) mistakes so far
  double cumulative_loss = 0.0;  ///< Σ_t ℓ_t(w_t) so far
  double seconds = 0.0;    ///< since train() started, by this rank's clock
};


/// How train() runs: passes, callbacks for progress and traces, the start state, the checkpoint
/// policy and stop requests. Every callback is optional (empty: none).
struct TrainingOptions {
  int passes = 1;  ///< ≥ 1; every pass starts with source.rewind()
  /// The data's name in error messages (InputError(source_name, line, ...)).
  std::string source_name = "data";
  /// Called on every rank, by its own clock, at most once per progress_interval seconds (so the
  /// ranks may call it after different example counts); it must not communicate. Empty: none.
  std::function<void(const TrainingProgress&)> progress = {};
  double progress_interval = 1.0;  ///< seconds between progress calls, at least
  /// Called on every rank after every trace_every-th example of the run (counted as
  /// TrainingProgress::examples, so from the start state's) and after the last, with the same
  /// examples, mistakes and loss on every rank; it must not communicate. 0 or empty: none.
  std::function<void(const TrainingProgress&)> trace = {};
  index_t trace_every = 0;  ///< examples between trace calls (0: no trace)

  /// Where to start: a fresh run (the default), or a saved state (load_checkpoint) together with the
  /// learner restored from the same checkpoint. Its pass must be ≤ passes (or passes + 1 with position
  /// 0: nothing left to do). The source is rewound and the state's position skipped
  /// (ExampleSource::skip); examples, mistakes, loss and seconds continue from the state's.
  TrainingState start = {};
  /// Collective callback: every rank calls it after the same example when a checkpoint is due, before
  /// returning early for a stop request, and once when the run completes (pass = passes + 1, position
  /// 0), with the state to save (save_checkpoint). Empty: no checkpoints.
  std::function<void(const TrainingState&)> checkpoint = {};
  /// A checkpoint every this many examples, counted from the run's first example (so a resumed run
  /// checkpoints where an uninterrupted one does); 0: none.
  index_t checkpoint_every = 0;
  /// A checkpoint once this many seconds passed since the last one (rank 0's clock, at polls); 0: none.
  double checkpoint_seconds = 0.0;
  /// Local (must not communicate): whether this rank was asked to stop, e.g. a SIGTERM flag; read at
  /// polls. When any rank says yes, every rank stops after the same example, calls `checkpoint` and
  /// train() returns with TrainingStats::stopped. Empty: never.
  std::function<bool()> stop_requested = {};
  /// About this many seconds between polls (when checkpoint_seconds or stop_requested is set).
  double poll_interval = 0.1;
};

/// What train() returns: the run's totals (the start state's included).
struct TrainingStats {
  index_t examples = 0;          ///< steps over all passes
  index_t mistakes = 0;          ///< online mistakes: w_t misclassified x_t before its update
  /// Whether mistakes are meaningful: a classification loss, or a regression loss whose labels were
  /// all ±1 (sign mistakes, Loss::mistake).
  bool classified = false;
  double cumulative_loss = 0.0;  ///< Σ_t ℓ_t(w_t)
  double seconds = 0.0;          ///< wall time of the loop, the slowest rank's (plus the start state's)
  bool stopped = false;          ///< ended early on a stop request (TrainingOptions::stop_requested)
};

/// What train() throws for a NumericError of a step (the model diverged: a non-finite score or loss):
/// an InputError naming the example, raised on every rank together (the values are reduced ones).
class DivergenceError : public InputError {
 public:
  using InputError::InputError;
};

/// Steps the learner once per example, mapping labels with `labels` (which must fit the learner's
/// loss). Throws InputError(source_name, line) for a label the map does not cover, DivergenceError
/// (source_name, line) for a non-finite score or loss (from non-finite input values, or divergence),
/// InputError(source_name, 0) when the source has fewer examples than the start state skips;
/// InvalidArgument when the source and the learner partition the features differently or the start
/// state is beyond `passes`. The learner keeps its state after an exception. Totals (examples,
/// mistakes, loss, seconds) include the start state's.
TrainingStats train(Learner& learner, ExampleSource& source, const LabelMap& labels, const TrainingOptions& options);

}  // namespace adasketch
