#pragma once
/// @file
/// Counter-based random numbers (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
/// SC'11: Philox4x32-10). There is no hidden state: a value is a pure function of
/// (seed, stream, counter), so a result does not depend on which rank draws it.
#include <cstdint>

namespace adasketch {

/// Explicit RNG state: a seed. Streams and counters are passed at each draw.
class Philox {
 public:
  /// The generator of `seed` (any value).
  explicit Philox(std::uint64_t seed) noexcept : seed_(seed) {}
  /// The seed.
  std::uint64_t seed() const noexcept { return seed_; }

  /// Four independent 32-bit words for the 128-bit counter (stream, counter).
  void generate(std::uint64_t stream, std::uint64_t counter, std::uint32_t out[4]) const noexcept;
  /// Uniform in the open interval (0, 1).
  double uniform(std::uint64_t stream, std::uint64_t counter) const noexcept;
  /// Standard normal N(0, 1) (Box–Muller on one counter).
  double normal(std::uint64_t stream, std::uint64_t counter) const noexcept;

 private:
  std::uint64_t seed_;
};

}  // namespace adasketch
