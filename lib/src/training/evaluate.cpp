#include "adasketch/training/evaluate.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "adasketch/error.hpp"
#include "training_support.hpp"

namespace adasketch {

namespace {

using detail::Clock;
using detail::seconds_since;

template <class Predict>
EvaluationStats evaluate_with(const Loss& loss, const LabelMap& labels, ExampleSource& source,
                              const std::string& source_name, const ScoreSink& sink, Predict&& predict) {
  const auto start = Clock::now();
  std::vector<double> scores(static_cast<std::size_t>(loss.outputs()));
  EvaluationStats stats;
  double total_loss = 0.0;
  bool signs = true;  // every label ±1
  Example example;
  source.rewind();
  while (source.next(example)) {
    const double y = labels.apply(example.label, source_name, example.position);
    const LocalRow x = example.row();
    predict(x, scores);
    for (double s : scores)
      if (!std::isfinite(s))
        throw InputError(source_name, example.position, "the score Wᵀx is not finite (non-finite input values?)");
    if (sink) sink(x, scores);
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

}  // namespace

EvaluationStats evaluate(const Learner& learner, ExampleSource& source, const LabelMap& labels,
                         const std::string& source_name, const ScoreSink& sink) {
  ADASKETCH_REQUIRE(labels.fits(learner.loss()), "label map " + labels.describe() + " for loss " + learner.loss().name());
  detail::require_same_partition(learner.partition(), source, learner.comm().rank());
  EvaluationStats stats = evaluate_with(learner.loss(), labels, source, source_name, sink,
                                        [&](const LocalRow& x, std::span<double> s) { learner.predict(x, s); });
  stats.seconds = learner.comm().allreduce_max(stats.seconds);
  return stats;
}

EvaluationStats evaluate(const LinearModel& model, ExampleSource& source, const std::string& source_name,
                         const ScoreSink& sink) {
  detail::require_same_partition(model.partition(), source, model.comm().rank());
  EvaluationStats stats = evaluate_with(model.loss(), model.labels(), source, source_name, sink,
                                        [&](const LocalRow& x, std::span<double> s) { model.predict(x, s); });
  stats.seconds = model.comm().allreduce_max(stats.seconds);
  return stats;
}

}  // namespace adasketch
