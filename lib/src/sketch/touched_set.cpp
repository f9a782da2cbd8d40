#include "touched_set.hpp"

#include <algorithm>

namespace adasketch::detail {

TouchedSet::TouchedSet(index_t local_dim)
    : local_dim_(local_dim),
      bits_(static_cast<std::size_t>(local_dim / 64 + 1), 0),
      summary_(bits_.size() / 64 + 1, 0) {}

void TouchedSet::clear() noexcept {
  std::fill(bits_.begin(), bits_.end(), 0);
  std::fill(summary_.begin(), summary_.end(), 0);
  count_ = 0;
  all_ = false;
}

void TouchedSet::rebuild(std::span<const double> z, index_t row_length) {
  clear();
  const auto n = static_cast<std::size_t>(row_length);
  for (index_t j = 0; j < local_dim_; ++j) {
    const double* row = z.data() + static_cast<std::size_t>(j) * n;
    if (std::any_of(row, row + n, [](double v) { return v != 0.0; })) touch(j);
  }
}

}  // namespace adasketch::detail
