#pragma once
// Block partition of d features over P ranks (docs/design.md §3).
#include "adasketch/types.hpp"

namespace adasketch {

/// Rank p owns the contiguous features [begin(p), end(p)). Blocks have size ceil(d/P) except the
/// trailing ones, which may be shorter or empty (P > d). This is exactly ScaLAPACK's 1×P
/// block-cyclic layout with block size ceil(d/P), so a rank's block can be handed to ScaLAPACK
/// without moving data.
class BlockPartition {
 public:
  /// Requires dim >= 1 and parts >= 1.
  BlockPartition(index_t dim, int parts);
  /// Explicit block size; requires block_size >= 1 and block_size * parts >= dim.
  BlockPartition(index_t dim, int parts, index_t block_size);

  /// The partition of d·K entries stored feature-major (feature j's K entries at j·K … j·K+K−1)
  /// that keeps each feature on its owner: block size K·block_size().
  BlockPartition interleaved(index_t k) const;

  index_t dim() const noexcept { return dim_; }
  int parts() const noexcept { return parts_; }
  index_t block_size() const noexcept { return block_; }
  index_t begin(int part) const noexcept;
  index_t end(int part) const noexcept;
  index_t size(int part) const noexcept { return end(part) - begin(part); }
  /// The rank that owns global feature j (0 <= j < dim).
  int owner(index_t j) const noexcept { return static_cast<int>(j / block_); }

 private:
  index_t dim_;
  int parts_;
  index_t block_;
};

}  // namespace adasketch
