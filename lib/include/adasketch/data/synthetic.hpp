#pragma once
/// @file
/// The papers' synthetic data, generated identically for any rank count (counter-based randomness
/// indexed by global feature and example; to round-off). Both draw x = μ·1 + Q diag(s) z (+ g) with
/// z ~ N(0, I_r), Q a d×r matrix with orthonormal columns (Gaussian, orthonormalized; rows
/// block-partitioned like every d-vector) and, for the SON data only, g ~ N(0, I_d). Examples are
/// dense; position t is 1-based. Each next() makes one small Allreduce (the label). The sparse
/// generator (SparseClassificationOptions) draws sparse rows and communicates nothing.
#include <cstdint>
#include <memory>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch {

/// ADA-FD paper §4.1 / ADA-GP-DP paper §4.1: x ~ N(μ1, Σ), λ_j(Σ) = λ₀ j^{−α}, y = β*ᵀx with
/// β* Gaussian normalized to ‖β*‖ = 1.
struct LowRankRegressionOptions {
  index_t dim = 500;         ///< d ≥ 1
  index_t examples = 10000;  ///< T ≥ 1
  double lambda0 = 100.0;    ///< λ₀ > 0
  double decay = 2.0;        ///< α ≥ 0
  double mean = 1.0;         ///< μ
  /// r: number of leading eigen-directions of Σ generated (the rest of the spectrum is dropped);
  /// 0 means min(d, 500). λ_r/λ₀ = r^{−α} tells what is dropped.
  index_t rank = 0;
  std::uint64_t seed = 1;  ///< the seed of every random draw (Σ's basis, β*, the examples)
  /// Examples skipped: the stream is examples skip+1 .. skip+T of the seed's infinite sequence,
  /// from the same distribution (same Σ basis and β*), e.g. a test set after T training examples.
  index_t skip = 0;
};

/// SON §5.1: x ~ N(0, V diag(λ) Vᵀ), V a random orthonormal basis, λ = (1, …, 1, then d_ill
/// values 1 + (κ−1)i/d_ill, i = 1..d_ill, rising linearly to κ); y = sign(θᵀx) (+1 at 0), θ
/// Gaussian. Drawn as x = g + Q diag(λ_i − 1)^{1/2} z with Q d×d_ill (the same law, O(d·d_ill) work).
struct IllConditionedOptions {
  index_t dim = 100;         ///< d ≥ 1
  index_t examples = 10000;  ///< T ≥ 1
  double condition = 100.0;  ///< κ ≥ 1
  index_t ill_directions = 10;  ///< 0 <= d_ill <= d
  std::uint64_t seed = 1;    ///< the seed of every random draw (V, θ, the examples)
  index_t skip = 0;  ///< as LowRankRegressionOptions::skip
};

/// Sparse, text-like classification at any d (the regime of SON §4's sparse updates): example t
/// makes `nonzeros` draws of a feature rank k ∈ 1..d from a bounded power law P(k) ∝ k^{−zipf}
/// (continuous inverse CDF, floored; zipf = 0 is uniform), feature j = ((k − 1)·a) mod d with a ≈
/// 0.618·d coprime to d (so frequent features spread over every rank's block), and value
/// x_j = c_j/√nonzeros where c_j counts the draws of j (term frequencies). Labels ±1:
/// y = sign(θᵀx + noise·ε) (+1 at 0), θ_j ~ N(0, 1), ε ~ N(0, 1). Every rank draws the whole
/// support (O(nonzeros) per example, no communication) and keeps its own features.
struct SparseClassificationOptions {
  index_t dim = 1000000;      ///< d ≥ 1
  index_t examples = 100000;  ///< T ≥ 1
  index_t nonzeros = 20;  ///< draws per example, 1 ≤ nonzeros ≤ d (repeated draws merge)
  double zipf = 0.0;      ///< power-law exponent ≥ 0
  double noise = 0.0;     ///< label noise σ ≥ 0
  std::uint64_t seed = 1;  ///< the seed of every random draw (θ, the supports, ε)
  index_t skip = 0;  ///< as LowRankRegressionOptions::skip
};

/// Collective (the basis of Σ and β* are drawn and normalized across the ranks; each next() then
/// makes one Allreduce). The low-rank regression stream, d features split uniformly over comm.
/// Throws InvalidArgument for an option outside its range.
std::unique_ptr<ExampleSource> make_low_rank_regression(const Communicator& comm,
                                                        const LowRankRegressionOptions& options);
/// Collective (as make_low_rank_regression). The ill-conditioned classification stream of SON §5.1.
/// Throws InvalidArgument for an option outside its range.
std::unique_ptr<ExampleSource> make_ill_conditioned_classification(const Communicator& comm,
                                                                   const IllConditionedOptions& options);
/// The sparse classification stream; it communicates nothing (every rank draws each support). Throws
/// InvalidArgument for an option outside its range.
std::unique_ptr<ExampleSource> make_sparse_classification(const Communicator& comm,
                                                          const SparseClassificationOptions& options);

}  // namespace adasketch
