#pragma once
// `adasketch train --trace-every N`: the cumulative loss and online mistakes after every N examples
// and after the last, for regret curves (ADA-FD paper Fig. 1, ADA-GP/DP paper Figs. 1–2), as the
// report's "trace" array (docs/formats.md).
#include <vector>

#include "adasketch/training/online_training.hpp"
#include "cli_options.hpp"
#include "json_writer.hpp"

namespace adasketch::driver {

void add_trace_option(OptionParser& p);

/// The entries of a run, recorded on every rank (the values are the same on all) and written by rank 0.
struct TrainTrace {
  index_t every = 0;  ///< 0: no trace (the report's "trace" is null)
  std::vector<TrainingProgress> entries;

  /// Reads --trace-every and, when it is > 0, sets training.trace and training.trace_every to record here.
  void attach(const OptionParser& opts, TrainingOptions& training);
  /// The "trace" member: null, or [{"examples", "cumulative_loss", "online_mistakes"}, ...]
  /// (online_mistakes null unless classified).
  void write(JsonWriter& j, bool classified) const;
};

}  // namespace adasketch::driver
