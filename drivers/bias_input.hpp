#pragma once
// --bias B for the subcommands: the data with LIBLINEAR's constant feature appended (B > 0).
#include <optional>

#include "adasketch/data/bias_source.hpp"

namespace adasketch::driver {

/// `source` with the bias feature appended when bias > 0 (the wrapper is held in `holder`), else
/// `source` itself; split as `partition` if given, else as with_bias_feature.
inline ExampleSource& with_bias(const Communicator& comm, ExampleSource& source, double bias,
                                std::optional<BiasSource>& holder, const BlockPartition* partition = nullptr) {
  if (bias <= 0.0) return source;
  if (partition != nullptr)
    holder.emplace(comm, source, bias, *partition);
  else
    holder.emplace(comm, source, bias);
  return *holder;
}

}  // namespace adasketch::driver
