#include "adasketch/sketch/oja_sketch.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "adasketch/error.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"

namespace adasketch {

OjaSketch::OjaSketch(const Communicator& comm, index_t dim, const OjaSketchOptions& options)
    : OjaSketch(comm, BlockPartition(dim, comm.size()), options) {}

OjaSketch::OjaSketch(const Communicator& comm, const BlockPartition& columns, const OjaSketchOptions& options)
    : Sketch(comm, columns, options.ell, options.ell, options.ell, options.form), options_(options) {
  ADASKETCH_REQUIRE(options.ell <= columns.dim(),
                    "ell = " + number_text(options.ell) + ", dim = " + number_text(columns.dim()));
  const auto ell = static_cast<std::size_t>(options.ell);
  ADASKETCH_REQUIRE(options.gamma.size() <= 1 || options.gamma.size() == ell,
                    "gamma has " + number_text(options.gamma.size()) + " values (expected none, one, or ell = " +
                        number_text(options.ell) + ")");
  for (const double g : options.gamma)
    ADASKETCH_REQUIRE(g > 0.0 && g <= 1.0, "gamma_i = " + number_text(g) + " (each γ_i must be in (0, 1])");
  gamma_.assign(ell, options.gamma.empty() ? 1.0 : options.gamma.front());
  if (options.gamma.size() == ell) std::copy(options.gamma.begin(), options.gamma.end(), gamma_.begin());
  uniform_gamma_ = std::all_of(gamma_.begin(), gamma_.end(), [&](double g) { return g == gamma_.front(); });
  step_gamma_.assign(ell, 0.0);
  ADASKETCH_REQUIRE(options.gram_refresh >= 0, "gram_refresh = " + number_text(options.gram_refresh));
  ADASKETCH_REQUIRE(options.max_growth >= 1.0, "max_growth = " + number_text(options.max_growth));
  const bool sparse = options.form == SketchForm::sparse;
  if (options_.gram_refresh == 0)
    options_.gram_refresh = sparse ? std::max<index_t>(4 * options.ell, (columns.dim() + 15) / 16) : options.ell;
  const index_t R = rows();
  const auto n = static_cast<std::size_t>(R);
  lambda_.assign(n, 0.0);
  basis_gram_.assign(n * n, 0.0);
  factor_.assign(n * n, 0.0);
  accumulated_.assign(n * n, 0.0);
  q_.assign(n, 0.0);
  // V_0 comes from the data (starts_row): every row is empty, S_0 = 0, nothing is swept.
  for (std::size_t i = 0; i < n; ++i) factor_[i * n + i] = 1.0;
  if (sparse) {
    track_touched();  // Z changes only on the inserted rows' supports
    // Z_0 = 0, F = I, K = 0.
    mixing_.assign(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i) mixing_[i * n + i] = 1.0;
    scratch_.assign(n * n, 0.0);
    product_.assign(n, 0.0);
    rebase_map_.assign(n * n, 0.0);
  }
  start_product_.assign(n, 0.0);
  start_factor_.assign(n * n, 0.0);
}

// Dense: basis_gram_ is I on the started rows after every orthonormalization, so it is not state.
// Sparse: K, F, the refresh counter and the rebase flags are.
void OjaSketch::add_state_fields(StateFields& fields) {
  fields.integer("oja.started", started_, 0, rows());
  fields.array("oja.lambda", lambda_);
  fields.array("oja.q", q_);  // with factor_ (dense) or rebase_map_ (sparse): update_* of the last insertion
  fields.array("oja.factor", factor_);
  if (form() == SketchForm::dense) return;
  fields.array("oja.mixing", mixing_);
  fields.array("oja.basis_gram", basis_gram_);
  fields.array("oja.rebase_map", rebase_map_);
  fields.integer("oja.since_refresh", since_refresh_, 0, options_.gram_refresh);
  fields.integer("oja.refreshes", refreshes_);
  fields.integer("oja.rebases", rebases_);
  fields.flag("oja.rebase_pending", rebase_pending_);
  fields.flag("oja.last_rebased", last_rebased_);
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

void OjaSketch::cholesky_started(std::vector<double>& gram) const {
  const auto n = static_cast<std::size_t>(rows());
  for (auto i = static_cast<std::size_t>(started_); i < n; ++i) gram[i * n + i] = 1.0;  // empty rows: L = I there
  cholesky_lower(static_cast<int>(n), gram);
}

bool OjaSketch::orthonormalize() {
  const int n = static_cast<int>(rows());
  const auto r = static_cast<std::size_t>(n), started = static_cast<std::size_t>(started_);
  bool shifted = false;
  factor_ = basis_gram_;
  try {
    cholesky_started(factor_);  // V Vᵀ = L Lᵀ
  } catch (const LapackError&) {
    // κ(V)² beyond 1/u: shifted Cholesky QR (Fukaya et al. 2020, SIAM J. Sci. Comput. 42(1), eq. (4.1)),
    // L Lᵀ = V Vᵀ + sI with s = 11(dℓ + ℓ(ℓ+1))·u·‖V‖², ‖V‖² ≤ trace(V Vᵀ); L⁻¹V then has
    // κ ≲ u^{-1/2}. Every rank has the same Gram, so every rank takes this branch.
    double trace = 0.0;
    for (std::size_t i = 0; i < r; ++i) trace += basis_gram_[i * r + i];
    const double ell = static_cast<double>(n), d = static_cast<double>(partition().dim());
    const double s = 11.0 * (d * ell + ell * (ell + 1.0)) * (std::numeric_limits<double>::epsilon() / 2) * trace;
    factor_ = basis_gram_;
    for (std::size_t i = 0; i < started; ++i) factor_[i * r + i] += s;
    cholesky_started(factor_);
    shifted = true;
  }
  // V ← L⁻¹V  ⇔  V_fm ← V_fm L⁻ᵀ (feature-major).
  if (local_dim() > 0)
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, static_cast<int>(local_dim()), n,
                1.0, factor_.data(), n, stored().data(), n);
  // V Vᵀ = I to about u·κ(V)² on the started rows (orthonormalize_passes repeats the pass when that
  // is not round-off).
  std::fill(basis_gram_.begin(), basis_gram_.end(), 0.0);
  for (std::size_t i = 0; i < started; ++i) basis_gram_[i * r + i] = 1.0;
  return shifted;
}

void OjaSketch::orthonormalize_passes() {
  // One Cholesky QR leaves V' = LQ with ‖QQᵀ − I‖ ≈ u·κ(V')² (Yamamoto et al. 2015, ETNA 44), and
  // κ(V')² grows like γ_t²‖ĝ‖⁴: an ill-conditioned pass is repeated from freshly computed Grams
  // (CholeskyQR2, shifted CholeskyQR3 when Cholesky breaks down) until the last factor is well
  // conditioned; factor_ is then the product of the factors.
  bool shifted = orthonormalize();
  if (!shifted && !ill_conditioned()) return;
  std::copy(factor_.begin(), factor_.end(), accumulated_.begin());
  const int n = static_cast<int>(rows());
  for (int pass = 0; pass < kMaxExtraPasses && (shifted || ill_conditioned()); ++pass) {
    refresh_basis_gram();
    shifted = orthonormalize();
    // (L_1 ⋯ L_k) L_{k+1}, lower triangular: V_t = (L_1 ⋯ L_{k+1})⁻¹ V'.
    cblas_dtrmm(CblasRowMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0, factor_.data(), n,
                accumulated_.data(), n);
  }
  std::copy(accumulated_.begin(), accumulated_.end(), factor_.begin());
}

bool OjaSketch::starts_row(std::span<const double> p, double aa) {
  if (started_ == rows()) return false;
  double pp = 0.0;
  for (index_t i = 0; i < started_; ++i) pp += p[i] * p[i];
  if (!(aa - pp > kStartResidual * aa)) return false;
  ++started_;
  return true;
}

void OjaSketch::add_rank_one(const LocalRow& a, std::span<const double> v) {
  const index_t R = rows();
  note_written(a);
  auto y = stored();
  if (a.is_dense()) {
    if (local_dim() > 0)
      cblas_dger(CblasRowMajor, static_cast<int>(local_dim()), static_cast<int>(R), 1.0, a.values().data(), 1,
                 v.data(), 1, y.data(), static_cast<int>(R));
    return;
  }
  const auto idx = a.indices();
  const auto val = a.values();
  for (std::size_t k = 0; k < idx.size(); ++k) {
    double* feature = y.data() + idx[k] * R;
    for (index_t i = 0; i < R; ++i) feature[i] += val[k] * v[i];
  }
}

void OjaSketch::do_insert(const LocalRow& a, std::span<const double> za, double aa) {
  const index_t R = rows();
  const double t = static_cast<double>(inserted() + 1);
  for (index_t i = 0; i < R; ++i) step_gamma_[i] = gamma_[i] / t;  // Γ_t = diag(γ)/t
  if (form() == SketchForm::dense)
    insert_dense(a, za, aa, step_gamma_);
  else
    insert_sparse(a, za, aa, step_gamma_);
  // S_t = (tΛ_t)^{1/2} V_t, whose rows are orthogonal: SSᵀ = diag(tΛ_t).
  auto g = gram_mut();
  std::fill(g.begin(), g.end(), 0.0);
  for (index_t i = 0; i < R; ++i) {
    row_scale_mut()[i] = std::sqrt(std::max(t * lambda_[i], 0.0));
    g[i * R + i] = t * lambda_[i];
  }
}

void OjaSketch::insert_dense(const LocalRow& a, std::span<const double> ya, double aa, std::span<const double> gamma) {
  const index_t R = rows(), k = started_;
  std::fill(basis_gram_.begin(), basis_gram_.end(), 0.0);  // V Vᵀ: I on the started rows
  for (index_t i = 0; i < k; ++i) basis_gram_[i * R + i] = 1.0;
  auto p = std::span<double>(start_product_);
  std::copy(ya.begin(), ya.begin() + R, p.begin());  // p = V_{t−1} ĝ
  const bool started = starts_row(p, aa);
  if (started) {
    // Row k of V ← ĝ, whose Gram with the orthonormal rows before it is p, then one Gram–Schmidt
    // pass (L₁, kept in start_factor_): row k = r/‖r‖, and p ← L₁⁻¹(p + ‖ĝ‖² e_k), so p_k = ‖r‖.
    std::fill(q_.begin(), q_.end(), 0.0);
    q_[k] = 1.0;
    add_rank_one(a, q_);
    for (index_t i = 0; i < k; ++i) basis_gram_[k * R + i] = basis_gram_[i * R + k] = p[i];
    basis_gram_[k * R + k] = aa;
    orthonormalize_passes();
    std::copy(factor_.begin(), factor_.end(), start_factor_.begin());
    p[k] = aa;
    cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, static_cast<int>(R), start_factor_.data(),
                static_cast<int>(R), p.data(), 1);
  }
  // Eq. (4): Λ_t = (I − Γ_t) Λ_{t−1} + Γ_t (V_{t−1} ĝ)², with p = V_{t−1} ĝ.
  for (index_t i = 0; i < R; ++i) lambda_[i] = (1.0 - gamma[i]) * lambda_[i] + gamma[i] * p[i] * p[i];
  // V' = V + q ĝᵀ with q = Γ p; its Gram is G + p qᵀ + q pᵀ + ‖ĝ‖² q qᵀ.
  for (index_t i = 0; i < R; ++i) q_[i] = gamma[i] * p[i];
  add_rank_one(a, q_);
  if ((inserted() + 1) % options_.gram_refresh == 0) {
    refresh_basis_gram();
  } else {
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < R; ++j) basis_gram_[i * R + j] += p[i] * q_[j] + q_[i] * p[j] + aa * q_[i] * q_[j];
  }
  orthonormalize_passes();
  if (!started) return;
  // The whole step: V_t = (L₁L₂)⁻¹(V_{t−1} + (e_k + L₁q) ĝᵀ), the form update_product reads.
  const int n = static_cast<int>(R);
  cblas_dtrmv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, start_factor_.data(), n, q_.data(), 1);
  q_[k] += 1.0;
  cblas_dtrmm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, n, 1.0, start_factor_.data(), n,
              factor_.data(), n);
}

bool OjaSketch::ill_conditioned() const {
  // κ(V')² ≥ (max_i L_ii / min_i L_ii)² for the factor of the last pass; L_ii² is the squared
  // distance of row i from the span of the rows before it, small when the rows are nearly parallel.
  const auto n = static_cast<std::size_t>(rows()), started = static_cast<std::size_t>(started_);
  if (started == 0) return false;
  double lo = factor_[0], hi = factor_[0];
  for (std::size_t i = 1; i < started; ++i) {
    lo = std::min(lo, factor_[i * n + i]);
    hi = std::max(hi, factor_[i * n + i]);
  }
  return hi * hi > kOrthogonalityGrowth * lo * lo;
}

void OjaSketch::insert_sparse(const LocalRow& a, std::span<const double> za_in, double aa,
                              std::span<const double> gamma) {
  const index_t R = rows(), k = started_;
  const auto n = static_cast<std::size_t>(R);
  // z_a = Z a of the stored basis: after a rebase (Z ← FZ) it is F z_a of the caller's.
  last_rebased_ = rebase_pending_;
  auto za = std::span<double>(start_product_);
  std::copy(za_in.begin(), za_in.begin() + R, za.begin());
  if (rebase_pending_) {
    rebase();
    for (std::size_t i = n; i-- > 0;) {  // F lower triangular: from the bottom, in place
      double v = 0.0;
      for (std::size_t j = 0; j <= i; ++j) v += rebase_map_[i * n + j] * za[j];
      za[i] = v;
    }
  }
  // The data start: Z's empty row k ← ĝ (K gains row k: Z a and ‖ĝ‖²; F's row k is e_k), and F is
  // orthonormalized in the K inner product, so that row k of V = FZ is r/‖r‖ (Alg. 13).
  mix_lower(mixing_, za, product_);
  const bool started = starts_row(product_, aa);
  if (started) {
    for (index_t i = 0; i < R; ++i) basis_gram_[k * R + i] = basis_gram_[i * R + k] = za[i];
    basis_gram_[k * R + k] = aa;
    za[k] = aa;  // Z a with the new row
    orthonormalize_factor();
    mix_lower(mixing_, za, product_);
  }
  // Alg. 5 line 1: Λ ← (I − Γ)Λ + Γ diag(F Z ĝ)².
  for (index_t i = 0; i < R; ++i)
    lambda_[i] = (1.0 - gamma[i]) * lambda_[i] + gamma[i] * product_[i] * product_[i];
  // Lines 2–3: δ = F⁻¹ Γ F Z ĝ (γ_t Z ĝ for a scalar Γ_t); K ← K + δ ĝᵀZᵀ + Z ĝ δᵀ + ‖ĝ‖² δδᵀ; Z ← Z + δ ĝᵀ.
  if (uniform_gamma_) {
    for (index_t i = 0; i < R; ++i) q_[i] = gamma[0] * za[i];
  } else {
    for (index_t i = 0; i < R; ++i) {  // forward substitution F δ = Γ (F Z ĝ), F lower triangular
      double v = gamma[i] * product_[i];
      for (index_t j = 0; j < i; ++j) v -= mixing_[i * R + j] * q_[j];
      q_[i] = v / mixing_[i * R + i];
    }
  }
  const bool refresh = ++since_refresh_ >= options_.gram_refresh;
  if (!refresh)
    for (index_t i = 0; i < R; ++i)
      for (index_t j = 0; j < R; ++j) basis_gram_[i * R + j] += q_[i] * za[j] + za[i] * q_[j] + aa * q_[i] * q_[j];
  // The whole step: Z_t = Z_{t−1} + (e_k + δ) ĝᵀ, the form update_product reads.
  if (started) q_[k] += 1.0;
  add_rank_one(a, q_);
  if (refresh) {
    basis_gram(basis_gram_);  // exact K: its rank-two updates drift by round-off
    since_refresh_ = 0;
    ++refreshes_;
  }
  orthonormalize_factor();
}

void OjaSketch::orthonormalize_factor() {
  // Line 4 (Alg. 13, Gram–Schmidt of F in the K inner product): F K Fᵀ = L Lᵀ, F ← L⁻¹F, so that
  // F Z has orthonormal rows.
  const int r = static_cast<int>(rows());
  const auto n = static_cast<std::size_t>(r);
  cblas_dsymm(CblasRowMajor, CblasRight, CblasLower, r, r, 1.0, basis_gram_.data(), r, mixing_.data(), r, 0.0,
              scratch_.data(), r);  // F K
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, r, r, r, 1.0, scratch_.data(), r, mixing_.data(), r, 0.0,
              factor_.data(), r);  // F K Fᵀ
  cholesky_started(factor_);
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, r, r, 1.0, factor_.data(), r,
              mixing_.data(), r);
  // Forming F·(Z x) loses about log10(growth) digits to cancellation, growth = max_i Σ_j |F_ij| ‖Z_j‖
  // (the rows of FZ have unit norm): past 10⁴, rebase at the next insertion.
  double growth = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double g = 0.0;
    for (std::size_t j = 0; j <= i; ++j) g += std::abs(mixing_[i * n + j]) * std::sqrt(std::max(basis_gram_[j * n + j], 0.0));
    growth = std::max(growth, g);
  }
  if (!std::isfinite(growth)) throw NumericError("oja sketch: non-finite entry in the factor F");
  rebase_pending_ = growth > options_.max_growth;
}

void OjaSketch::rebase() {
  // Z ← F Z (feature-major: z_j ← F z_j for each touched feature, F lower triangular, in place from
  // the bottom), then K exact and F = L⁻¹ with LLᵀ = K.
  const int r = static_cast<int>(rows());
  const auto n = static_cast<std::size_t>(r);
  rebase_map_ = mixing_;
  auto z = stored();
  for_each_touched([&](index_t j) {
    double* feature = z.data() + static_cast<std::size_t>(j) * n;
    for (std::size_t i = n; i-- > 0;) {
      double v = 0.0;
      for (std::size_t k = 0; k <= i; ++k) v += rebase_map_[i * n + k] * feature[k];
      feature[i] = v;
    }
  });
  basis_gram(basis_gram_);
  factor_ = basis_gram_;
  cholesky_started(factor_);
  std::fill(mixing_.begin(), mixing_.end(), 0.0);
  for (std::size_t i = 0; i < n; ++i) mixing_[i * n + i] = 1.0;
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, r, r, 1.0, factor_.data(), r,
              mixing_.data(), r);
  since_refresh_ = 0;
  ++rebases_;
  rebase_pending_ = false;
}

void OjaSketch::mix_lower(std::span<const double> f, std::span<const double> z, std::span<double> out) const {
  const auto n = static_cast<std::size_t>(rows());
  for (std::size_t i = 0; i < n; ++i) {
    double v = 0.0;
    for (std::size_t j = 0; j <= i; ++j) v += f[i * n + j] * z[j];
    out[i] = v;
  }
}

void OjaSketch::mix(std::span<const double> z, std::span<double> out) const {
  if (form() == SketchForm::dense) return Sketch::mix(z, out);
  const auto s = row_scale();
  mix_lower(mixing_, z, out);  // M = diag(s) F
  for (std::size_t i = 0; i < s.size(); ++i) out[i] *= s[i];
}

void OjaSketch::mix_transpose(std::span<const double> v, std::span<double> out) const {
  if (form() == SketchForm::dense) return Sketch::mix_transpose(v, out);
  const auto s = row_scale();
  const auto n = s.size();
  for (std::size_t j = 0; j < n; ++j) {
    double acc = 0.0;
    for (std::size_t i = j; i < n; ++i) acc += mixing_[i * n + j] * s[i] * v[i];
    out[j] = acc;
  }
}

void OjaSketch::update_product(std::span<double> zz, double az) const {
  const index_t R = rows();
  if (form() == SketchForm::sparse) {
    if (last_rebased_) {
      const auto n = static_cast<std::size_t>(R);
      for (std::size_t i = n; i-- > 0;) {  // Z ← F Z (F lower triangular: from the bottom, in place)
        double v = 0.0;
        for (std::size_t j = 0; j <= i; ++j) v += rebase_map_[i * n + j] * zz[j];
        zz[i] = v;
      }
    }
    for (index_t i = 0; i < R; ++i) zz[i] += q_[i] * az;
    return;
  }
  for (index_t i = 0; i < R; ++i) zz[i] += q_[i] * az;
  // Forward substitution with L (row-major lower triangular).
  for (index_t i = 0; i < R; ++i) {
    double v = zz[i];
    for (index_t j = 0; j < i; ++j) v -= factor_[i * R + j] * zz[j];
    zz[i] = v / factor_[i * R + i];
  }
}

void OjaSketch::apply_basis_gram(std::span<const double> c, std::span<double> out) const {
  if (form() == SketchForm::dense) {  // V Vᵀ = I on the started rows, 0 on the empty ones
    for (index_t i = 0; i < rows(); ++i) out[i] = i < started_ ? c[i] : 0.0;
    return;
  }
  const int r = static_cast<int>(rows());
  cblas_dgemv(CblasRowMajor, CblasNoTrans, r, r, 1.0, basis_gram_.data(), r, c.data(), 1, 0.0, out.data(), 1);
}

double OjaSketch::update_coefficients(std::span<double> c, std::span<double>, index_t) const {
  const index_t R = rows();
  double qc = 0.0;
  for (index_t i = 0; i < R; ++i) qc += q_[i] * c[i];
  if (form() == SketchForm::sparse) {
    if (last_rebased_)
      for (index_t i = 0; i < R; ++i) ADASKETCH_REQUIRE(c[i] == 0.0, "coefficients must be folded before a rebase");
    return -qc;
  }
  // c ← Lᵀc (upper triangular times c, in place from the top).
  for (index_t i = 0; i < R; ++i) {
    double v = 0.0;
    for (index_t j = i; j < R; ++j) v += factor_[j * R + i] * c[j];
    c[i] = v;
  }
  return -qc;
}

}  // namespace adasketch
