#pragma once
/// @file
/// A row (an example or a gradient) restricted to the calling rank's block of features (LocalRow),
/// and RowSlicer, which cuts it out of a whole row.
#include <span>
#include <vector>

#include "adasketch/comm/partition.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// Either dense (values has one entry per local feature) or sparse (ascending local indices in
/// [0, local_dim) with their values). Views only: the caller owns the memory.
class LocalRow {
 public:
  /// A dense slice: values[j] is local feature j (one value per local feature; not checked here).
  static LocalRow dense(std::span<const double> values) noexcept { return LocalRow(values, {}, true); }
  /// A sparse slice: values[n] at local index indices[n] (ascending, in [0, local_dim), as many as
  /// values; not checked here).
  static LocalRow sparse(std::span<const index_t> indices, std::span<const double> values) noexcept {
    return LocalRow(values, indices, false);
  }

  /// Whether the row is dense (else sparse).
  bool is_dense() const noexcept { return dense_; }
  /// The values: one per local feature (dense), or one per index (sparse).
  std::span<const double> values() const noexcept { return values_; }
  /// The ascending local indices of a sparse row; empty for a dense one.
  std::span<const index_t> indices() const noexcept { return indices_; }
  /// Sum of squares of the local entries (the caller reduces it over ranks).
  double local_norm2() const noexcept;

 private:
  LocalRow(std::span<const double> v, std::span<const index_t> i, bool dense) noexcept
      : values_(v), indices_(i), dense_(dense) {}
  std::span<const double> values_;
  std::span<const index_t> indices_;
  bool dense_;
};

/// Cuts the calling rank's LocalRow out of a global row (all d values, or ascending global indices),
/// for a caller that holds whole rows. Keeps the sparse slice's local indices, so the LocalRow it
/// returns is valid until its next call (and while the caller's row lives).
class RowSlicer {
 public:
  /// Slices for `rank`'s block of `partition`. Local; throws InvalidArgument unless
  /// 0 ≤ rank < partition.parts().
  RowSlicer(const BlockPartition& partition, int rank);
  /// Dense: global_row.size() must be d (else InvalidArgument); the view is global_row[begin, end).
  LocalRow dense(std::span<const double> global_row) const;
  /// Sparse: ascending global indices in [0, d) with their values (checked: InvalidArgument); the
  /// entries in [begin, end), at local indices.
  LocalRow sparse(std::span<const index_t> global_indices, std::span<const double> values);

 private:
  BlockPartition partition_;
  index_t begin_, end_;
  std::vector<index_t> local_;
};

}  // namespace adasketch
