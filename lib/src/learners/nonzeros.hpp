#pragma once
// Iteration over the local nonzeros of a LocalRow, and dot and axpy products with it, shared by the
// learners' score and update loops.
#include <cblas.h>

#include <cstddef>
#include <span>

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

/// uᵀx on this rank's entries of x.
inline double local_dot(std::span<const double> u, const LocalRow& x) noexcept {
  const auto v = x.values();
  if (x.is_dense()) {
    if (v.empty()) return 0.0;
    return cblas_ddot(static_cast<int>(v.size()), u.data(), 1, v.data(), 1);
  }
  const auto idx = x.indices();
  double s = 0.0;
  for (std::size_t n = 0; n < idx.size(); ++n) s += u[static_cast<std::size_t>(idx[n])] * v[n];
  return s;
}

/// out += a·x on this rank's entries of x.
inline void add_scaled(const LocalRow& x, double a, std::span<double> out) noexcept {
  if (a == 0.0) return;
  const auto v = x.values();
  if (x.is_dense()) {
    if (!v.empty()) cblas_daxpy(static_cast<int>(v.size()), a, v.data(), 1, out.data(), 1);
    return;
  }
  const auto idx = x.indices();
  for (std::size_t n = 0; n < idx.size(); ++n) out[static_cast<std::size_t>(idx[n])] += a * v[n];
}

}  // namespace adasketch::detail
