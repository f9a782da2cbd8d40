#pragma once
// One example as seen by one rank: its label and the entries of its own feature block.
#include <vector>

#include "adasketch/sketch/local_row.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

struct Example {
  double label = 0.0;
  /// Sparse: ascending local indices (global − partition.begin(rank)) with their values.
  /// Dense: indices empty and values has one entry per local feature.
  bool dense = false;
  std::vector<index_t> indices;
  std::vector<double> values;
  /// 1-based position in the stream (the line number for LIBSVM text).
  index_t position = 0;

  LocalRow row() const noexcept {
    return dense ? LocalRow::dense(values) : LocalRow::sparse(indices, values);
  }
};

}  // namespace adasketch
