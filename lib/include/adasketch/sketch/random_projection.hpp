#pragma once
/// @file
/// Gaussian random-projection sketch: S ← S + r_t a_tᵀ with r_t ∈ R^ℓ i.i.d. N(0, 1/ℓ)
/// (ADA-GP/DP paper §3; SON App. E Alg. 6), so E[SᵀS] = AᵀA. S is stored as is (M = I) in both forms:
/// an insertion touches a's nonzeros only and the Gram takes a rank-two update (SON App. G.1, Alg. 7);
/// the forms differ in how often the Gram is recomputed exactly (O(ℓ²d/P), one ℓ×ℓ Allreduce).
#include "adasketch/random/philox.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

/// The options of RandomProjection.
struct RandomProjectionOptions {
  index_t ell = 10;         ///< Sketch rows ℓ (≥ 1).
  std::uint64_t seed = 1;   ///< r_t[i] is drawn from counter (t, i) of this seed: rank-independent.
  /// Recompute the Gram exactly (one ℓ×ℓ Allreduce) every this many insertions to stop round-off
  /// drift of the rank-2 updates; 0 means every ℓ insertions (dense form, whose insertion already
  /// costs O(ℓd/P)) or every max(4ℓ, ⌈d/16⌉) insertions (sparse form: then the refresh costs less
  /// per step than the sparse step's O(ℓ²)).
  index_t gram_refresh = 0;
  SketchForm form = SketchForm::dense;  ///< dense, or sparse (a touched-feature set; time independent of d)
};

/// The Gaussian random projection (make_sketch's rp).
class RandomProjection final : public Sketch {
 public:
  /// Local (no communication). d features split uniformly over the ranks of comm, or as the caller's
  /// `partition`. Throws InvalidArgument unless ℓ ≥ 1 and gram_refresh ≥ 0.
  ///@{
  RandomProjection(const Communicator& comm, index_t dim, const RandomProjectionOptions& options);
  RandomProjection(const Communicator& comm, const BlockPartition& partition, const RandomProjectionOptions& options);
  ///@}
  std::string name() const override { return "rp"; }
  /// Y_new = Y_old + r aᵀ: Y_new z = Y_old z + r (aᵀz); Y_oldᵀc = Y_newᵀc − (rᵀc) a.
  void update_product(std::span<double> yz, double az) const override;
  double update_coefficients(std::span<double> c, std::span<double> lazy, index_t stride) const override;
  /// K = SSᵀ, the Gram (Z = S in both forms).
  void apply_basis_gram(std::span<const double> c, std::span<double> out) const override;
  /// The options, with gram_refresh's 0 resolved to the refresh period in use.
  const RandomProjectionOptions& options() const noexcept { return options_; }

 private:
  void do_insert(const LocalRow& a, std::span<const double> ya, double aa) override;
  void add_state_fields(StateFields& fields) override;

  RandomProjectionOptions options_;
  Philox rng_;
  std::vector<double> r_;
};

}  // namespace adasketch
