#pragma once
/// @file
/// Eigendecomposition of a small symmetric matrix (the ℓ×ℓ sketch Gram), solved redundantly and
/// identically on every rank (docs/design.md §3), and a Cholesky factorization.
#include <span>
#include <vector>

namespace adasketch {

/// Eigendecomposition of a small symmetric n×n matrix, local (every rank solves its own copy, with
/// the same bits for the same input). Workspace is kept between calls.
class SymmetricEigen {
 public:
  /// Prepares workspace for n×n problems (n >= 1; else InvalidArgument).
  explicit SymmetricEigen(int n);

  /// Decomposes the row-major symmetric n×n matrix `a` (only its lower triangle is read).
  /// Afterwards values() is in descending order and vectors() holds the matching eigenvectors as
  /// columns of a row-major n×n matrix. Rows (and columns) of `a` that are entirely zero are exact
  /// eigenpairs (0, e_i) and are split off before the solver sees the rest: a sketch's Gram with
  /// unfilled rows costs what its filled rows do. A positive semidefinite arrowhead (off-diagonal
  /// non-zeros in one row and column only: a sparse FD sketch's Gram after an insertion) is solved
  /// through the secular equation in O(n²) instead of dsyevd's O(n³). Throws LapackError (dsyevd) or NumericError
  /// (non-finite input).
  void compute(std::span<const double> a);

  /// The same decomposition of `a` by bordering (docs/design.md §3, "Bordered Grams"): from the
  /// leading diagonal block of a's non-zero rows, each further row is added as an arrowhead in the
  /// previous eigenbasis (a secular solve and one k × k product). The result is a function of `a`
  /// alone, whatever was computed before (so a run resumed from a checkpoint repeats it bit for bit);
  /// when a's leading rows are the previous call's matrix, only the rows after it are added, so a
  /// Gram that grows by one row per call (a fast FD sketch's between shrinks) costs O(n³) flops of
  /// one product instead of a new eigendecomposition. A row that its arrowhead cannot take (not
  /// positive semidefinite within round-off) sends the whole matrix to dsyevd. Throws as compute().
  void compute_bordered(std::span<const double> a);

  /// n.
  int size() const noexcept { return n_; }
  /// The n eigenvalues of the last decomposition, descending.
  std::span<const double> values() const noexcept { return values_; }
  /// The matching eigenvectors as the columns of a row-major n×n matrix.
  std::span<const double> vectors() const noexcept { return vectors_; }

 private:
  int arrowhead_head(int m);
  /// Lists a's active indices and fills active_matrix_ (m × m, both triangles); returns m.
  int gather_active(std::span<const double> a);
  /// values_/vectors_ from the m ascending pairs in ascending_values_ and work_matrix_ (column-major
  /// on the active indices) and the n − m zero pairs.
  void emit(int m);
  /// dsyevd on active_matrix_ into ascending_values_ and work_matrix_.
  void solve_general(int m);

  /// compute_bordered's last state: the active indices and matrix it decomposed (m × m), the size
  /// of the leading diagonal block it started from, and the eigenpairs (column-major, leading
  /// dimension n; values in the vectors' order).
  struct Bordered {
    std::vector<int> active;
    std::vector<double> matrix, vectors, values, next, arrow, arrow_values, arrow_vectors, projected;
    int size = 0, diagonal_block = 0;
  };
  /// Starts compute_bordered's state from the leading diagonal block (k0 indices) of active_matrix_.
  void start_bordering(int m, int k0);
  /// Adds active row k to the bordered state; false when its arrowhead is refused.
  bool border(int m, int k);

  int n_;
  std::vector<double> values_, vectors_, ascending_values_, active_matrix_, work_matrix_, work_, arrow_work_;
  std::vector<int> iwork_, active_, arrow_iwork_;
  Bordered bordered_;
};

/// In-place Cholesky factorization A = L Lᵀ of a row-major symmetric positive definite n×n matrix;
/// the lower triangle receives L and the strict upper triangle is zeroed. Throws LapackError
/// (dpotrf) when A is not positive definite.
void cholesky_lower(int n, std::span<double> a);

}  // namespace adasketch
