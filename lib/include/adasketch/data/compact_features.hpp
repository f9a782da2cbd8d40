#pragma once
/// @file
/// Compact features: a learner over only the features its training data holds. Hashed and text
/// features pick d = 2²⁴ to 2³² and use a small, scattered part of it; a learner built for d keeps
/// d-sized state (weights, accumulators, sketch rows) that such data touches at scattered places, so
/// its memory and first-touch cost follow d. Numbering the features that occur consecutively and
/// training on that numbering gives the same learner, for every learner but CompAdaGrad (whose SRHT
/// mixes all of d): the other features' state stays zero, as their gradients are. Its memory then
/// follows the features seen (docs/design.md §3).
///
/// The compact numbering keeps the order of the original one: original feature f becomes the count
/// of listed features below f. Rank p keeps the listed features of its original block, so the
/// compact blocks are in rank order as the original ones are, and the numbering is the same at every
/// rank count.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch {

/// The original features a run keeps, each rank those of its original block.
class FeatureMap {
 public:
  /// Collective. `local_features`: this rank's features, ascending local indices of its block of
  /// `original` (one part per rank). Throws InvalidArgument, on every rank, when they are not or
  /// when no rank lists one.
  FeatureMap(const Communicator& comm, const BlockPartition& original, std::vector<index_t> local_features);

  /// Collective: one pass over `source` (then rewound); the features with a non-zero value in some
  /// example. Memory: O(the rank's distinct features + one batch of entries). Throws
  /// InputError(name, 0, ...), on every rank, when there is none.
  static FeatureMap scan(const Communicator& comm, ExampleSource& source, const std::string& name = "data");

  /// The original d.
  index_t original_dim() const noexcept { return original_.dim(); }
  /// The split of the original d features (one part per rank).
  const BlockPartition& original_partition() const noexcept { return original_; }
  /// The compact features, split as the original blocks: d is the number of features kept.
  const BlockPartition& partition() const noexcept { return partition_; }
  /// This rank's kept features, ascending local indices of its original block; compact local
  /// index c is local_features()[c].
  std::span<const index_t> local_features() const noexcept { return local_; }
  /// The compact local index of original local index j, or −1 when j is not kept: one probe of an
  /// open-addressing table on average (32 bytes a kept feature).
  index_t find(index_t j) const noexcept {
    for (std::size_t at = slot_of(j);; at = (at + 1) & mask_) {
      const Slot& s = table_[at];
      if (s.feature == j) return s.compact;
      if (s.feature < 0) return -1;
    }
  }

 private:
  struct Slot {
    index_t feature = -1;  ///< −1: empty
    index_t compact = -1;
  };
  std::size_t slot_of(index_t j) const noexcept {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(j) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  BlockPartition original_, partition_;
  std::vector<index_t> local_;
  std::vector<Slot> table_;  ///< local_[c] → c, linear probing, at most half full
  std::size_t mask_ = 0;
  int shift_ = 64;
};

/// Another source's examples on the compact features of a FeatureMap; entries on features the map
/// does not keep are dropped (a test set's features that the training data never had: their weights
/// are zero).
class CompactSource final : public ExampleSource {
 public:
  /// `inner` (not owned: it must outlive this source) must be split as map->original_partition().
  CompactSource(ExampleSource& inner, std::shared_ptr<const FeatureMap> map);

  index_t dim() const override { return map_->partition().dim(); }
  /// The split of the compact features (FeatureMap::partition).
  const BlockPartition& partition() const override { return map_->partition(); }
  bool next(Example& out) override;
  void rewind() override { inner_.rewind(); }
  index_t skip(index_t n) override { return inner_.skip(n); }
  /// The feature map.
  const std::shared_ptr<const FeatureMap>& map() const noexcept { return map_; }
  /// Entries this rank dropped so far.
  index_t dropped() const noexcept { return dropped_; }

 private:
  ExampleSource& inner_;
  std::shared_ptr<const FeatureMap> map_;
  Example original_;
  index_t dropped_ = 0;
};

}  // namespace adasketch
