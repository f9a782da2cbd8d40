#include "hadamard.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <unordered_set>

#include "adasketch/error.hpp"
#include "adasketch/random/philox.hpp"

namespace adasketch::detail {

namespace {

// Philox streams of the SRHT's two random choices (counter-based: the row choice and the signs are
// functions of the seed and the index only).
constexpr std::uint64_t kRowStream = 0x5352'4854'524f'5753ull;   // "SRHTROWS"
constexpr std::uint64_t kSignStream = 0x5352'4854'5349'474eull;  // "SRHTSIGN"

// A uniform integer in [0, bound) for bound ≥ 1: 64 random bits, redrawn (next stream) in the rare
// case they fall in the incomplete last block, so there is no modulo bias.
std::uint64_t uniform_below(const Philox& rng, std::uint64_t counter, std::uint64_t bound) {
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % bound + 1) % bound;  // largest multiple − 1
  for (std::uint64_t attempt = 0;; ++attempt) {
    std::uint32_t w[4];
    rng.generate(kRowStream + attempt, counter, w);
    for (int half = 0; half < 2; ++half) {
      const std::uint64_t v = (static_cast<std::uint64_t>(w[2 * half]) << 32) | w[2 * half + 1];
      if (v <= limit) return v % bound;
    }
  }
}

// A uniformly random k-subset of [0, n), ascending (Floyd's algorithm: k draws, k-sized memory).
std::vector<std::uint64_t> draw_rows(const Philox& rng, std::uint64_t n, std::uint64_t k) {
  std::unordered_set<std::uint64_t> chosen;
  chosen.reserve(static_cast<std::size_t>(k));
  for (std::uint64_t i = n - k; i < n; ++i) {
    const std::uint64_t t = uniform_below(rng, i, i + 1);
    chosen.insert(chosen.contains(t) ? i : t);
  }
  std::vector<std::uint64_t> rows(chosen.begin(), chosen.end());
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

double walsh_sign(std::uint64_t c, std::uint64_t j) noexcept { return (std::popcount(c & j) & 1) ? -1.0 : 1.0; }

void fast_walsh_hadamard(std::span<double> v) noexcept {
  const std::size_t n = v.size();
  for (std::size_t h = 1; h < n; h *= 2)
    for (std::size_t i = 0; i < n; i += 2 * h)
      for (std::size_t j = i; j < i + h; ++j) {
        const double a = v[j], b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
}

index_t next_power_of_two(index_t n) {
  ADASKETCH_REQUIRE(n >= 1 && n <= (index_t{1} << 62), "n = " + number_text(n));
  return static_cast<index_t>(std::bit_ceil(static_cast<std::uint64_t>(n)));
}

Srht::Srht(index_t n, index_t k, std::uint64_t seed, std::span<const CoordinateRange> ranges)
    : n_(n), seed_(seed), ranges_(ranges.begin(), ranges.end()), scale_(1.0 / std::sqrt(static_cast<double>(n))) {
  ADASKETCH_REQUIRE(n >= 1 && std::has_single_bit(static_cast<std::uint64_t>(n)), "n = " + number_text(n));
  ADASKETCH_REQUIRE(k >= 0 && k <= n, "k = " + number_text(k) + ", n = " + number_text(n));
  const Philox rng(seed);
  rows_ = draw_rows(rng, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(k));
  index_t largest = 0;
  for (const CoordinateRange& r : ranges_) {
    ADASKETCH_REQUIRE(r.begin >= 0 && r.size >= 0 && r.begin + r.size <= n,
                      "range [" + number_text(r.begin) + ", " + number_text(r.begin + r.size) + ")");
    range_offsets_.push_back(local_size_);
    // Aligned dyadic pieces: from p, the largest 2^s that divides p and fits before the end.
    for (index_t p = r.begin, end = r.begin + r.size; p < end;) {
      index_t size = p == 0 ? n : index_t{1} << std::countr_zero(static_cast<std::uint64_t>(p));
      while (p + size > end) size /= 2;
      pieces_.push_back({p, size, local_size_ + (p - r.begin)});
      largest = std::max(largest, size);
      p += size;
    }
    local_size_ += r.size;
  }
  signs_.resize(sz(local_size_));
  for (index_t i = 0; i < local_size_; ++i) signs_[sz(i)] = sign(global(i));
  buffer_.resize(sz(largest));
}

double Srht::sign(index_t j) const noexcept {
  // 128 signs per Philox call: bit (j mod 128) of block j / 128.
  std::uint32_t w[4];
  Philox(seed_).generate(kSignStream, static_cast<std::uint64_t>(j) / 128, w);
  const unsigned bit = static_cast<unsigned>(j % 128);
  return (w[bit / 32] >> (bit % 32)) & 1u ? -1.0 : 1.0;
}

index_t Srht::global(index_t local) const noexcept {
  std::size_t r = 0;
  while (r + 1 < ranges_.size() && local >= range_offsets_[r + 1]) ++r;
  return ranges_[r].begin + (local - range_offsets_[r]);
}

void Srht::forward(std::span<const double> v, std::span<double> out) const {
  if (rows_.empty()) return;
  const index_t limit = static_cast<index_t>(v.size());
  for (const Piece& piece : pieces_) {
    if (piece.local + piece.size > limit) continue;  // past the given prefix: zero
    const std::span<double> buf(buffer_.data(), sz(piece.size));
    for (index_t i = 0; i < piece.size; ++i) buf[sz(i)] = signs_[sz(piece.local + i)] * v[sz(piece.local + i)];
    fast_walsh_hadamard(buf);
    const std::uint64_t mask = static_cast<std::uint64_t>(piece.size) - 1;
    const auto p = static_cast<std::uint64_t>(piece.begin);
    for (std::size_t a = 0; a < rows_.size(); ++a) out[a] += walsh_sign(rows_[a], p) * buf[rows_[a] & mask] * scale_;
  }
}

void Srht::forward_sparse(std::span<const index_t> local, std::span<const double> values, std::span<double> out) const {
  for (std::size_t i = 0; i < local.size(); ++i) {
    const auto j = static_cast<std::uint64_t>(global(local[i]));
    const double v = signs_[sz(local[i])] * values[i] * scale_;
    for (std::size_t a = 0; a < rows_.size(); ++a) out[a] += walsh_sign(rows_[a], j) * v;
  }
}

void Srht::transpose(std::span<const double> z, std::span<double> out) const {
  if (rows_.empty()) {
    std::fill(out.begin(), out.begin() + local_size_, 0.0);
    return;
  }
  for (const Piece& piece : pieces_) {
    // Π̃ᵀz on the piece: (σ_j/√n) Σ_a χ_{r_a}(p) χ_{r_a mod 2^s}(i) z_a, a transform of the z_a
    // gathered into the buckets r_a mod 2^s.
    const std::span<double> buf(buffer_.data(), sz(piece.size));
    std::fill(buf.begin(), buf.end(), 0.0);
    const std::uint64_t mask = static_cast<std::uint64_t>(piece.size) - 1;
    const auto p = static_cast<std::uint64_t>(piece.begin);
    for (std::size_t a = 0; a < rows_.size(); ++a) buf[rows_[a] & mask] += walsh_sign(rows_[a], p) * z[a];
    fast_walsh_hadamard(buf);
    for (index_t i = 0; i < piece.size; ++i) out[sz(piece.local + i)] = signs_[sz(piece.local + i)] * buf[sz(i)] * scale_;
  }
}

void Srht::gram(std::span<const double> w, std::span<double> out) const {
  // (Π̃ diag(w) Π̃ᵀ)_ab = (1/n) Σ_j χ_{r_a ⊕ r_b}(j) w_j (σ_j² = 1): the transform of w at r_a ⊕ r_b.
  if (rows_.empty()) return;
  const double scale2 = scale_ * scale_;
  for (const Piece& piece : pieces_) {
    const std::span<double> buf(buffer_.data(), sz(piece.size));
    std::copy_n(w.begin() + piece.local, piece.size, buf.begin());
    fast_walsh_hadamard(buf);
    const std::uint64_t mask = static_cast<std::uint64_t>(piece.size) - 1;
    const auto p = static_cast<std::uint64_t>(piece.begin);
    std::size_t e = 0;
    for (std::size_t a = 0; a < rows_.size(); ++a)
      for (std::size_t b = 0; b <= a; ++b, ++e) {
        const std::uint64_t c = rows_[a] ^ rows_[b];
        out[e] += walsh_sign(c, p) * buf[c & mask] * scale2;
      }
  }
}

}  // namespace adasketch::detail
