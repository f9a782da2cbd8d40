#include "adasketch/linalg/symmetric_eigen.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cstddef>
#include <cmath>
#include <string>

#include "adasketch/error.hpp"
#include "arrowhead_eigen.hpp"

namespace adasketch {

SymmetricEigen::SymmetricEigen(int n) : n_(n) {
  ADASKETCH_REQUIRE(n >= 1, "n = " + number_text(n));
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  values_.resize(n);
  active_.reserve(static_cast<std::size_t>(n));
  ascending_values_.resize(n);
  vectors_.resize(nn);
  active_matrix_.resize(nn);
  work_matrix_.resize(nn);
  arrow_work_.resize(detail::arrowhead_doubles(n));
  arrow_iwork_.resize(detail::arrowhead_ints(n));
  bordered_.active.reserve(static_cast<std::size_t>(n));
  for (auto* v : {&bordered_.matrix, &bordered_.vectors, &bordered_.next, &bordered_.arrow, &bordered_.arrow_vectors})
    v->resize(nn);
  for (auto* v : {&bordered_.values, &bordered_.arrow_values, &bordered_.projected}) v->resize(static_cast<std::size_t>(n));
  // Workspace query once; compute() then never allocates.
  double work_size = 0.0;
  int iwork_size = 0;
  const lapack_int info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', n, work_matrix_.data(), n,
                                              ascending_values_.data(), &work_size, -1, &iwork_size, -1);
  if (info != 0) throw LapackError("dsyevd (workspace query)", info);
  work_.resize(static_cast<std::size_t>(work_size));
  iwork_.resize(static_cast<std::size_t>(std::max(iwork_size, 1)));
}

int SymmetricEigen::arrowhead_head(int m) {
  // The row with the most off-diagonal non-zeros, if every off-diagonal non-zero lies in it (or in
  // its column); -1 otherwise. A diagonal matrix is an arrowhead with any head.
  int* count = arrow_iwork_.data();
  std::fill(count, count + m, 0);
  for (int c = 0; c < m; ++c)
    for (int r = c + 1; r < m; ++r)
      if (active_matrix_[static_cast<std::size_t>(c) * m + r] != 0.0) ++count[r], ++count[c];
  const int head = static_cast<int>(std::max_element(count, count + m) - count);
  for (int c = 0; c < m; ++c)
    for (int r = c + 1; r < m; ++r)
      if (active_matrix_[static_cast<std::size_t>(c) * m + r] != 0.0 && r != head && c != head) return -1;
  return head;
}

int SymmetricEigen::gather_active(std::span<const double> a) {
  const std::size_t n = static_cast<std::size_t>(n_), nn = n * n;
  ADASKETCH_REQUIRE(a.size() >= nn, "a.size() = " + number_text(a.size()));
  for (std::size_t i = 0; i < nn; ++i)
    if (!std::isfinite(a[i])) throw NumericError("SymmetricEigen: non-finite entry in the input matrix");
  // The active indices: those whose row of the lower triangle (a[i, 0..i]) or column below the
  // diagonal (a[i+1.., i]) has a non-zero. The others are exact eigenpairs (0, e_i).
  active_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    bool nonzero = false;
    for (std::size_t j = 0; j <= i && !nonzero; ++j) nonzero = a[i * n + j] != 0.0;
    for (std::size_t j = i + 1; j < n && !nonzero; ++j) nonzero = a[j * n + i] != 0.0;
    if (nonzero) active_.push_back(static_cast<int>(i));
  }
  const int m = static_cast<int>(active_.size());
  // The active principal submatrix from a's lower triangle, both triangles filled (symmetric: row-
  // and column-major alike).
  for (int r = 0; r < m; ++r)
    for (int c = 0; c <= r; ++c) {
      const double v = a[static_cast<std::size_t>(active_[r]) * n + active_[c]];
      active_matrix_[static_cast<std::size_t>(r) * m + c] = v;
      active_matrix_[static_cast<std::size_t>(c) * m + r] = v;
    }
  return m;
}

void SymmetricEigen::solve_general(int m) {
  std::copy_n(active_matrix_.begin(), static_cast<std::size_t>(m) * m, work_matrix_.begin());
  // dsyevd's workspace grows with the order: the one for n serves m ≤ n.
  const lapack_int info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', m, work_matrix_.data(), m,
                                              ascending_values_.data(), work_.data(),
                                              static_cast<lapack_int>(work_.size()), iwork_.data(),
                                              static_cast<lapack_int>(iwork_.size()));
  if (info != 0) throw LapackError("dsyevd", info);
}

void SymmetricEigen::compute(std::span<const double> a) {
  const int m = gather_active(a);
  const int head = arrowhead_head(m);
  // Either leaves ascending values and column-major vectors on the active indices.
  const bool solved = m >= 2 && head >= 0 &&
                      detail::arrowhead_eigen(active_matrix_.data(), m, head, ascending_values_.data(),
                                              work_matrix_.data(), arrow_work_.data(), arrow_iwork_.data());
  if (!solved && m > 0) solve_general(m);
  emit(m);
}

void SymmetricEigen::emit(int m) {
  const std::size_t n = static_cast<std::size_t>(n_);
  // Descending: the m computed pairs (column k of the column-major result is eigenvector k, on the
  // active indices) merged with n − m zero pairs (e_i, the inactive indices ascending).
  std::fill(vectors_.begin(), vectors_.end(), 0.0);
  int next = m - 1, zero = 0, k = 0;
  std::size_t inactive = 0;
  const auto next_inactive = [&] {
    while (std::binary_search(active_.begin(), active_.end(), static_cast<int>(inactive))) ++inactive;
    return inactive++;
  };
  for (; k < n_; ++k) {
    if (next >= 0 && (zero == n_ - m || ascending_values_[next] >= 0.0)) {
      values_[k] = ascending_values_[next];
      for (int i = 0; i < m; ++i)
        vectors_[static_cast<std::size_t>(active_[i]) * n + k] = work_matrix_[static_cast<std::size_t>(next) * m + i];
      --next;
    } else {
      values_[k] = 0.0;
      vectors_[next_inactive() * n + k] = 1.0;
      ++zero;
    }
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
