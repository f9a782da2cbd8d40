#include "checkpoint_policy.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch::detail {

CheckpointPolicy::CheckpointPolicy(const Communicator& comm, const TrainingOptions& o, Clock::time_point start, index_t first_example)
    : comm_(comm), options_(o), start_(start), last_checkpoint_(start), first_example_(first_example),
      polling_(o.stop_requested || o.checkpoint_seconds > 0.0), next_poll_(first_example + 1) {
  ADASKETCH_REQUIRE(o.checkpoint_every >= 0, "checkpoint_every = " + number_text(o.checkpoint_every));
  ADASKETCH_REQUIRE(o.checkpoint_seconds >= 0.0, "checkpoint_seconds = " + number_text(o.checkpoint_seconds));
  ADASKETCH_REQUIRE(o.poll_interval > 0.0, "poll_interval = " + number_text(o.poll_interval));
}

CheckpointPolicy::Decision CheckpointPolicy::after(index_t examples) {
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

}  // namespace adasketch::detail
