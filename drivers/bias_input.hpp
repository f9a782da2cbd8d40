#pragma once
// --bias B for the subcommands: the data with LIBLINEAR's constant feature appended (B > 0).
#include <optional>

#include "adasketch/data/bias_source.hpp"

namespace adasketch::driver {

/// `source` with the bias feature appended when bias > 0 (the wrapper is held in `holder`), else
/// `source` itself.
inline ExampleSource& with_bias(ExampleSource& source, double bias, int rank, std::optional<BiasSource>& holder) {
  if (bias <= 0.0) return source;
  holder.emplace(source, bias, rank);
  return *holder;
}

}  // namespace adasketch::driver
