// SymmetricEigen::compute_bordered: the eigendecomposition of a Gram grown row by row, each row
// added as an arrowhead in the previous eigenbasis (docs/design.md §3, "Bordered Grams").
#include <cblas.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <numeric>

#include "adasketch/linalg/symmetric_eigen.hpp"
#include "arrowhead_eigen.hpp"

namespace adasketch {

namespace {
bool same_bits(double x, double y) noexcept { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); }
}  // namespace

void SymmetricEigen::start_bordering(int m, int k0) {
  Bordered& b = bordered_;
  const std::size_t n = static_cast<std::size_t>(n_);
  b.active.assign(active_.begin(), active_.begin() + k0);
  b.size = b.diagonal_block = k0;
  for (int r = 0; r < k0; ++r) {
    for (int c = 0; c <= r; ++c)
      b.matrix[static_cast<std::size_t>(r) * n + c] = active_matrix_[static_cast<std::size_t>(r) * m + c];
    b.values[static_cast<std::size_t>(r)] = active_matrix_[static_cast<std::size_t>(r) * m + r];
    double* column = b.vectors.data() + static_cast<std::size_t>(r) * n;
    std::fill_n(column, k0, 0.0);
    column[r] = 1.0;
  }
}

bool SymmetricEigen::border(int m, int k) {
  Bordered& b = bordered_;
  const std::size_t n = static_cast<std::size_t>(n_), k1 = static_cast<std::size_t>(k) + 1;
  const double* row = active_matrix_.data() + static_cast<std::size_t>(k) * m;  // a[k, 0..k]
  // H = [Λ h; hᵀ a_kk], h = Uᵀ a[0..k), k]: the leading k + 1 rows in the basis diag(U, 1).
  cblas_dgemv(CblasColMajor, CblasTrans, k, k, 1.0, b.vectors.data(), n_, row, 1, 0.0, b.projected.data(), 1);
  std::fill_n(b.arrow.begin(), k1 * k1, 0.0);
  for (std::size_t i = 0; i < k1 - 1; ++i) {
    b.arrow[i * k1 + i] = b.values[i];
    b.arrow[i * k1 + k1 - 1] = b.arrow[(k1 - 1) * k1 + i] = b.projected[i];
  }
  b.arrow[k1 * k1 - 1] = row[k];
  if (!detail::arrowhead_eigen(b.arrow.data(), k + 1, k, b.arrow_values.data(), b.arrow_vectors.data(),
                               arrow_work_.data(), arrow_iwork_.data()))
    return false;
  // U' = diag(U, 1)·Q: rows 0..k−1 are U·Q[0..k), :], row k is Q[k, :].
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, k, k + 1, k, 1.0, b.vectors.data(), n_,
              b.arrow_vectors.data(), k + 1, 0.0, b.next.data(), n_);
  for (std::size_t j = 0; j < k1; ++j) b.next[j * n + k1 - 1] = b.arrow_vectors[j * k1 + k1 - 1];
  b.vectors.swap(b.next);
  std::copy_n(b.arrow_values.begin(), k1, b.values.begin());
  for (int c = 0; c <= k; ++c) b.matrix[static_cast<std::size_t>(k) * n + c] = row[c];
  b.active.push_back(active_[static_cast<std::size_t>(k)]);
  b.size = k + 1;
  return true;
}

void SymmetricEigen::compute_bordered(std::span<const double> a) {
  const int m = gather_active(a);
  Bordered& b = bordered_;
  const std::size_t n = static_cast<std::size_t>(n_);
  const auto at = [&](int r, int c) { return active_matrix_[static_cast<std::size_t>(r) * m + c]; };
  // k0: the leading diagonal block of the active rows (one index at least).
  int k0 = std::min(m, 1);
  while (k0 < m && std::all_of(active_matrix_.begin() + static_cast<std::ptrdiff_t>(k0) * m,
                               active_matrix_.begin() + static_cast<std::ptrdiff_t>(k0) * m + k0,
                               [](double v) { return v == 0.0; }))
    ++k0;
  // The last state continues when a's leading active rows are, bit for bit, the matrix it holds.
  bool same = b.size > 0 && b.diagonal_block == k0 && b.size <= m;
  for (int i = 0; same && i < b.size; ++i) same = b.active[static_cast<std::size_t>(i)] == active_[static_cast<std::size_t>(i)];
  for (int r = 0; same && r < b.size; ++r)
    for (int c = 0; same && c <= r; ++c) same = same_bits(b.matrix[static_cast<std::size_t>(r) * n + c], at(r, c));
  if (!same) start_bordering(m, k0);
  for (int k = b.size; k < m; ++k)
    if (!border(m, k)) {  // the state stays at the rows it took
      solve_general(m);
      return emit(m);
    }
  // Ascending (ties by position) into the layout emit() reads.
  int* order = arrow_iwork_.data();
  std::iota(order, order + m, 0);
  std::sort(order, order + m, [&](int x, int y) {  // std::sort: no temporary buffer, unlike stable_sort
    const double vx = b.values[static_cast<std::size_t>(x)], vy = b.values[static_cast<std::size_t>(y)];
    return vx < vy || (vx == vy && x < y);
  });
  for (int j = 0; j < m; ++j) {
    ascending_values_[static_cast<std::size_t>(j)] = b.values[static_cast<std::size_t>(order[j])];
    std::copy_n(b.vectors.begin() + static_cast<std::ptrdiff_t>(order[j]) * n_, m,
                work_matrix_.begin() + static_cast<std::ptrdiff_t>(j) * m);
  }
  emit(m);
}

}  // namespace adasketch
