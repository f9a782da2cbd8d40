#pragma once
// Eigendecomposition of a small symmetric matrix (the ℓ×ℓ sketch Gram), solved redundantly and
// identically on every rank (docs/design.md §3). Workspace is kept between calls.
#include <span>
#include <vector>

namespace adasketch {

class SymmetricEigen {
 public:
  /// Prepares workspace for n×n problems (n >= 1).
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

  int size() const noexcept { return n_; }
  std::span<const double> values() const noexcept { return values_; }
  std::span<const double> vectors() const noexcept { return vectors_; }

 private:
  int arrowhead_head(int m);

  int n_;
  std::vector<double> values_, vectors_, ascending_values_, active_matrix_, work_matrix_, work_, arrow_work_;
  std::vector<int> iwork_, active_, arrow_iwork_;
};

/// In-place Cholesky factorization A = L Lᵀ of a row-major symmetric positive definite n×n matrix;
/// the lower triangle receives L and the strict upper triangle is zeroed. Throws LapackError
/// (dpotrf) when A is not positive definite.
void cholesky_lower(int n, std::span<double> a);

}  // namespace adasketch
