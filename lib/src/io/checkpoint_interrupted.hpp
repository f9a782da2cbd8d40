#pragma once
// save_checkpoint with a pause before the rename (internal; the crash tests of the drivers use it).
#include <functional>
#include <string>

#include "adasketch/io/checkpoint.hpp"

namespace adasketch::detail {

/// save_checkpoint, calling `before_rename` (when set) on every rank once FILE.tmp is complete and
/// synced, before it replaces FILE: a crash there must leave FILE intact.
void save_checkpoint_interrupted(const std::string& path, Learner& learner, const CheckpointRun& run,
                                 const std::function<void()>& before_rename);

}  // namespace adasketch::detail
