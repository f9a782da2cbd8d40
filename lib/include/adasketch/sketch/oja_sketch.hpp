#pragma once
/// @file
/// Oja's sketch (SON Alg. 3, eq. (4)): online eigenvector estimates V_t (orthonormal rows, started
/// from the data) and eigenvalue estimates Λ_t, S_t = (tΛ_t)^{1/2}V_t, with step sizes
/// Γ_t = diag(γ_1, …, γ_ℓ)/t. The update, the data start, and the dense (Cholesky QR) and sparse
/// (V = F Z, SON App. H) forms: docs/design.md §2, "The sketches' updates", and §6.
#include <vector>

#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

/// The options of OjaSketch.
struct OjaSketchOptions {
  index_t ell = 10;         ///< Sketch rows ℓ (≥ 1); requires ℓ ≤ d (orthonormal rows).
  /// Step scales: Γ_t = diag(γ_1, …, γ_ℓ)/t. Empty: every γ_i = 1 (Γ_t = I/t); one value: every
  /// row; ℓ values: one per row. Each γ_i in (0, 1], so that Λ_t stays a convex combination (≥ 0).
  std::vector<double> gamma{};
  /// Recompute the Gram of the stored rows exactly every this many steps; 0 means every ℓ steps
  /// (dense form), or every max(4ℓ, ⌈d/16⌉) steps (sparse form: the refresh, O(ℓ²d/P), then costs
  /// less per step than the sparse step's O(ℓ³)).
  index_t gram_refresh = 0;
  SketchForm form = SketchForm::dense;  ///< dense (V stored), or sparse (V = F Z, time independent of d)
  /// Sparse form: rebase when forming F·(Z x) could lose more than log10(max_growth) digits (≥ 1).
  double max_growth = 1e4;
};

/// Oja's sketch (make_sketch's oja).
class OjaSketch final : public Sketch {
 public:
  /// Local (no communication): V_0 starts empty and is set from the data. d features split uniformly
  /// over the ranks of comm, or as the caller's `partition`. Throws InvalidArgument unless
  /// 1 ≤ ℓ ≤ d, gamma has none, one or ℓ values in (0, 1], gram_refresh ≥ 0 and max_growth ≥ 1.
  ///@{
  OjaSketch(const Communicator& comm, index_t dim, const OjaSketchOptions& options);
  OjaSketch(const Communicator& comm, const BlockPartition& partition, const OjaSketchOptions& options);
  ///@}
  std::string name() const override { return "oja"; }
  void mix(std::span<const double> z, std::span<double> out) const override;
  void mix_transpose(std::span<const double> v, std::span<double> out) const override;
  /// Dense: always, since every insertion rewrites every row (V ← L⁻¹V'), and carrying lazy
  /// coefficients through it (c ← Lᵀc, update_coefficients) cancels terms of size γ_t‖ĝ‖²‖c‖ when
  /// L is ill-conditioned; the fold, O(ℓd/P), costs less than the step's O(ℓ²d/P). Sparse: a rebase.
  bool next_insert_restructures() const noexcept override { return form() == SketchForm::dense || rebase_pending_; }
  /// Dense: V_new = L⁻¹(V_old + q aᵀ): V_new z = L⁻¹(V_old z + q aᵀz); V_oldᵀc = V_newᵀ(Lᵀc) − (qᵀc) a.
  /// Sparse: Z_new = Z_old + δaᵀ: Z_new z = Z_old z + δ aᵀz; Z_oldᵀc = Z_newᵀc − (δᵀc) a.
  void update_product(std::span<double> zz, double az) const override;
  double update_coefficients(std::span<double> c, std::span<double> lazy, index_t stride) const override;
  /// Dense: K = I on the started rows (orthonormal after every step), 0 on the empty ones. Sparse:
  /// the K kept by rank-two updates.
  void apply_basis_gram(std::span<const double> c, std::span<double> out) const override;
  /// The options, with gram_refresh's 0 resolved to the refresh period in use.
  const OjaSketchOptions& options() const noexcept { return options_; }
  /// Current eigenvalue estimates Λ (ℓ entries).
  std::span<const double> eigenvalues() const noexcept { return lambda_; }
  /// Rows of V set so far by the data start (≤ ℓ); the others are zero.
  index_t started_rows() const noexcept { return started_; }
  /// The data start sets a row when ‖r‖² > kStartResidual·‖ĝ‖²: the new row's Cholesky pivot is
  /// then at least 2⁻²⁰ of ‖ĝ‖², so orthonormalizing it loses at most about three digits.
  static constexpr double kStartResidual = 0x1p-20;
  /// Sparse form: exact recomputations of K, and rebases, so far.
  ///@{
  index_t refreshes() const noexcept { return refreshes_; }
  index_t rebases() const noexcept override { return rebases_; }
  ///@}

 private:
  void do_insert(const LocalRow& a, std::span<const double> za, double aa) override;
  void add_state_fields(StateFields& fields) override;
  /// gamma: the diagonal of Γ_t.
  void insert_dense(const LocalRow& a, std::span<const double> za, double aa, std::span<const double> gamma);
  void insert_sparse(const LocalRow& a, std::span<const double> za, double aa, std::span<const double> gamma);
  /// Dense: V ← L⁻¹V with LLᵀ = basis_gram_ (local triangular solve), or LLᵀ = basis_gram_ + sI
  /// when Cholesky breaks down (returns true then).
  bool orthonormalize();
  /// Dense: orthonormalize() until the last pass is well conditioned; factor_ is their product.
  void orthonormalize_passes();
  /// Dense: the factor of the last pass shows κ(V')² > kOrthogonalityGrowth.
  bool ill_conditioned() const;
  /// The data start: when p = Vĝ (rows < started_) leaves ĝ a residual ‖r‖² = ‖ĝ‖² − ‖p‖² above
  /// kStartResidual·‖ĝ‖², sets row started_ of the stored basis to ĝ, ++started_, and returns true.
  bool starts_row(std::span<const double> p, double aa);
  /// Cholesky factor of a Gram whose rows ≥ started_ are zero: L of the leading block, I after it.
  void cholesky_started(std::vector<double>& gram) const;
  void refresh_basis_gram();
  /// Sparse: F ← L⁻¹F with LLᵀ = F K Fᵀ, and the growth check.
  void orthonormalize_factor();
  /// Sparse: Z ← FZ, then K exact and F = L⁻¹ (LLᵀ = K).
  void rebase();
  /// Z ← Z + v aᵀ on a's stored entries (Z[j, :] += a_j v).
  void add_rank_one(const LocalRow& a, std::span<const double> v);
  /// out = F z for a row-major lower triangular F.
  void mix_lower(std::span<const double> f, std::span<const double> z, std::span<double> out) const;

  OjaSketchOptions options_;
  std::vector<double> gamma_;       // γ_1, …, γ_ℓ
  bool uniform_gamma_ = true;       // every γ_i the same: Γ_t is scalar
  std::vector<double> step_gamma_;  // the diagonal of Γ_t of the current insertion
  index_t started_ = 0;  // rows of V set by the data start
  std::vector<double> lambda_, basis_gram_, q_;
  std::vector<double> start_product_;  // V ĝ (dense) or Z ĝ (sparse) with the data start's row
  std::vector<double> start_factor_;   // dense: L₁ of the data start's pass
  std::vector<double> factor_;  // dense: L of the last orthonormalization (row-major lower triangular)
  std::vector<double> accumulated_;  // dense: product of the factors of the passes of one step
  /// Dense: a pass whose factor shows κ² above this (orthogonality lost beyond about 16u) is repeated
  /// from a fresh Gram, at most kMaxExtraPasses times per step.
  static constexpr double kOrthogonalityGrowth = 16.0;
  static constexpr int kMaxExtraPasses = 4;
  // Sparse form: F (row-major, lower triangular), δ of the last insertion in q_, K in basis_gram_.
  std::vector<double> mixing_, scratch_, product_;
  std::vector<double> rebase_map_;  // F before the last rebase (Z_new = F Z_old)
  index_t since_refresh_ = 0, refreshes_ = 0, rebases_ = 0;
  bool rebase_pending_ = false;  // the growth check asks for a rebase at the next insertion
  bool last_rebased_ = false;    // the last insertion began with a rebase
};

}  // namespace adasketch
