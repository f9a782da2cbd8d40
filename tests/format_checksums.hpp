#pragma once
// The checksums of the model and checkpoint files, written out again from docs/formats.md (not the
// library's code), so that tests and fuzz targets can reseal an edited file and reach the checks
// behind its checksums.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace adasketch::test {

/// splitmix64, as the checksums of docs/formats.md use it.
inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 64-bit FNV-1a of bytes [begin, end) of `data`.
inline std::uint64_t fnv1a(const void* data, std::size_t begin, std::size_t end) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = begin; i < end; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/// Σ_e splitmix64(word_e XOR splitmix64(e)) mod 2⁶⁴ over the `words` little-endian 8-byte words at `at`.
inline std::uint64_t word_checksum(const void* at, std::size_t words) {
  std::uint64_t sum = 0;
  for (std::size_t e = 0; e < words; ++e) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, static_cast<const unsigned char*>(at) + 8 * e, 8);
    sum += splitmix64(bits ^ splitmix64(e));
  }
  return sum;
}

}  // namespace adasketch::test
