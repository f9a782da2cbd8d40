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

}  // namespace

TrainingStats train(Learner& learner, ExampleSource& source, const LabelMap& labels, const TrainingOptions& options) {
  ADASKETCH_REQUIRE(options.passes >= 1, "passes = " + std::to_string(options.passes));
  ADASKETCH_REQUIRE(labels.fits(learner.loss()), "label map " + labels.describe() + " for loss " + learner.loss().name());
  require_same_partition(learner.partition(), source, learner.comm().rank());
  const auto start = Clock::now();
  auto last_report = start;
  index_t next_check = 1;
  TrainingStats stats;
  bool signs = true;  // every label ±1
  Example example;
  for (int pass = 1; pass <= options.passes; ++pass) {
    source.rewind();
    while (source.next(example)) {
      const double y = labels.apply(example.label, options.source_name, example.position);
      StepResult r;
      try {
        r = learner.step(example.row(), y);
      } catch (const NumericError& e) {  // e.g. a non-finite score: found on reduced values, so on every rank
        throw InputError(options.source_name, example.position, e.what());
      }
      stats.cumulative_loss += r.loss;
      stats.mistakes += r.mistake ? 1 : 0;
      signs = signs && (y == 1.0 || y == -1.0);
      ++stats.examples;
      if (options.progress && stats.examples >= next_check) {
        const auto now = Clock::now();
        const double elapsed = std::chrono::duration<double>(now - start).count();
        if (std::chrono::duration<double>(now - last_report).count() >= options.progress_interval) {
          last_report = now;
          options.progress({pass, stats.examples, stats.mistakes, stats.cumulative_loss, elapsed});
        }
        const double rate = static_cast<double>(stats.examples) / std::max(elapsed, 1e-9);
        next_check = stats.examples + std::max<index_t>(1, static_cast<index_t>(rate * options.progress_interval /
                                                                                 kChecksPerInterval));
      }
    }
  }
  stats.classified = learner.loss().is_classification() || signs;
  stats.seconds = learner.comm().allreduce_max(seconds_since(start));
  return stats;
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
