#include "adasketch/random/philox.hpp"

#include <cmath>
#include <numbers>

namespace adasketch {

namespace {
// Philox4x32 constants (Salmon et al. 2011, Table 2).
constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

inline void mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
}

// 53 random bits to a double strictly inside (0, 1).
inline double to_open_unit(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = ((static_cast<std::uint64_t>(hi) << 32) | lo) >> 11;
  return (static_cast<double>(bits) + 0.5) * 0x1.0p-53;
}
}  // namespace

void Philox::generate(std::uint64_t stream, std::uint64_t counter, std::uint32_t out[4]) const noexcept {
  std::uint32_t c[4] = {static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32),
                        static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)};
  std::uint32_t k[2] = {static_cast<std::uint32_t>(seed_), static_cast<std::uint32_t>(seed_ >> 32)};
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kMul0, c[0], hi0, lo0);
    mulhilo(kMul1, c[2], hi1, lo1);
    const std::uint32_t n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
    k[0] += kWeyl0;
    k[1] += kWeyl1;
  }
  for (int i = 0; i < 4; ++i) out[i] = c[i];
}

double Philox::uniform(std::uint64_t stream, std::uint64_t counter) const noexcept {
  std::uint32_t w[4];
  generate(stream, counter, w);
  return to_open_unit(w[0], w[1]);
}

double Philox::normal(std::uint64_t stream, std::uint64_t counter) const noexcept {
  std::uint32_t w[4];
  generate(stream, counter, w);
  const double u1 = to_open_unit(w[0], w[1]), u2 = to_open_unit(w[2], w[3]);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace adasketch
