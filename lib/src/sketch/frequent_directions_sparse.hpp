#pragma once
// The sparse form's state of FrequentDirections (internal; the algorithm is described in
// adasketch/sketch/frequent_directions.hpp): the shrinks not yet applied to every column, and for each
// local feature the epoch its column and deferred weight are at.
#include <span>
#include <vector>

#include "adasketch/linalg/page_buffer.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "shrink_history.hpp"
#include "touched_set.hpp"

namespace adasketch {

struct FrequentDirections::SparseState {
  /// kept: the rows a shrink leaves (ℓ − 1); dim: the sketch's global dimension (sizes the history).
  SparseState(index_t rows, index_t kept, index_t local_dim, index_t dim);

  /// The epoch mark of local feature j: 0 when no row was ever written on it (its column is zero at
  /// every epoch), else 1 + the epoch its column (the stored row of Z) and deferred weight are at.
  double& mark(index_t j) noexcept { return feature.data()[2 * j]; }
  double mark(index_t j) const noexcept { return feature.data()[2 * j]; }
  /// Feature j's deferred weight: the folds w̄ += Zᵀc it has received and settle() has not handed on.
  double& deferred(index_t j) noexcept { return feature.data()[2 * j + 1]; }
  double deferred(index_t j) const noexcept { return feature.data()[2 * j + 1]; }

  /// Marks local feature j current (mark `now`, its first write registered) and returns the epoch
  /// its column and deferred weight must still be brought from, or −1 when they are current.
  index_t take_current(index_t j, double now) {
    const double m = mark(j);
    if (m == now) return -1;
    mark(j) = now;
    if (m != 0.0) return static_cast<index_t>(m) - 1;
    ++written;
    written_set.touch(j);
    return -1;
  }

  detail::ShrinkHistory history;
  PageBuffer feature;           ///< [mark, deferred weight] per local feature: zero pages until written
  detail::TouchedSet written_set;  ///< the local features with a non-zero mark
  std::vector<double> pending;  ///< c folded in the current epoch: q of the next shrink (R)
  std::vector<double> shrink;   ///< S of the last shrink, kept × R
  index_t written = 0;          ///< local features with a non-zero mark
  bool stale = false;           ///< a checkpoint reader may have replaced the state: rebuild before use
  mutable std::vector<double> column;  ///< a column brought up to date out of place (const readers)
};

}  // namespace adasketch
