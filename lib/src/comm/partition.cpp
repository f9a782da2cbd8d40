#include "adasketch/comm/partition.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

BlockPartition::BlockPartition(index_t dim, int parts) : dim_(dim), parts_(parts), block_(1) {
  ADASKETCH_REQUIRE(dim >= 1, "dim = " + number_text(dim));
  ADASKETCH_REQUIRE(parts >= 1, "parts = " + number_text(parts));
  block_ = dim / parts + (dim % parts != 0 ? 1 : 0);  // ceil(d/P) without overflow
}

BlockPartition::BlockPartition(index_t dim, int parts, index_t block_size)
    : dim_(dim), parts_(parts), block_(block_size) {
  ADASKETCH_REQUIRE(dim >= 1, "dim = " + number_text(dim));
  ADASKETCH_REQUIRE(parts >= 1, "parts = " + number_text(parts));
  ADASKETCH_REQUIRE(block_size >= 1 && block_size * parts >= dim,
                    "block_size = " + number_text(block_size) + ", parts = " + number_text(parts));
}

BlockPartition::BlockPartition(std::span<const index_t> sizes) : dim_(0), parts_(0), block_(0) {
  ADASKETCH_REQUIRE(!sizes.empty() && sizes.size() <= static_cast<std::size_t>(std::numeric_limits<int>::max()),
                    "sizes has " + number_text(sizes.size()) + " entries");
  auto offsets = std::make_shared<std::vector<index_t>>(sizes.size() + 1, 0);
  for (std::size_t p = 0; p < sizes.size(); ++p) {
    ADASKETCH_REQUIRE(sizes[p] >= 0 && sizes[p] <= std::numeric_limits<index_t>::max() - (*offsets)[p],
                      "sizes[" + number_text(p) + "] = " + number_text(sizes[p]));
    (*offsets)[p + 1] = (*offsets)[p] + sizes[p];
  }
  dim_ = offsets->back();
  ADASKETCH_REQUIRE(dim_ >= 1, "the sizes sum to d = 0");
  parts_ = static_cast<int>(sizes.size());
  offsets_ = std::move(offsets);
}

BlockPartition BlockPartition::from_local_sizes(const Communicator& comm, index_t local_size) {
  // Checked after the Allgather, so that every rank throws the same error (no rank left waiting).
  std::vector<index_t> sizes(static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const index_t>(&local_size, 1), sizes);
  return BlockPartition(sizes);
}

BlockPartition BlockPartition::interleaved(index_t k) const {
  ADASKETCH_REQUIRE(k >= 1 && dim_ <= std::numeric_limits<index_t>::max() / k,
                    "k = " + number_text(k) + ", d = " + number_text(dim_));
  if (is_uniform()) return BlockPartition(dim_ * k, parts_, block_ * k);
  std::vector<index_t> sizes(static_cast<std::size_t>(parts_));
  for (int p = 0; p < parts_; ++p) sizes[static_cast<std::size_t>(p)] = size(p) * k;
  return BlockPartition(sizes);
}

namespace {
// min(d, block·p) without overflow: block·p > d exactly when block > ⌊d/p⌋.
index_t clamped_product(index_t block, index_t p, index_t dim) noexcept { return p > 0 && block > dim / p ? dim : block * p; }
}  // namespace

index_t BlockPartition::begin(int part) const noexcept {
  return is_uniform() ? clamped_product(block_, part, dim_) : (*offsets_)[static_cast<std::size_t>(part)];
}

index_t BlockPartition::end(int part) const noexcept {
  return is_uniform() ? clamped_product(block_, index_t{part} + 1, dim_) : (*offsets_)[static_cast<std::size_t>(part) + 1];
}

void BlockPartition::require_parts_for(const Communicator& comm) const {
  ADASKETCH_REQUIRE(parts_ == comm.size(),
                    "the partition has " + number_text(parts_) + " parts for " + number_text(comm.size()) + " ranks");
}

int BlockPartition::owner(index_t j) const noexcept {
  if (is_uniform()) return static_cast<int>(j / block_);
  // The last part whose block starts at or before j (empty blocks start where the next one does).
  const auto it = std::upper_bound(offsets_->begin(), offsets_->end(), j);
  return static_cast<int>(it - offsets_->begin()) - 1;
}

bool BlockPartition::has_equal_blocks() const noexcept {
  if (is_uniform()) return true;
  const index_t b = size(0);
  bool equal = b >= 1;
  for (int p = 1; equal && p <= parts(); ++p)  // block p − 1 is [min(b(p−1), d), min(bp, d))
    equal = end(p - 1) == std::min(b * p, dim());
  return equal;
}

}  // namespace adasketch
