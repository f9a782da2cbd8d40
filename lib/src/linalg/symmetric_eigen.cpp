#include "adasketch/linalg/symmetric_eigen.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

SymmetricEigen::SymmetricEigen(int n) : n_(n) {
  ADASKETCH_REQUIRE(n >= 1, "n = " + number_text(n));
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  values_.resize(n);
  ascending_values_.resize(n);
  vectors_.resize(nn);
  work_matrix_.resize(nn);
  // Workspace query once; compute() then never allocates.
  double work_size = 0.0;
  int iwork_size = 0;
  const lapack_int info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', n, work_matrix_.data(), n,
                                              ascending_values_.data(), &work_size, -1, &iwork_size, -1);
  if (info != 0) throw LapackError("dsyevd (workspace query)", info);
  work_.resize(static_cast<std::size_t>(work_size));
  iwork_.resize(static_cast<std::size_t>(std::max(iwork_size, 1)));
}

void SymmetricEigen::compute(std::span<const double> a) {
  const std::size_t nn = static_cast<std::size_t>(n_) * n_;
  ADASKETCH_REQUIRE(a.size() >= nn, "a.size() = " + number_text(a.size()));
  for (std::size_t i = 0; i < nn; ++i) {
    if (!std::isfinite(a[i])) throw NumericError("SymmetricEigen: non-finite entry in the input matrix");
    work_matrix_[i] = a[i];
  }
  // Column-major call on the row-major lower triangle = the upper triangle of the transpose.
  const lapack_int info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', n_, work_matrix_.data(), n_,
                                              ascending_values_.data(), work_.data(),
                                              static_cast<lapack_int>(work_.size()), iwork_.data(),
                                              static_cast<lapack_int>(iwork_.size()));
  if (info != 0) throw LapackError("dsyevd", info);
  // Column k of the column-major result is eigenvector k; store descending as row-major columns.
  for (int k = 0; k < n_; ++k) {
    const int src = n_ - 1 - k;
    values_[k] = ascending_values_[src];
    for (int i = 0; i < n_; ++i) vectors_[static_cast<std::size_t>(i) * n_ + k] = work_matrix_[static_cast<std::size_t>(src) * n_ + i];
  }
}

void cholesky_lower(int n, std::span<double> a) {
  ADASKETCH_REQUIRE(n >= 1 && a.size() >= static_cast<std::size_t>(n) * n, "n = " + number_text(n));
  const lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a.data(), n);  // = row-major 'L', no copy
  if (info != 0) throw LapackError("dpotrf", info);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) a[static_cast<std::size_t>(i) * n + j] = 0.0;
}

}  // namespace adasketch
