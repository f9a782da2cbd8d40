#pragma once
// Shared by train() and evaluate() (internal).
#include <chrono>
#include <string>

#include "adasketch/comm/partition.hpp"
#include "adasketch/data/example_source.hpp"
#include "adasketch/error.hpp"

namespace adasketch::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// Throws InvalidArgument when the source's features are split differently from the model's.
inline void require_same_partition(const BlockPartition& model, const ExampleSource& source, int rank) {
  const BlockPartition& data = source.partition();
  if (data.dim() != model.dim() || data.begin(rank) != model.begin(rank) || data.end(rank) != model.end(rank))
    throw InvalidArgument("the data has d = " + number_text(data.dim()) + " features partitioned as [" +
                          number_text(data.begin(rank)) + ", " + number_text(data.end(rank)) +
                          ") on this rank, the model d = " + number_text(model.dim()) + " as [" +
                          number_text(model.begin(rank)) + ", " + number_text(model.end(rank)) + ")");
}

}  // namespace adasketch::detail
