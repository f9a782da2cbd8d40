#pragma once
// The checks of a rank's slice of an example (sketched AdaGrad, CompAdaGrad, the exact learners), and
// the slice as a dense local vector for the exact learners, which hand whole vectors to ScaLAPACK. A
// malformed slice is seen by its rank only: the exact learners put slice_ok() into the step's
// Allreduce and throw on every rank together (bad_slice_message on the rank that has it).
#include <span>
#include <string>

#include "adasketch/number_text.hpp"
#include "adasketch/sketch/local_row.hpp"

namespace adasketch::detail {

/// Whether x is a slice of `local_dim` features: a dense row of local_dim values, or a sparse row
/// with as many values as ascending local indices in [0, local_dim).
inline bool slice_ok(const LocalRow& x, index_t local_dim) noexcept {
  if (x.is_dense()) return static_cast<index_t>(x.values().size()) == local_dim;
  const auto idx = x.indices();
  if (idx.size() != x.values().size()) return false;
  index_t previous = -1;
  for (const index_t j : idx) {
    if (j <= previous || j >= local_dim) return false;
    previous = j;
  }
  return true;
}

/// What is wrong with a slice (slice_ok false here; empty when this rank's slice is fine).
inline std::string bad_slice_message(const LocalRow& x, index_t local_dim) {
  if (slice_ok(x, local_dim)) return "another rank's slice of the example is malformed";
  if (x.is_dense())
    return "dense row has " + number_text(x.values().size()) + " local entries, expected " + number_text(local_dim);
  if (x.indices().size() != x.values().size())
    return "sparse row has " + number_text(x.indices().size()) + " indices and " + number_text(x.values().size()) +
           " values";
  return "sparse row indices must be ascending local indices in [0, " + number_text(local_dim) + ")";
}

/// out = x as a dense slice of out.size() features (zero when x is not a valid slice).
inline void densify(const LocalRow& x, std::span<double> out) noexcept {
  for (double& e : out) e = 0.0;
  if (!slice_ok(x, static_cast<index_t>(out.size()))) return;
  const auto v = x.values();
  if (x.is_dense()) {
    for (std::size_t j = 0; j < v.size(); ++j) out[j] = v[j];
    return;
  }
  const auto idx = x.indices();
  for (std::size_t n = 0; n < idx.size(); ++n) out[static_cast<std::size_t>(idx[n])] = v[n];
}

}  // namespace adasketch::detail
