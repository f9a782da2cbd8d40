#pragma once
// When the training loop checkpoints and stops (internal).
#include "adasketch/comm/communicator.hpp"
#include "adasketch/training/online_training.hpp"
#include "training_support.hpp"

namespace adasketch::detail {

// The collective decisions of the loop (see adasketch/training/online_training.hpp): checkpoints by
// example count, by rank 0's clock, and stop requests, all taken after the same example on every rank.
class CheckpointPolicy {
 public:
  CheckpointPolicy(const Communicator& comm, const TrainingOptions& o, Clock::time_point start, index_t first_example);

  struct Decision {
    bool checkpoint = false, stop = false;
  };

  /// After the example that brought the run to `examples` steps.
  Decision after(index_t examples);

 private:
  const Communicator& comm_;
  const TrainingOptions& options_;
  Clock::time_point start_, last_checkpoint_;
  index_t first_example_;
  bool polling_;
  index_t next_poll_;
};

}  // namespace adasketch::detail
