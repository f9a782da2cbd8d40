#pragma once
/// @file
/// Frequent Directions and Regularized Frequent Directions, distributed by columns.
///   FD        RFD paper Alg. 1      fast FD   RFD paper Alg. 2 (SON App. G Alg. 8)
///   RFD       RFD paper Alg. 3      fast RFD  RFD paper Alg. 4
/// The shrink never forms an SVD of the ℓ×d matrix B: it eigendecomposes the replicated Gram BBᵀ
/// (docs/design.md §3). The shrink, the two forms (the sparse one defers the shrinks per feature)
/// and their costs: docs/design.md §2, "The sketches' updates", and §6, "Deferred shrinks".
#include <memory>

#include "adasketch/linalg/symmetric_eigen.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

/// The options of FrequentDirections.
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
  /// Dense: shrinks rewrite the stored rows. Sparse: shrinks deferred per feature (docs/design.md §6).
  SketchForm form = SketchForm::dense;
  /// The shrink decomposes the Gram by bordering (SymmetricEigen::compute_bordered) in gram_eigen(),
  /// so that a learner that borders the Gram there after every insertion (fast ADA-FD) leaves the
  /// shrink one row to add instead of a new 2ℓ × 2ℓ decomposition (docs/design.md §3).
  bool border_gram = false;
};

/// FD, fast FD, RFD and fast RFD (make_sketch's fd, fast-fd, rfd, fast-rfd).
class FrequentDirections final : public Sketch {
 public:
  /// Local (no communication). d features split uniformly over the ranks of comm, or as the caller's
  /// `partition` (one part per rank). Throws InvalidArgument unless ℓ ≥ 1 and α₀ ≥ 0 is finite.
  ///@{
  FrequentDirections(const Communicator& comm, index_t dim, const FrequentDirectionsOptions& options);
  FrequentDirections(const Communicator& comm, const BlockPartition& partition,
                     const FrequentDirectionsOptions& options);
  ///@}

  std::string name() const override;
  double alpha() const noexcept override { return alpha_; }
  double alpha0() const noexcept override { return options_.regularized ? options_.alpha0 : 0.0; }
  void set_alpha0(double alpha0) override;
  /// The options as given.
  const FrequentDirectionsOptions& options() const noexcept { return options_; }
  /// Rows of the buffer currently holding data (the next insertion goes to row filled()).
  index_t filled() const noexcept { return filled_; }
  index_t last_appended_row() const noexcept override { return last_shrunk_ ? -1 : last_slot_; }
  /// The eigendecomposition the shrink computes and reads (options().border_gram); a caller may
  /// decompose gram() in it between insertions. Its contents are rewritten by every shrink.
  SymmetricEigen& gram_eigen() noexcept { return eigen_; }
  /// Number of shrinks performed so far.
  index_t shrinks() const noexcept { return shrinks_; }
  /// Sum over shrinks of λ_ℓ, the mass removed from every direction: the FD error certificate
  /// (‖AᵀA − BᵀB‖₂ ≤ total_shrinkage()).
  double total_shrinkage() const noexcept { return total_shrinkage_; }

  ~FrequentDirections() override;
  /// Sparse form: each column brought up to date (out of place when it is behind).
  void add_local_product(const LocalRow& a, std::span<double> out) const override;
  /// Sparse form: over the features any row was written on, each column brought up to date.
  void add_local_transpose_product(std::span<const double> c, std::span<double> out) const override;
  void copy_local_block(std::span<double> out) const override;
  /// Sparse form: records c for the next shrink, O(R); its share reaches each feature's deferred weight.
  void fold_coefficients(std::span<double> c, std::span<double> lazy) override;
  void prefetch(const LocalRow& a) const noexcept override;
  void settle(const LocalRow& a, std::span<double> lazy) override;
  void settle_all(std::span<double> lazy) override;
  double local_deferred_dot(const LocalRow& a) const override;
  void add_local_deferred(std::span<double> out) const override;
  bool next_insert_restructures() const noexcept override;
  void update_product(std::span<double> zz, double az) const override;
  double update_coefficients(std::span<double> c, std::span<double> lazy, index_t stride) const override;
  /// K = BBᵀ (Z = B in both forms).
  void apply_basis_gram(std::span<const double> c, std::span<double> out) const override;

 private:
  struct SparseState;

  void do_insert(const LocalRow& a, std::span<const double> za, double aa) override;
  void add_state_fields(StateFields& fields) override;
  /// The eigendecomposition of the Gram and the scaled eigenvectors rotation_ (R × (ℓ−1) kept
  /// columns); returns λ_ℓ, the shrink, and updates α, the counters and filled_.
  double shrink_rotation();
  void shrink();
  // Sparse form (frequent_directions_deferred.cpp).
  /// Writes the rotation's kept columns as S, pushes the shrink and sets the Gram; empties the
  /// history when it outgrows the columns.
  void shrink_sparse();
  /// Local feature j's column and deferred weight brought to the current epoch in place.
  void bring_up_to_date(index_t j);
  /// Rebuilds the epoch marks after a checkpoint reader may have replaced the block.
  void refresh_sparse() const;
  /// Local feature j's current column: the stored one, or (const readers) a copy brought up to date
  /// (valid until the next call); with `weight`, also its current deferred weight.
  const double* current_column(index_t j, double* weight = nullptr) const;
  /// Writes a into row k at the current epoch (a's columns brought up to date first).
  void write_row_sparse(const LocalRow& a, index_t k);

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
};

}  // namespace adasketch
