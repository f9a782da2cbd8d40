#include "adasketch/sketch/local_row.hpp"

#include <algorithm>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

double LocalRow::local_norm2() const noexcept {
  double s = 0.0;
  for (double v : values_) s += v * v;
  return s;
}

RowSlicer::RowSlicer(const BlockPartition& partition, int rank)
    : partition_(partition), begin_(partition.begin(rank)), end_(partition.end(rank)) {
  ADASKETCH_REQUIRE(rank >= 0 && rank < partition.parts(), "rank = " + number_text(rank));
}

LocalRow RowSlicer::dense(std::span<const double> global_row) const {
  ADASKETCH_REQUIRE(global_row.size() == static_cast<std::size_t>(partition_.dim()),
                    "global row of " + number_text(global_row.size()) + " values, d = " + number_text(partition_.dim()));
  return LocalRow::dense(global_row.subspan(static_cast<std::size_t>(begin_), static_cast<std::size_t>(end_ - begin_)));
}

LocalRow RowSlicer::sparse(std::span<const index_t> global_indices, std::span<const double> values) {
  ADASKETCH_REQUIRE(global_indices.size() == values.size(), number_text(global_indices.size()) + " indices, " +
                                                                number_text(values.size()) + " values");
  for (std::size_t n = 0; n < global_indices.size(); ++n) {
    const index_t j = global_indices[n];
    ADASKETCH_REQUIRE(j >= 0 && j < partition_.dim() && (n == 0 || j > global_indices[n - 1]),
                      "global index " + number_text(j) + " at entry " + number_text(n) +
                          " (expected ascending indices in [0, d = " + number_text(partition_.dim()) + "))");
  }
  const auto first = std::lower_bound(global_indices.begin(), global_indices.end(), begin_);
  const auto last = std::lower_bound(first, global_indices.end(), end_);
  const auto offset = static_cast<std::size_t>(first - global_indices.begin());
  local_.resize(static_cast<std::size_t>(last - first));
  std::transform(first, last, local_.begin(), [&](index_t j) { return j - begin_; });
  return LocalRow::sparse(local_, values.subspan(offset, local_.size()));
}

}  // namespace adasketch
