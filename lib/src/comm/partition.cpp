#include "adasketch/comm/partition.hpp"

#include <limits>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

BlockPartition::BlockPartition(index_t dim, int parts) : dim_(dim), parts_(parts), block_(1) {
  ADASKETCH_REQUIRE(dim >= 1, "dim = " + std::to_string(dim));
  ADASKETCH_REQUIRE(parts >= 1, "parts = " + std::to_string(parts));
  block_ = dim / parts + (dim % parts != 0 ? 1 : 0);  // ceil(d/P) without overflow
}

BlockPartition::BlockPartition(index_t dim, int parts, index_t block_size)
    : dim_(dim), parts_(parts), block_(block_size) {
  ADASKETCH_REQUIRE(dim >= 1, "dim = " + std::to_string(dim));
  ADASKETCH_REQUIRE(parts >= 1, "parts = " + std::to_string(parts));
  ADASKETCH_REQUIRE(block_size >= 1 && block_size * parts >= dim,
                    "block_size = " + std::to_string(block_size) + ", parts = " + std::to_string(parts));
}

BlockPartition BlockPartition::interleaved(index_t k) const {
  ADASKETCH_REQUIRE(k >= 1 && dim_ <= std::numeric_limits<index_t>::max() / k,
                    "k = " + std::to_string(k) + ", d = " + std::to_string(dim_));
  return BlockPartition(dim_ * k, parts_, block_ * k);
}

namespace {
// min(d, block·p) without overflow: block·p > d exactly when block > ⌊d/p⌋.
index_t clamped_product(index_t block, index_t p, index_t dim) noexcept { return p > 0 && block > dim / p ? dim : block * p; }
}  // namespace

index_t BlockPartition::begin(int part) const noexcept { return clamped_product(block_, part, dim_); }
index_t BlockPartition::end(int part) const noexcept { return clamped_product(block_, index_t{part} + 1, dim_); }

}  // namespace adasketch
