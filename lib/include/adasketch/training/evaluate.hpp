#pragma once
/// @file
/// Scoring a learner or a saved model on a data stream without updating it. Collective: every rank
/// calls evaluate() with its own source (same examples, own features).
#include <functional>
#include <span>
#include <string>

#include "adasketch/data/example_source.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/training/label_map.hpp"

namespace adasketch {

/// What evaluate() returns.
struct EvaluationStats {
  index_t examples = 0;    ///< examples scored
  index_t mistakes = 0;    ///< Loss::mistake over the examples
  /// 1 − mistakes/examples; NaN for a regression loss unless every label is ±1 (sign accuracy).
  double accuracy = 0.0;
  double mean_loss = 0.0;  ///< (1/n) Σ ℓ(Wᵀx, y)
  double seconds = 0.0;    ///< wall time of the evaluation, the slowest rank's
};

/// Called on every rank after each example, in stream order, with the rank's part of the example and
/// its scores Wᵀx (K of them; the same on every rank).
using ScoreSink = std::function<void(const LocalRow& x, std::span<const double> scores)>;

/// Scores every example of the source (after rewind()) with the learner's current weights, without
/// updating them, handing each example's scores to `sink` (if any). Errors as for train().
EvaluationStats evaluate(const Learner& learner, ExampleSource& source, const LabelMap& labels,
                         const std::string& source_name = "data", const ScoreSink& sink = {});
/// The same with a saved model and its own label map.
EvaluationStats evaluate(const LinearModel& model, ExampleSource& source, const std::string& source_name = "data",
                         const ScoreSink& sink = {});

}  // namespace adasketch
