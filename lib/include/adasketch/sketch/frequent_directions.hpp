#pragma once
// Frequent Directions and Regularized Frequent Directions, distributed by columns.
//   FD        RFD paper Alg. 1      fast FD   RFD paper Alg. 2 (SON App. G Alg. 8)
//   RFD       RFD paper Alg. 3      fast RFD  RFD paper Alg. 4
// The shrink never forms an SVD of the ℓ×d matrix B: the Gram M = BBᵀ is all-reduced and
// eigendecomposed, M = UΛUᵀ, on every rank, and B ← diag(sqrt(max(λ_i − λ_ℓ, 0)/λ_i)) Uᵀ B
// (docs/design.md §3), which is Alg. 1 line 5 written through the right singular vectors V = Λ^{-1/2}UᵀB.
//
// Dense form: the shrink multiplies the stored block, O(ℓ²d/P), and the Gram is recomputed exactly.
// Sparse form (SON App. G, Alg. 10–12, generalized): B = M·Z, and a shrink is M ← (scaled Uᵀ)·M, an
// R×R product, with the Gram set to diag(λ_i − λ_ℓ). Then a compaction keeps Z small: a pivoted
// Gram–Schmidt on the columns of M (each scaled by its basis row's norm ‖Z_c‖ from K = ZZᵀ, kept by
// rank updates) picks at most ℓ pivot rows, preferring the rows that absorbed most others (dense
// ones), and each other row c is folded into them, Z_p += w_pc Z_c, a sparse update on c's support
// (SON's Z ← Z + N₁⁻¹N₂G, Alg. 11 line 11, with pivots instead of N₁⁻¹, which SON assumes invertible
// (its footnote 4) and which is singular when new directions are disjoint from the old ones). Rows
// of negligible weight are dropped. A row removed from Z stays stored until the next insertion, so
// that update_coefficients can add its share of a learner's lazy weights (update_coefficients' r).
// Cost per sparse row: O(R² + R·s) plus O(R³ + R²·s) per shrink, independent of d, and O(R·|U|/P)
// for a shrink that must fold old rows, whose supports cover most of U (rows that share features
// with the sketch's directions; see slot_supports.hpp). When M's entries grow so that forming
// M·(Z x) would lose more than about four digits to cancellation, or a stored row grows beyond
// max_growth times B's largest (docs/design.md §6), the next shrink rebases instead (the learner
// folds first): Z ← explicit B, M = I, K exact, O(R²·|U|/P) over the features U any stored row was
// non-zero on.
#include <memory>

#include "adasketch/linalg/symmetric_eigen.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

struct FrequentDirectionsOptions {
  /// Sketch size ℓ (≥ 1): the number of rows kept after a shrink, and the index of the shrinking
  /// eigenvalue λ_ℓ (the ℓ-th largest).
  index_t ell = 10;
  /// Doubled space (Alg. 2 / Alg. 4): a 2ℓ-row buffer shrunk only when full, O(ℓd) amortized per
  /// row instead of O(ℓ²d).
  bool fast = false;
  /// Regularized FD: also track α ← α + λ_ℓ/2 at every shrink so αI + BᵀB approximates α₀I + AᵀA.
  bool regularized = false;
  /// α₀, the initial α of the regularized variant (≥ 0). Ignored when regularized is false.
  double alpha0 = 0.0;
  /// Dense: shrinks rewrite the stored rows. Sparse: see above.
  SketchForm form = SketchForm::dense;
  /// Sparse form: rebase when forming B·x from M·(Z x) could lose more than log10(max_growth) digits
  /// to cancellation, or a stored row's norm exceeds max_growth times B's largest row's (≥ 1;
  /// smaller is more exact and rebases more often).
  double max_growth = 1e4;
};

class FrequentDirections final : public Sketch {
 public:
  FrequentDirections(const Communicator& comm, index_t dim, const FrequentDirectionsOptions& options);
  FrequentDirections(const Communicator& comm, const BlockPartition& partition,
                     const FrequentDirectionsOptions& options);

  std::string name() const override;
  double alpha() const noexcept override { return alpha_; }
  double alpha0() const noexcept override { return options_.regularized ? options_.alpha0 : 0.0; }
  const FrequentDirectionsOptions& options() const noexcept { return options_; }
  /// Rows of the buffer currently holding data (the next insertion goes to row filled()).
  index_t filled() const noexcept { return filled_; }
  index_t last_appended_row() const noexcept override { return last_shrunk_ ? -1 : last_slot_; }
  /// Number of shrinks performed so far.
  index_t shrinks() const noexcept { return shrinks_; }
  /// Sum over shrinks of λ_ℓ, the mass removed from every direction: the FD error certificate
  /// (‖AᵀA − BᵀB‖₂ ≤ total_shrinkage()).
  double total_shrinkage() const noexcept { return total_shrinkage_; }

  /// Sparse form: rebases so far.
  index_t rebases() const noexcept override { return rebases_; }

  ~FrequentDirections() override;
  void mix(std::span<const double> z, std::span<double> out) const override;
  void mix_transpose(std::span<const double> v, std::span<double> out) const override;
  /// Sparse form: over the features any stored row was non-zero on, not the whole block.
  void add_local_transpose_product(std::span<const double> c, std::span<double> out) const override;
  bool next_insert_restructures() const noexcept override;
  void update_product(std::span<double> zz, double az) const override;
  double update_coefficients(std::span<double> c, std::span<double> lazy, index_t stride) const override;
  /// Dense: K = BBᵀ (Z = B). Sparse: the K the compaction keeps.
  void apply_basis_gram(std::span<const double> c, std::span<double> out) const override;

 private:
  struct SparseState;

  void do_insert(const LocalRow& a, std::span<const double> za, double aa) override;
  void add_state_fields(StateFields& fields) override;
  /// The eigendecomposition of the Gram and the scaled eigenvectors rotation_ (R × (ℓ−1) kept
  /// columns); returns λ_ℓ, the shrink, and updates α, the counters and filled_.
  double shrink_rotation();
  void shrink();
  // Sparse form (frequent_directions_sparse.cpp).
  void insert_sparse(const LocalRow& a, std::span<const double> za, double aa);
  void shrink_sparse();
  void compact();
  void rebase();

  FrequentDirectionsOptions options_;
  index_t filled_ = 0;
  index_t last_slot_ = -1;     // row of the last insertion
  bool last_shrunk_ = false;   // whether it was followed by a shrink (Y_new = rotationᵀ Y)
  index_t shrinks_ = 0;
  double alpha_;
  double total_shrinkage_ = 0.0;
  SymmetricEigen eigen_;
  std::vector<double> rotation_;  // rows() × rows() scaled eigenvectors used by the shrink
  PageBuffer scratch_;  // dense form: d_p × rows(), the shrunk block before it replaces the stored one
  mutable std::vector<double> product_scratch_;  // rows(): update_product's result
  std::unique_ptr<SparseState> sparse_;          // the sparse form's state, else null
  index_t rebases_ = 0;
};

}  // namespace adasketch
