#pragma once
/// @file
/// Where an online training run stands (train() starts from it; a checkpoint stores it).
#include "adasketch/types.hpp"

namespace adasketch {

/// Where a training run stands: enough to continue it exactly (a checkpoint stores it).
struct TrainingState {
  int pass = 1;            ///< the pass in progress, or the next one to begin (1-based)
  index_t position = 0;    ///< examples of that pass already stepped
  index_t examples = 0;    ///< examples stepped so far, over all passes
  index_t mistakes = 0;    ///< online mistakes so far
  double cumulative_loss = 0.0;  ///< Σ_t ℓ_t(w_t) so far
  bool signs = true;       ///< every label so far was ±1 (sign mistakes of a regression loss)
  double seconds = 0.0;    ///< training time so far (the calling rank's clock)
};

}  // namespace adasketch
