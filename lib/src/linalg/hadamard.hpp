#pragma once
// The subsampled randomized Hadamard transform (SRHT) of CompAdaGrad (Mehta et al. 2016, §2 "SRHT
// specialization"), on vectors block-distributed over ranks (docs/design.md §3).
//
// Π̃ = R H Σ (k × n, n = 2^m): H the orthonormal Walsh–Hadamard matrix, H_cj = χ_c(j)/√n with
// χ_c(j) = (−1)^popcount(c & j) (Sylvester order), Σ = diag(σ) with i.i.d. Rademacher signs σ_j, and
// R the rows r_0 < … < r_{k−1}, a uniformly drawn k-subset of [0, n). Π̃Π̃ᵀ = I_k: Π̃ is the paper's
// unscaled transform (its Theorem 1; the scaled Π = √(n/k) Π̃ only rescales what it multiplies).
// Both R and σ are functions of the seed alone (Philox), so Π̃ does not depend on the rank count.
//
// A rank holds some contiguous ranges of the n coordinates, concatenated in its local order. Dense
// products go through the fast transform on aligned dyadic pieces [p, p + 2^s) of those ranges: since
// χ_c(p + i) = χ_c(p) χ_c(i) for i < 2^s, the piece's part of (Π̃v)_a is χ_{r_a}(p)·Ĥ(σv)[r_a mod 2^s]/√n
// with Ĥ the unnormalized transform of the piece (O(2^s·s)); a range splits into at most 2·log₂ n
// pieces, so a dense product costs O(L log L + k log n) for L local coordinates instead of O(k·L).
// Sparse vectors use the entries χ_{r_a}(j) directly: O(k·s) for s nonzeros (the paper's §4 point
// that the transform of a sparse vector need not cost O(n log n)).
#include <cstdint>
#include <span>
#include <vector>

#include "adasketch/types.hpp"

namespace adasketch::detail {

/// χ_c(j) = (−1)^popcount(c & j): entry (c, j) of the unnormalized n × n Walsh–Hadamard matrix.
double walsh_sign(std::uint64_t c, std::uint64_t j) noexcept;

/// In place, unnormalized: v ← Ĥ v, (Ĥv)_c = Σ_j χ_c(j) v_j; v.size() must be a power of two.
void fast_walsh_hadamard(std::span<double> v) noexcept;

/// The smallest power of two ≥ n (n ≥ 1, n ≤ 2^62).
index_t next_power_of_two(index_t n);

/// A range of global coordinates [begin, begin + size) held by the calling rank.
struct CoordinateRange {
  index_t begin = 0, size = 0;
};

class Srht {
 public:
  /// Π̃ for dimension n (a power of two) with k rows (0 ≤ k ≤ n), drawn from `seed`; `ranges` are
  /// the global coordinates this rank holds, in local order (total local_size()).
  Srht(index_t n, index_t k, std::uint64_t seed, std::span<const CoordinateRange> ranges);

  index_t dim() const noexcept { return n_; }
  index_t rows() const noexcept { return static_cast<index_t>(rows_.size()); }
  /// r_0 < … < r_{k−1}.
  std::span<const std::uint64_t> row_indices() const noexcept { return rows_; }
  /// σ_j for a global coordinate j (computed from the seed).
  double sign(index_t j) const noexcept;
  index_t local_size() const noexcept { return local_size_; }
  /// Local index → global coordinate.
  index_t global(index_t local) const noexcept;

  /// out[a] += Σ_{local j} Π̃_{a j} v_j. `v` covers the first v.size() local coordinates (a prefix of
  /// whole ranges); the others count as zero.
  void forward(std::span<const double> v, std::span<double> out) const;
  /// out[a] += Σ_i Π̃_{a j_i} values_i for local indices j_i (any order, no repeats needed).
  void forward_sparse(std::span<const index_t> local, std::span<const double> values, std::span<double> out) const;
  /// out = (Π̃ᵀ z) on the local coordinates (out.size() = local_size()).
  void transpose(std::span<const double> z, std::span<double> out) const;
  /// out[a(a+1)/2 + b] += Σ_{local j} Π̃_{a j} w_j Π̃_{b j} for b ≤ a: this rank's part of the packed
  /// lower triangle of Π̃ diag(w) Π̃ᵀ (k(k+1)/2 entries; w.size() = local_size()).
  void gram(std::span<const double> w, std::span<double> out) const;

 private:
  struct Piece {
    index_t begin;  ///< global start p, a multiple of size
    index_t size;   ///< 2^s
    index_t local;  ///< local offset of p
  };

  index_t n_;
  std::uint64_t seed_;
  std::vector<std::uint64_t> rows_;
  std::vector<CoordinateRange> ranges_;
  std::vector<index_t> range_offsets_;  ///< local offset of each range
  std::vector<Piece> pieces_;
  std::vector<double> signs_;           ///< σ on the local coordinates
  index_t local_size_ = 0;
  double scale_;                        ///< 1/√n
  mutable std::vector<double> buffer_;  ///< one piece
};

}  // namespace adasketch::detail
