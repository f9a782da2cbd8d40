#pragma once
// Iteration over the local nonzeros of a LocalRow, shared by the learners' score and update loops.
#include <cstddef>

#include "adasketch/sketch/local_row.hpp"

namespace adasketch::detail {

/// Calls f(j, x_j) for each local feature j with a stored value (dense: every j with x_j ≠ 0).
template <class F>
void for_each_nonzero(const LocalRow& x, F&& f) {
  const auto values = x.values();
  if (x.is_dense()) {
    for (std::size_t j = 0; j < values.size(); ++j)
      if (values[j] != 0.0) f(j, values[j]);
  } else {
    const auto indices = x.indices();
    for (std::size_t i = 0; i < values.size(); ++i) f(static_cast<std::size_t>(indices[i]), values[i]);
  }
}

/// Starts loading base[j·stride] for each feature j of a sparse row (a hint; no effect on results).
/// At large d a sparse row's entries lie at random places of each d_p-sized array: asking for all of
/// them before the first use lets their cache misses overlap.
inline void prefetch_entries(const LocalRow& x, const double* base, std::size_t stride) noexcept {
  if (x.is_dense()) return;
  for (const index_t j : x.indices()) __builtin_prefetch(base + static_cast<std::size_t>(j) * stride);
}

}  // namespace adasketch::detail
