#include "adasketch/sketch/oja_sketch.hpp"

#include <cblas.h>

#include <cmath>
#include <string>

#include "adasketch/error.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"

namespace adasketch {

OjaSketch::OjaSketch(const Communicator& comm, index_t dim, const OjaSketchOptions& options)
    : OjaSketch(comm, BlockPartition(dim, comm.size()), options) {}

OjaSketch::OjaSketch(const Communicator& comm, const BlockPartition& columns, const OjaSketchOptions& options)
    : Sketch(comm, columns, options.ell, options.ell, options.ell, SketchForm::dense), options_(options) {
  ADASKETCH_REQUIRE(options.ell <= columns.dim(),
                    "ell = " + std::to_string(options.ell) + ", dim = " + std::to_string(columns.dim()));
  ADASKETCH_REQUIRE(options.gamma > 0.0 && options.gamma <= 1.0, "gamma = " + std::to_string(options.gamma));
  ADASKETCH_REQUIRE(options.gram_refresh >= 0, "gram_refresh = " + std::to_string(options.gram_refresh));
  if (options_.gram_refresh == 0) options_.gram_refresh = options.ell;
  const index_t R = rows();
  lambda_.assign(static_cast<std::size_t>(R), 0.0);
  basis_gram_.assign(static_cast<std::size_t>(R * R), 0.0);
  factor_.assign(static_cast<std::size_t>(R * R), 0.0);
  q_.assign(static_cast<std::size_t>(R), 0.0);
  // V_0: Gaussian entries from counter (row i, global feature j), then orthonormal rows (SON Alg. 3
  // SketchInit: "any m×d matrix with orthonormal rows").
  const Philox rng(options.seed);
  const index_t begin = partition().begin(comm.rank());
  auto y = stored();
  for (index_t j = 0; j < local_dim(); ++j)
    for (index_t i = 0; i < R; ++i)
      y[j * R + i] = rng.normal(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(begin + j));
  refresh_basis_gram();
  orthonormalize();
  refresh_basis_gram();  // Cholesky QR twice: orthonormal to round-off
  orthonormalize();
  for (index_t i = 0; i < R; ++i) row_scale_mut()[i] = 0.0;  // S_0 = (0·Λ)^{1/2} V = 0
}

// basis_gram_ is I after every orthonormalization, so it is not state.
void OjaSketch::add_state_fields(StateFields& fields) {
  fields.array("oja.lambda", lambda_);
  fields.array("oja.q", q_);  // with factor_: update_product / update_coefficients of the last insertion
  fields.array("oja.factor", factor_);
}

void OjaSketch::refresh_basis_gram() {
  // Gram of the stored V (row_scale is applied by recompute_gram, so form V Vᵀ with unit scale).
  const auto R = rows();
  std::fill(basis_gram_.begin(), basis_gram_.end(), 0.0);
  if (local_dim() > 0) {
    const int n = static_cast<int>(R);
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, n, static_cast<int>(local_dim()), 1.0, stored().data(), n,
                0.0, basis_gram_.data(), n);
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < i; ++j) basis_gram_[j * R + i] = basis_gram_[i * R + j];
  }
  comm().allreduce_sum(basis_gram_);
}

void OjaSketch::orthonormalize() {
  const int n = static_cast<int>(rows());
  factor_ = basis_gram_;
  cholesky_lower(n, factor_);  // V Vᵀ = L Lᵀ
  // V ← L⁻¹V  ⇔  V_fm ← V_fm L⁻ᵀ (feature-major).
  if (local_dim() > 0)
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, static_cast<int>(local_dim()), n,
                1.0, factor_.data(), n, stored().data(), n);
  // In exact arithmetic the new V has V Vᵀ = I.
  std::fill(basis_gram_.begin(), basis_gram_.end(), 0.0);
  for (int i = 0; i < n; ++i) basis_gram_[static_cast<std::size_t>(i) * n + i] = 1.0;
}

void OjaSketch::do_insert(const LocalRow& a, std::span<const double> ya, double aa) {
  const index_t R = rows();
  const double t = static_cast<double>(inserted() + 1);
  const double gamma = options_.gamma / t;  // Γ_t = (γ/t) I
  // Eq. (4): Λ_t = (1 − γ_t) Λ_{t−1} + γ_t (V_{t−1} ĝ)², with p = V_{t−1} ĝ = ya.
  for (index_t i = 0; i < R; ++i) lambda_[i] = (1.0 - gamma) * lambda_[i] + gamma * ya[i] * ya[i];
  // V' = V + q ĝᵀ with q = Γ p; its Gram is G + p qᵀ + q pᵀ + ‖ĝ‖² q qᵀ.
  for (index_t i = 0; i < R; ++i) q_[i] = gamma * ya[i];
  auto y = stored();
  if (a.is_dense()) {
    if (local_dim() > 0)
      cblas_dger(CblasRowMajor, static_cast<int>(local_dim()), static_cast<int>(R), 1.0, a.values().data(), 1,
                 q_.data(), 1, y.data(), static_cast<int>(R));
  } else {
    const auto idx = a.indices();
    const auto v = a.values();
    for (std::size_t n = 0; n < idx.size(); ++n) {
      double* feature = y.data() + idx[n] * R;
      for (index_t i = 0; i < R; ++i) feature[i] += v[n] * q_[i];
    }
  }
  if ((inserted() + 1) % options_.gram_refresh == 0) {
    refresh_basis_gram();
  } else {
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < R; ++j) basis_gram_[i * R + j] += ya[i] * q_[j] + q_[i] * ya[j] + aa * q_[i] * q_[j];
  }
  orthonormalize();
  // S_t = (tΛ_t)^{1/2} V_t, whose rows are orthogonal: SSᵀ = diag(tΛ_t).
  auto g = gram_mut();
  std::fill(g.begin(), g.end(), 0.0);
  for (index_t i = 0; i < R; ++i) {
    row_scale_mut()[i] = std::sqrt(std::max(t * lambda_[i], 0.0));
    g[i * R + i] = t * lambda_[i];
  }
}

void OjaSketch::update_product(std::span<double> yz, double az) const {
  const index_t R = rows();
  for (index_t i = 0; i < R; ++i) yz[i] += q_[i] * az;
  // Forward substitution with L (row-major lower triangular).
  for (index_t i = 0; i < R; ++i) {
    double v = yz[i];
    for (index_t j = 0; j < i; ++j) v -= factor_[i * R + j] * yz[j];
    yz[i] = v / factor_[i * R + i];
  }
}

double OjaSketch::update_coefficients(std::span<double> c, std::span<double>, index_t) const {
  const index_t R = rows();
  double qc = 0.0;
  for (index_t i = 0; i < R; ++i) qc += q_[i] * c[i];
  // c ← Lᵀc (upper triangular times c, in place from the top).
  for (index_t i = 0; i < R; ++i) {
    double v = 0.0;
    for (index_t j = i; j < R; ++j) v += factor_[j * R + i] * c[j];
    c[i] = v;
  }
  return -qc;
}

}  // namespace adasketch
