#pragma once
// Starts loading a feature's row of a feature-major block (n doubles, every cache line of it): a hint
// with no effect on results. Callers ask for many scattered rows before using the first, so that
// their cache misses overlap instead of following one another. Inline: a compiler may drop a call to
// a function that only prefetches.
#include "adasketch/types.hpp"

namespace adasketch::detail {

/// kWrite: the row is about to be written (1) or only read (0).
template <int kWrite = 0>
inline void prefetch_row(const double* row, index_t n) noexcept {
  constexpr index_t kLine = 64 / sizeof(double);
  for (index_t k = 0; k < n; k += kLine) __builtin_prefetch(row + k, kWrite);
  __builtin_prefetch(row + n - 1, kWrite);
}

}  // namespace adasketch::detail
