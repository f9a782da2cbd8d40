#pragma once
// The online training loop and the evaluation of a learner or a saved model on a data stream.
// Both are collective: every rank calls them with its own source (same examples, own features).
#include <functional>
#include <string>

#include "adasketch/data/example_source.hpp"
#include "adasketch/learners/label_map.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/learners/linear_model.hpp"

namespace adasketch {

/// Progress so far; cumulative over passes.
struct TrainingProgress {
  int pass = 1;            ///< 1-based pass being run
  index_t examples = 0;    ///< examples stepped so far
  index_t mistakes = 0;    ///< online (progressive) mistakes so far
  double cumulative_loss = 0.0;
  double seconds = 0.0;    ///< since train() started, by this rank's clock
};

struct TrainingOptions {
  int passes = 1;  ///< ≥ 1; every pass starts with source.rewind()
  /// The data's name in error messages (InputError(source_name, line, ...)).
  std::string source_name = "data";
  /// Called on every rank, by its own clock, at most once per progress_interval seconds (so the
  /// ranks may call it after different example counts); it must not communicate. Empty: none.
  std::function<void(const TrainingProgress&)> progress = {};
  double progress_interval = 1.0;
};

struct TrainingStats {
  index_t examples = 0;          ///< steps over all passes
  index_t mistakes = 0;          ///< online mistakes: w_t misclassified x_t before its update
  /// Whether mistakes are meaningful: a classification loss, or a regression loss whose labels were
  /// all ±1 (sign mistakes, Loss::mistake).
  bool classified = false;
  double cumulative_loss = 0.0;  ///< Σ_t ℓ_t(w_t)
  double seconds = 0.0;          ///< wall time of the loop, the slowest rank's
};

/// Steps the learner once per example, mapping labels with `labels` (which must fit the learner's
/// loss). Throws InputError(source_name, line) for a label the map does not cover or a non-finite
/// score (from non-finite input values); InvalidArgument when the source and the learner partition
/// the features differently. The learner keeps its state after an exception.
TrainingStats train(Learner& learner, ExampleSource& source, const LabelMap& labels, const TrainingOptions& options);

struct EvaluationStats {
  index_t examples = 0;
  index_t mistakes = 0;    ///< Loss::mistake over the examples
  /// 1 − mistakes/examples; NaN for a regression loss unless every label is ±1 (sign accuracy).
  double accuracy = 0.0;
  double mean_loss = 0.0;  ///< (1/n) Σ ℓ(Wᵀx, y)
  double seconds = 0.0;
};

/// Scores every example of the source (after rewind()) with the learner's current weights, without
/// updating them. Errors as for train().
EvaluationStats evaluate(const Learner& learner, ExampleSource& source, const LabelMap& labels,
                         const std::string& source_name = "data");
/// The same with a saved model and its own label map.
EvaluationStats evaluate(const LinearModel& model, ExampleSource& source, const std::string& source_name = "data");

}  // namespace adasketch
