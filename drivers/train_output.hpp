#pragma once
// What `adasketch train` prints (rank 0, stdout) and writes to --report.
#include <optional>
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/training/evaluate.hpp"
#include "adasketch/training/online_training.hpp"
#include "cli_options.hpp"
#include "data_input.hpp"
#include "train_trace.hpp"

namespace adasketch::driver {

struct TrainResults {
  std::string format;
  index_t dim = 0, rows = 0;
  index_t seen_features = 0;  ///< with --features seen: the features the learner has (the training data's); else 0
  int classes = 1;
  std::string label_map;
  std::string resumed;  ///< with --resume: where the run continues from (a line of the header)
  FormChoice form = FormChoice::automatic;  ///< the sketch form the learner took, or automatic (no sketch)
  TrainingStats train;
  std::optional<ParseThroughput> parse;  ///< the training data's reader (LIBSVM)
  bool tested = false;
  std::string test_format;
  EvaluationStats test;
  double wall_seconds = 0.0;
  index_t weights = 0, nonzero_weights = 0;  ///< d·K, and how many of the final weights are not 0 (ℓ1 makes zeros)
  TrainingState saved;  ///< the last checkpoint's state (a run stopped by a signal: where its final one is)
  TrainTrace trace;  ///< --trace-every
};

void print_header(const OptionParser& opts, const Communicator& comm, const Learner& learner, const TrainResults& r);
void print_progress(const TrainingProgress& p, index_t total, int passes, bool classification);
void print_summary(const OptionParser& opts, const TrainResults& r);
/// --auto: the race's candidates, their online scores and the one chosen (nothing without --auto).
void print_auto(const Learner& learner);
std::string report_json(const OptionParser& opts, const Communicator& comm, const Learner& learner, const TrainResults& r);

}  // namespace adasketch::driver
