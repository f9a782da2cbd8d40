#include "test_support.hpp"

#include "adasketch/sketch/sketch.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace adasketch::test {

std::vector<double> local_slice(const DenseMatrix& m, index_t i, const BlockPartition& p, int rank) {
  return std::vector<double>(m.a.begin() + i * m.d + p.begin(rank), m.a.begin() + i * m.d + p.end(rank));
}

std::vector<double> gram_of_columns(const DenseMatrix& m) {
  std::vector<double> g(static_cast<std::size_t>(m.d * m.d), 0.0);
  if (m.n > 0)
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, static_cast<int>(m.d), static_cast<int>(m.n), 1.0, m.a.data(),
                static_cast<int>(m.d), 0.0, g.data(), static_cast<int>(m.d));
  for (index_t i = 0; i < m.d; ++i)
    for (index_t j = 0; j < i; ++j) g[j * m.d + i] = g[i * m.d + j];
  return g;
}

std::vector<double> eigenvalues_desc(std::vector<double> sym, index_t d) {
  std::vector<double> w(static_cast<std::size_t>(d));
  const int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', static_cast<int>(d), sym.data(), static_cast<int>(d), w.data());
  if (info != 0) throw std::runtime_error("dsyev failed in test reference");
  std::reverse(w.begin(), w.end());
  return w;
}

double relative_max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, scale = 1.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

ReferenceFd reference_frequent_directions(const DenseMatrix& a, index_t ell, bool fast, bool regularized, double alpha0) {
  const index_t R = fast ? 2 * ell : ell, d = a.d;
  std::vector<double> b(static_cast<std::size_t>(R * d), 0.0);  // row-major R×d
  std::vector<bool> zero(static_cast<std::size_t>(R), true);
  double alpha = regularized ? alpha0 : 0.0;
  const index_t mn = std::min(R, d);
  std::vector<double> s(static_cast<std::size_t>(mn)), vt(static_cast<std::size_t>(mn * d)), superb(static_cast<std::size_t>(mn + 1));
  for (index_t t = 0; t < a.n; ++t) {
    // Alg. 1 inserts into row ℓ (always zero after the previous shrink); Alg. 2 into any zero row.
    index_t row = 0;
    while (row < R && !zero[row]) ++row;
    std::copy(a.a.begin() + t * d, a.a.begin() + (t + 1) * d, b.begin() + row * d);
    zero[row] = false;
    const bool full = std::none_of(zero.begin(), zero.end(), [](bool z) { return z; });
    if (!fast || full) {
      std::vector<double> work = b;
      const int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'S', static_cast<int>(R), static_cast<int>(d), work.data(),
                                      static_cast<int>(d), s.data(), nullptr, 1, vt.data(), static_cast<int>(d), superb.data());
      if (info != 0) throw std::runtime_error("dgesvd failed in test reference");
      const double delta = ell <= mn ? s[ell - 1] * s[ell - 1] : 0.0;
      std::fill(b.begin(), b.end(), 0.0);
      std::fill(zero.begin(), zero.end(), true);
      for (index_t i = 0; i < std::min(mn, ell); ++i) {
        const double shrunk = std::sqrt(std::max(s[i] * s[i] - delta, 0.0));
        if (i < ell - 1) zero[i] = false;  // the ℓ-th row is zero after the shrink
        for (index_t j = 0; j < d; ++j) b[i * d + j] = shrunk * vt[i * d + j];
      }
      if (regularized) alpha += delta / 2.0;
    }
  }
  DenseMatrix bm{R, d, b};
  return {gram_of_columns(bm), alpha};
}

ReferenceOja reference_oja(const DenseMatrix& a, index_t ell, const std::vector<double>& gamma, double start_residual) {
  const index_t d = a.d;
  std::vector<double> v(static_cast<std::size_t>(ell * d), 0.0);  // row-major ℓ×d
  index_t started = 0;
  const auto orthonormalize = [&] {  // the started rows: QR of their transpose (d×k)
    const index_t k = started;
    std::vector<double> vt(static_cast<std::size_t>(d * k)), tau(static_cast<std::size_t>(k));
    for (index_t i = 0; i < k; ++i)
      for (index_t j = 0; j < d; ++j) vt[j * k + i] = v[i * d + j];
    if (LAPACKE_dgeqrf(LAPACK_ROW_MAJOR, static_cast<int>(d), static_cast<int>(k), vt.data(), static_cast<int>(k), tau.data()) != 0)
      throw std::runtime_error("dgeqrf");
    std::vector<double> sign(static_cast<std::size_t>(k));
    for (index_t i = 0; i < k; ++i) sign[i] = vt[i * k + i] < 0 ? -1.0 : 1.0;
    if (LAPACKE_dorgqr(LAPACK_ROW_MAJOR, static_cast<int>(d), static_cast<int>(k), static_cast<int>(k), vt.data(),
                       static_cast<int>(k), tau.data()) != 0)
      throw std::runtime_error("dorgqr");
    for (index_t i = 0; i < k; ++i)
      for (index_t j = 0; j < d; ++j) v[i * d + j] = sign[i] * vt[j * k + i];
  };
  std::vector<double> lambda(static_cast<std::size_t>(ell), 0.0), p(static_cast<std::size_t>(ell));
  for (index_t t = 1; t <= a.n; ++t) {
    const auto project = [&] {
      for (index_t i = 0; i < ell; ++i) {
        p[i] = 0.0;
        for (index_t j = 0; j < d; ++j) p[i] += v[i * d + j] * a(t - 1, j);
      }
    };
    project();
    double aa = 0.0, pp = 0.0;
    for (index_t j = 0; j < d; ++j) aa += a(t - 1, j) * a(t - 1, j);
    for (index_t i = 0; i < started; ++i) pp += p[i] * p[i];
    if (started < ell && aa - pp > start_residual * aa) {
      for (index_t j = 0; j < d; ++j) v[started * d + j] = a(t - 1, j);
      ++started;
      orthonormalize();
      project();
    }
    for (index_t i = 0; i < ell; ++i) {
      const double g = gamma[i] / static_cast<double>(t);
      lambda[i] = (1 - g) * lambda[i] + g * p[i] * p[i];
      for (index_t j = 0; j < d; ++j) v[i * d + j] += g * p[i] * a(t - 1, j);
    }
    if (started > 0) orthonormalize();
  }
  DenseMatrix s{ell, d, v};
  for (index_t i = 0; i < ell; ++i)
    for (index_t j = 0; j < d; ++j) s(i, j) *= std::sqrt(static_cast<double>(a.n) * lambda[i]);
  return {s, lambda};
}

DenseMatrix random_low_rank(index_t n, index_t d, index_t rank, double noise, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> u(static_cast<std::size_t>(n * rank)), v(static_cast<std::size_t>(rank * d));
  for (auto& x : u) x = normal(gen);
  for (auto& x : v) x = normal(gen);
  DenseMatrix m{n, d, std::vector<double>(static_cast<std::size_t>(n * d))};
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < d; ++j) {
      double x = noise * normal(gen);
      for (index_t k = 0; k < rank; ++k) x += u[i * rank + k] * v[k * d + j] / static_cast<double>(k + 1);
      m(i, j) = x;
    }
  return m;
}

DenseMatrix gather_sketch(const Sketch& sketch) {
  const index_t R = sketch.rows(), d = sketch.partition().dim();
  const int rank = sketch.comm().rank();
  const index_t begin = sketch.partition().begin(rank);
  std::vector<double> local(static_cast<std::size_t>(sketch.local_dim() * R));
  sketch.copy_local_block(local);
  DenseMatrix b{R, d, std::vector<double>(static_cast<std::size_t>(R * d), 0.0)};
  for (index_t j = 0; j < sketch.local_dim(); ++j)
    for (index_t i = 0; i < R; ++i) b(i, begin + j) = local[j * R + i];
  sketch.comm().allreduce_sum(b.a);
  return b;
}

void feed_dense(Sketch& sketch, const DenseMatrix& a) {
  const int rank = sketch.comm().rank();
  for (index_t i = 0; i < a.n; ++i) {
    const auto slice = local_slice(a, i, sketch.partition(), rank);
    sketch.insert(LocalRow::dense(slice));
  }
}

}  // namespace adasketch::test
