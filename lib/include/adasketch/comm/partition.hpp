#pragma once
/// @file
/// Block partition of d features over P ranks (docs/design.md §3).
#include <memory>
#include <span>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// Rank p owns the contiguous features [begin(p), end(p)), in rank order. Two kinds:
///   uniform  blocks of size ceil(d/P) (or an explicit block size) except the trailing ones, which may
///            be shorter or empty (P > d): ScaLAPACK's 1×P block-cyclic layout, so a rank's block can
///            be handed to ScaLAPACK without moving data (the evaluation component needs this kind);
///   sizes    the caller's own decomposition: any block sizes ≥ 0 per rank.
class BlockPartition {
 public:
  /// Uniform. Requires dim >= 1 and parts >= 1 (else InvalidArgument).
  BlockPartition(index_t dim, int parts);
  /// Uniform with an explicit block size; requires block_size >= 1 and block_size * parts >= dim
  /// (else InvalidArgument).
  BlockPartition(index_t dim, int parts, index_t block_size);
  /// Rank p owns sizes[p] features (each ≥ 0, their sum d ≥ 1; else InvalidArgument).
  explicit BlockPartition(std::span<const index_t> sizes);
  /// Collective (one Allgather): every rank of comm passes the size of its own block.
  static BlockPartition from_local_sizes(const Communicator& comm, index_t local_size);

  /// The partition of d·K entries stored feature-major (feature j's K entries at j·K … j·K+K−1)
  /// that keeps each feature on its owner. Throws InvalidArgument unless k ≥ 1 (and d·K fits index_t).
  BlockPartition interleaved(index_t k) const;

  /// The number of features d.
  index_t dim() const noexcept { return dim_; }
  /// The number of parts (ranks) P.
  int parts() const noexcept { return parts_; }
  /// Whether the blocks are uniform (the first two constructors).
  bool is_uniform() const noexcept { return block_ > 0; }
  /// The uniform block size; 0 for a partition from sizes.
  index_t block_size() const noexcept { return block_; }
  /// Whether the blocks are those of a uniform partition with rank 0's block size b: rank p holds
  /// [min(p·b, d), min((p+1)·b, d)) (ScaLAPACK's 1-D block layout, which the exact learners need).
  bool has_equal_blocks() const noexcept;
  /// The first feature of `part` (0 ≤ part < parts()).
  index_t begin(int part) const noexcept;
  /// One past the last feature of `part`.
  index_t end(int part) const noexcept;
  /// The features of `part`: end(part) − begin(part), possibly 0.
  index_t size(int part) const noexcept { return end(part) - begin(part); }
  /// The rank that owns global feature j (0 <= j < dim).
  int owner(index_t j) const noexcept;
  /// Throws InvalidArgument unless there is one part per rank of `comm` (checked before any
  /// collective call, so every rank throws alike).
  void require_parts_for(const Communicator& comm) const;

 private:
  index_t dim_;
  int parts_;
  index_t block_;                                      ///< uniform: the block size; else 0
  std::shared_ptr<const std::vector<index_t>> offsets_;  ///< from sizes: parts + 1 offsets
};

}  // namespace adasketch
