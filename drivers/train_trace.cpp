#include "train_trace.hpp"

#include <string>

#include "adasketch/error.hpp"

namespace adasketch::driver {

void add_trace_option(OptionParser& p) {
  p.optional("trace-every", OptionType::Integer, "N", "0",
             "put the cumulative loss and online mistakes after every N examples and after the last into the "
             "--report's \"trace\" array (regret curves); 0: none");
}

void TrainTrace::attach(const OptionParser& opts, TrainingOptions& training) {
  every = opts.integer("trace-every");
  if (every < 0) throw InvalidArgument("option --trace-every: must be ≥ 0, got " + opts.text("trace-every"));
  if (every == 0) return;
  training.trace_every = every;
  training.trace = [this](const TrainingProgress& p) { entries.push_back(p); };
}

void TrainTrace::write(JsonWriter& j, bool classified) const {
  j.key("trace");
  if (every == 0) {
    j.null();
    return;
  }
  j.begin_array();
  for (const TrainingProgress& p : entries) {
    j.begin_object();
    j.member("examples", p.examples);
    j.member("cumulative_loss", p.cumulative_loss);
    j.key("online_mistakes");
    classified ? j.value(p.mistakes) : j.null();
    j.end_object();
  }
  j.end_array();
}

}  // namespace adasketch::driver
