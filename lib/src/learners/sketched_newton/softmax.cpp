// SketchedNewton with K > 1 scores (softmax; sketched_newton.hpp): the class rows X_k = x ⊗ e_k of
// the dK-dimensional weight space, the projection onto K_t = {W : |W_kᵀx| ≤ C for every k} by the
// box-constrained QP (box_projection.hpp), and the Newton step on g = x ⊗ ∂ℓ/∂p.
#include <algorithm>
#include <cmath>
#include <string>

#include "../box_projection.hpp"
#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"

namespace adasketch {

void SketchedNewton::build_class_rows(const LocalRow& x) const {
  const index_t K = classes_;
  const auto v = x.values();
  ADASKETCH_REQUIRE(x.is_dense() ? static_cast<index_t>(v.size()) == local_dim()
                                 : static_cast<index_t>(v.size()) <= local_dim(),
                    "the example has " + number_text(v.size()) + " local entries for " + number_text(local_dim()) +
                        " local features");
  const std::size_t n = v.size();
  if (!x.is_dense()) {
    const auto idx = x.indices();
    for (index_t k = 0; k < K; ++k)
      for (std::size_t e = 0; e < n; ++e) work_.class_index[sz(k) * n + e] = class_entry(idx[e], k, K);
  }
  if (!options_.diag_rescale) return;
  for (index_t k = 0; k < K; ++k) {  // X_k = D^{-1/2}(x ⊗ e_k)
    const index_t* rows = x.is_dense() ? dense_class_index_.data() + sz(k) * n : work_.class_index.data() + sz(k) * n;
    for (std::size_t e = 0; e < n; ++e) work_.class_value[sz(k) * n + e] = v[e] / std::sqrt(diag_[sz(rows[e])]);
  }
}

LocalRow SketchedNewton::class_row(const LocalRow& x, index_t k) const {
  const std::size_t n = x.values().size();
  const std::span<const index_t> idx =
      x.is_dense() ? std::span<const index_t>(dense_class_index_).subspan(sz(k) * n, n)
                   : std::span<const index_t>(work_.class_index).subspan(sz(k) * n, n);
  const std::span<const double> val =
      options_.diag_rescale ? std::span<const double>(work_.class_value).subspan(sz(k) * n, n) : x.values();
  return LocalRow::sparse(idx, val);
}

bool SketchedNewton::project_classes(const LocalRow& x) const {
  const index_t K = classes_, R = rows_, Rz = basis_;
  build_class_rows(x);
  // The example's one Allreduce: [Z_p X_k, ū_pᵀX_k, ‖X_k‖² for k < K] (docs/design.md §3).
  std::fill(work_.reduce.begin(), work_.reduce.end(), 0.0);
  for (index_t k = 0; k < K; ++k) {
    const LocalRow row = class_row(x, k);
    if (sketch_) sketch_->add_local_product(row, std::span<double>(work_.reduce).subspan(sz(k * Rz), sz(Rz)));
    work_.reduce[sz(K * Rz + k)] = detail::local_dot(ubar_, row) + (sketch_ ? sketch_->local_deferred_dot(row) : 0.0);
    work_.reduce[sz(K * Rz + K + k)] = row.local_norm2();
  }
  comm().allreduce_sum(work_.reduce);
  bool active = false;
  for (index_t k = 0; k < K; ++k) {
    double z = work_.reduce[sz(K * Rz + k)];
    for (index_t i = 0; i < Rz; ++i) {
      work_.zxk[sz(k * Rz + i)] = work_.reduce[sz(k * Rz + i)];
      z += c_[sz(i)] * work_.zxk[sz(k * Rz + i)];  // uᵀX_k = ūᵀX_k + cᵀ(Z X_k)
    }
    if (!std::isfinite(z)) throw NumericError(name() + ": the score uᵀx is not finite");
    work_.scores[sz(k)] = z;
    work_.norms[sz(k)] = work_.reduce[sz(K * Rz + K + k)];
    active = active || std::abs(z) > options_.C;
  }
  if (!active || work_.norms[0] == 0.0) return false;  // x = 0: every score is 0
  // αM = diag(‖X_k‖²) − YᵀY with Y_k = L⁻¹x̂_k, x̂_k = B X_k (Woodbury; disjoint supports).
  const double alpha = sketch_ ? factor_alpha_ : options_.alpha0;
  for (index_t k = 0; k < K; ++k) {
    double* y = work_.xhat.data() + k * R;
    if (sketch_) {
      sketch_->mix(std::span<const double>(work_.zxk).subspan(sz(k * Rz), sz(Rz)), std::span<double>(y, sz(R)));
      forward(std::span<double>(y, sz(R)));
    }
  }
  for (index_t k = 0; k < K; ++k)
    for (index_t l = 0; l <= k; ++l) {
      double m = k == l ? work_.norms[sz(k)] : 0.0;
      for (index_t i = 0; i < R; ++i) m -= work_.xhat[sz(k * R + i)] * work_.xhat[sz(l * R + i)];
      if (k == l)  // α X_kᵀA⁻¹X_k ≥ α‖X_k‖²/(α + tr BBᵀ), as for K = 1
        m = std::max(m, alpha * work_.norms[sz(k)] / (alpha + factor_trace_));
      work_.mtilde[sz(k * K + l)] = m;
      work_.mtilde[sz(l * K + k)] = m;
    }
  box_->solve(work_.mtilde, work_.scores, options_.C, work_.lambda);  // λ' = λ/α
  // work_.hx = Σ_k λ'_k H x̂_k = L⁻ᵀ(Σ_k λ'_k Y_k).
  std::fill(work_.hx.begin(), work_.hx.end(), 0.0);
  for (index_t k = 0; k < K; ++k)
    for (index_t i = 0; i < R; ++i) work_.hx[sz(i)] += work_.lambda[sz(k)] * work_.xhat[sz(k * R + i)];
  if (sketch_) backward(work_.hx);
  return true;
}

StepResult SketchedNewton::step_classes(const LocalRow& x, double label) {
  const index_t K = classes_, Rz = basis_;
  if (sketch_) {  // the folds the sketch deferred on the class rows' features, into ū
    build_class_rows(x);
    for (index_t k = 0; k < K; ++k) sketch_->settle(class_row(x, k), ubar_);
  }
  const bool active = project_classes(x);
  // ū collects multiples of each X_k (projection, β of the insertion, Woodbury term) in work_.ucoef and
  // takes them in one pass at the end; Zᵀc is folded in only before a restructuring insertion.
  std::fill(work_.ucoef.begin(), work_.ucoef.end(), 0.0);
  if (active) {
    // w = u − Σ_k λ'_k(X_k − BᵀHx̂_k): ū −= λ'_k X_k, c += Mᵀ(Σ_k λ'_k Hx̂_k). Predictions p = z − αMλ'.
    for (index_t k = 0; k < K; ++k) {
      work_.ucoef[sz(k)] -= work_.lambda[sz(k)];
      double p = work_.scores[sz(k)];
      for (index_t l = 0; l < K; ++l) p -= work_.mtilde[sz(k * K + l)] * work_.lambda[sz(l)];
      // An active bound holds exactly (KKT): p_k = ±C, so classes tied at C stay exact ties.
      work_.dscores[sz(k)] = work_.lambda[sz(k)] > 0.0 ? options_.C : work_.lambda[sz(k)] < 0.0 ? -options_.C : p;
    }
    std::copy(work_.dscores.begin(), work_.dscores.end(), work_.scores.begin());
    if (sketch_) {
      sketch_->mix_transpose(work_.hx, work_.dc);
      for (index_t i = 0; i < Rz; ++i) c_[sz(i)] += work_.dc[sz(i)];
    }
    ++projections_;
  }
  const StepResult result{loss().value(work_.scores, label), loss().mistake(work_.scores, label)};
  loss().derivative(work_.scores, label, work_.dscores);
  if (options_.diag_rescale) rescale_classes_for_step(x);
  double gg = 0.0;  // ‖g‖² = Σ_k (∂ℓ/∂p_k)²‖X_k‖², g = Σ_k ∂ℓ/∂p_k X_k
  for (index_t k = 0; k < K; ++k) gg += work_.dscores[sz(k)] * work_.dscores[sz(k)] * work_.norms[sz(k)];
  if (gg > 0.0) {
    const double root = std::sqrt(options_.sigma + eta(steps() + 1));  // ĝ = root·g (SON Alg. 1 line 7)
    bool in_row_space = false;
    index_t slot = -1;
    if (sketch_ && root != 0.0) {
      Sketch& sk = *sketch_;
      // A shrink or a rebase: fold u = ū + Zᵀc into ū first.
      if (sk.next_insert_restructures()) sk.fold_coefficients(c_, ubar_);
      // ĝ = root Σ_k ∂ℓ/∂p_k X_k as a local row of the dK-dimensional sketch; Zĝ from the reduced Z X_k.
      const std::size_t n = x.values().size();
      for (index_t k = 0; k < K; ++k) {  // feature-major: entry (e, k) at e·K + k
        const LocalRow row = class_row(x, k);
        const double f = root * work_.dscores[sz(k)];
        for (std::size_t e = 0; e < n; ++e) {
          work_.ghat.data()[e * sz(K) + sz(k)] = f * row.values()[e];
          work_.ghat_index[e * sz(K) + sz(k)] = row.indices()[e];
        }
      }
      const std::span<const double> gv(work_.ghat.data(), n * sz(K));
      const LocalRow ghat =
          x.is_dense() ? LocalRow::dense(gv) : LocalRow::sparse(std::span<const index_t>(work_.ghat_index).first(n * sz(K)), gv);
      for (index_t i = 0; i < Rz; ++i) {
        double v = 0.0;
        for (index_t k = 0; k < K; ++k) v += work_.dscores[sz(k)] * work_.zxk[sz(k * Rz + i)];
        work_.zgrad[sz(i)] = v;  // Z g
        work_.zg[sz(i)] = root * v;  // Z ĝ
      }
      sk.insert(ghat, work_.zg, root * root * gg);
      const double beta = sk.update_coefficients(c_, ubar_, 1);  // Z_oldᵀc = Z_newᵀc' + βĝ + (retired rows)
      for (index_t k = 0; k < K; ++k) work_.ucoef[sz(k)] += beta * root * work_.dscores[sz(k)];
      sk.update_product(work_.zgrad, root * gg);  // Z_new g, with ĝᵀg = root‖g‖²
      slot = sk.last_appended_row();
      if (slot >= 0) {
        factor_row(slot);
        in_row_space = true;
      } else {
        factor_all();
      }
    }
    // SON Alg. 1 line 9: u_{t+1} = w_t − A_t⁻¹g.
    if (in_row_space) {  // g = Bᵀe_slot/root: A⁻¹g = BᵀHe_slot/root
      std::fill(work_.rhs.begin(), work_.rhs.end(), 0.0);
      work_.rhs[sz(slot)] = 1.0;
      forward(work_.rhs);
      backward(work_.rhs);
      sketch_->mix_transpose(work_.rhs, work_.dc);
      for (index_t i = 0; i < Rz; ++i) c_[sz(i)] -= work_.dc[sz(i)] / root;
    } else {
      // Woodbury: A⁻¹g = (g − BᵀHBg)/α: ū −= (∂ℓ/∂p_k/α)X_k, c += Mᵀ(H Bg)/α (A = αI without a sketch).
      const double alpha = sketch_ ? factor_alpha_ : options_.alpha0;  // α_t after the insertion (RFD)
      if (sketch_) {
        sketch_->mix(work_.zgrad, work_.rhs);
        forward(work_.rhs);
        backward(work_.rhs);
        sketch_->mix_transpose(work_.rhs, work_.dc);
        for (index_t i = 0; i < Rz; ++i) c_[sz(i)] += work_.dc[sz(i)] / alpha;
      }
      for (index_t k = 0; k < K; ++k) work_.ucoef[sz(k)] -= work_.dscores[sz(k)] / alpha;
    }
  }
  for (index_t k = 0; k < K; ++k) detail::add_scaled(class_row(x, k), work_.ucoef[sz(k)], ubar_);
  return result;
}

void SketchedNewton::rescale_classes_for_step(const LocalRow& x) {
  const index_t K = classes_, Rz = basis_;
  if (std::all_of(work_.dscores.begin(), work_.dscores.end(), [](double v) { return v == 0.0; })) return;
  // The projection's multiples of X_k = D_t^{-1/2}(x ⊗ e_k), before build_class_rows rewrites them.
  for (index_t k = 0; k < K; ++k) detail::add_scaled(class_row(x, k), work_.ucoef[sz(k)], ubar_);
  std::fill(work_.ucoef.begin(), work_.ucoef.end(), 0.0);
  // SON §5.2 as in do_step (step.cpp): D_{jK+k} += (∂ℓ/∂p_k x_j)², the diagonal of g gᵀ in the original
  // coordinates; the step sees X_k = D_{t+1}^{-1/2}(x ⊗ e_k).
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (index_t k = 0; k < K; ++k) diag_[j * sz(K) + sz(k)] += (work_.dscores[sz(k)] * v) * (work_.dscores[sz(k)] * v);
  });
  build_class_rows(x);
  if (!sketch_) return;  // without a sketch the step needs neither Z X_k nor ‖X_k‖² beyond g ≠ 0
  // The second Allreduce (docs/design.md §3): [Z X_k, ‖X_k‖² for k < K] of the new rows.
  const std::span<double> buf = std::span<double>(work_.reduce).first(sz(K * Rz + K));
  std::fill(buf.begin(), buf.end(), 0.0);
  for (index_t k = 0; k < K; ++k) {
    const LocalRow row = class_row(x, k);
    sketch_->add_local_product(row, buf.subspan(sz(k * Rz), sz(Rz)));
    buf[sz(K * Rz + k)] = row.local_norm2();
  }
  comm().allreduce_sum(buf);
  std::copy_n(buf.begin(), sz(K * Rz), work_.zxk.begin());
  for (index_t k = 0; k < K; ++k) work_.norms[sz(k)] = buf[sz(K * Rz + k)];
}

}  // namespace adasketch
