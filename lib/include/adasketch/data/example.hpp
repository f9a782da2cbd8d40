#pragma once
/// @file
/// One example as seen by one rank: its label and the entries of its own feature block.
#include <vector>

#include "adasketch/sketch/local_row.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// One example on one rank (ExampleSource::next fills it, reusing its buffers).
struct Example {
  double label = 0.0;  ///< the label as the source holds it (raw: a LabelMap maps it for a loss)
  /// Sparse: ascending local indices (global − partition.begin(rank)) with their values.
  /// Dense: indices empty and values has one entry per local feature.
  bool dense = false;
  std::vector<index_t> indices;  ///< sparse: the ascending local indices; dense: empty
  std::vector<double> values;    ///< sparse: their values; dense: one per local feature
  /// 1-based position in the stream (the line number for LIBSVM text).
  index_t position = 0;

  /// The local row as a LocalRow view (valid while the example is not changed).
  LocalRow row() const noexcept {
    return dense ? LocalRow::dense(values) : LocalRow::sparse(indices, values);
  }
};

}  // namespace adasketch
