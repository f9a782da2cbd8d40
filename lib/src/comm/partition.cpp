#include "adasketch/comm/partition.hpp"

#include <algorithm>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

BlockPartition::BlockPartition(index_t dim, int parts) : dim_(dim), parts_(parts), block_(1) {
  ADASKETCH_REQUIRE(dim >= 1, "dim = " + std::to_string(dim));
  ADASKETCH_REQUIRE(parts >= 1, "parts = " + std::to_string(parts));
  block_ = (dim + parts - 1) / parts;
}

BlockPartition::BlockPartition(index_t dim, int parts, index_t block_size)
    : dim_(dim), parts_(parts), block_(block_size) {
  ADASKETCH_REQUIRE(dim >= 1, "dim = " + std::to_string(dim));
  ADASKETCH_REQUIRE(parts >= 1, "parts = " + std::to_string(parts));
  ADASKETCH_REQUIRE(block_size >= 1 && block_size * parts >= dim,
                    "block_size = " + std::to_string(block_size) + ", parts = " + std::to_string(parts));
}

BlockPartition BlockPartition::interleaved(index_t k) const {
  ADASKETCH_REQUIRE(k >= 1, "k = " + std::to_string(k));
  return BlockPartition(dim_ * k, parts_, block_ * k);
}

index_t BlockPartition::begin(int part) const noexcept { return std::min(dim_, block_ * part); }
index_t BlockPartition::end(int part) const noexcept { return std::min(dim_, block_ * (part + 1)); }

}  // namespace adasketch
