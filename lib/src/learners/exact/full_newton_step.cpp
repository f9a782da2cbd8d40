// FullNewton's step (SON Alg. 1 with the full A_t, kept as A_t⁻¹ by rank-one updates): the weights, the
// scores, the projection and the Newton step on the process grid.
#include "adasketch/learners/exact/full_newton.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "../../linalg/scalapack_api.hpp"
#include "../box_projection.hpp"
#include "../dense_slice.hpp"
#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"
#include "full_newton_grid.hpp"

namespace adasketch {

using detail::kOne;

void FullNewton::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= u_.size(), "out.size() = " + number_text(out.size()) + ", needs " + number_text(u_.size()));
  std::copy(u_.begin(), u_.end(), out.begin());
  if (options_.diag_rescale)
    for (std::size_t e = 0; e < diag_.size(); ++e) out[e] /= std::sqrt(diag_[e]);  // w = D^{-1/2}u
}

void FullNewton::add_local_scores(const LocalRow& x, std::span<double> out) const {
  if (!detail::slice_ok(x, local_dim())) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, local_dim()));
  const std::size_t K = out.size();
  if (options_.diag_rescale) {
    detail::for_each_nonzero(x, [&](std::size_t j, double v) {  // uᵀX_k, X_k = D^{-1/2}(x ⊗ e_k)
      for (std::size_t k = 0; k < K; ++k) {
        const std::size_t e = class_entry(j, k, K);
        out[k] += u_[e] * (v / std::sqrt(diag_[e]));
      }
    });
  } else {
    detail::for_each_nonzero(x, [&](std::size_t j, double v) {
      for (std::size_t k = 0; k < K; ++k) out[k] += u_[class_entry(j, k, K)] * v;
    });
  }
}

void FullNewton::build_class_rows() {
  const std::size_t dp = dense_.size(), K = sz(outputs()), column = dp * K;
  std::fill(x_.begin(), x_.end(), 0.0);
  for (std::size_t j = 0; j < dp; ++j)
    for (std::size_t k = 0; k < K; ++k) {
      const std::size_t e = class_entry(j, k, K);  // X_k's entry for feature j
      x_[k * column + e] = options_.diag_rescale ? dense_[j] / std::sqrt(diag_[e]) : dense_[j];
    }
}

void FullNewton::local_sums(bool ok) {
  const std::size_t dp = dense_.size(), K = sz(outputs()), column = dp * K;
  std::fill(reduce_.begin(), reduce_.end(), 0.0);
  double* z = reduce_.data();
  double* lower = z + K;                 // M_kl, l ≤ k, row by row
  double* norms = lower + K * (K + 1) / 2;
  for (std::size_t j = 0; j < dp; ++j)
    for (std::size_t k = 0; k < K; ++k) {
      const std::size_t e = class_entry(j, k, K);
      const double xk = x_[k * column + e];  // X_k is nonzero only at the entries j·K + k
      z[k] += u_[e] * xk;
      norms[k] += xk * xk;
      for (std::size_t l = 0; l <= k; ++l) lower[k * (k + 1) / 2 + l] += xk * v_[l * column + e];
    }
  reduce_.back() = ok ? 0.0 : 1.0;
}

bool FullNewton::products(const LocalRow& x, bool ok) {
  Grid& gr = *grid_;
  const int n = gr.layout.n(), Kc = outputs();
  const std::size_t K = sz(Kc);
  build_class_rows();  // SON §5.2: the algorithm sees D^{-1/2}x
  gr.layout.to_grid(x_, gr.x);
  const double one = 1.0, zero = 0.0;
  pdgemm_("N", "N", &n, &Kc, &n, &one, gr.inverse.data(), &kOne, &kOne, gr.inverse.desc(), gr.x.data(), &kOne, &kOne,
          gr.x.desc(), &zero, gr.v.data(), &kOne, &kOne, gr.v.desc());  // V = A_{t−1}⁻¹Xᵀ
  gr.layout.to_features(gr.v, v_);
  // The step's Allreduce: [z, M's lower triangle, ‖X_k‖², malformed slices] (docs/design.md §3).
  local_sums(ok);
  comm().allreduce_sum(reduce_);
  if (reduce_.back() != 0.0) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, local_dim()));
  for (std::size_t i = 0; i + 1 < reduce_.size(); ++i)
    if (!std::isfinite(reduce_[i])) throw NumericError(name() + ": the score uᵀx is not finite");
  const double* lower = reduce_.data() + K;
  const double floor = 1.0 / (options_.alpha0 + curvature_);  // λ_max(A)⁻¹ ≥ (α + tr(A − αI))⁻¹
  bool active = false;
  for (std::size_t k = 0; k < K; ++k) {
    z_[k] = reduce_[k];
    norms_[k] = reduce_[K + K * (K + 1) / 2 + k];
    active = active || std::abs(z_[k]) > options_.C;
    for (std::size_t l = 0; l <= k; ++l) m_[k * K + l] = m_[l * K + k] = lower[k * (k + 1) / 2 + l];
    m_[k * K + k] = std::max(m_[k * K + k], norms_[k] * floor);  // X_kᵀA⁻¹X_k ≥ ‖X_k‖²/λ_max(A)
  }
  return active;
}

StepResult FullNewton::do_step(const LocalRow& x, double label) {
  Grid& gr = *grid_;
  const int n = gr.layout.n();
  const std::size_t K = sz(outputs()), column = u_.size();
  const bool ok = detail::slice_ok(x, local_dim());
  detail::densify(x, dense_);  // zero on a malformed slice: every rank still takes part until the Allreduce
  const bool active = products(x, ok);
  const double floor = 1.0 / (options_.alpha0 + curvature_);

  // SON Alg. 1 line 5 (Lemma 1; K > 1 the box QP): w = u − Vλ, predictions p = z − Mλ.
  if (active) {  // x = 0 has z = 0: never active
    box_->solve(m_, z_, options_.C, lambda_);
    for (std::size_t k = 0; k < K; ++k) {
      const double* vk = v_.data() + k * column;
      for (std::size_t e = 0; e < column; ++e) u_[e] -= lambda_[k] * vk[e];
    }
    for (std::size_t k = 0; k < K; ++k) {  // an active bound holds exactly: p_k = ±C (KKT)
      double p = z_[k];
      for (std::size_t l = 0; l < K; ++l) p -= m_[k * K + l] * lambda_[l];
      dscores_[k] = lambda_[k] > 0.0 ? options_.C : lambda_[k] < 0.0 ? -options_.C : p;  // until ∂ℓ/∂p overwrites them
    }
    std::copy(dscores_.begin(), dscores_.end(), z_.begin());
    ++projections_;
  }
  const StepResult result{loss().value(z_, label), loss().mistake(z_, label)};
  loss().derivative(z_, label, dscores_);
  // SON §5.2 as the paper's runs (Vowpal Wabbit's OjaNewton) do it: D takes the diagonal of g gᵀ, g =
  // x ⊗ ∂ℓ/∂p in the original coordinates, and the step sees X_k = D_{t+1}^{-1/2}(x ⊗ e_k): V, M and
  // ‖X_k‖² again, with a second Allreduce (sketched_newton's step.cpp, do_step).
  if (options_.diag_rescale && std::any_of(dscores_.begin(), dscores_.end(), [](double v) { return v != 0.0; })) {
    detail::for_each_nonzero(x, [&](std::size_t j, double v) {
      for (std::size_t k = 0; k < K; ++k) diag_[class_entry(j, k, K)] += (dscores_[k] * v) * (dscores_[k] * v);
    });
    products(x, ok);
  }
  double gg = 0.0, q = 0.0;  // ‖g‖² = Σ_k (∂ℓ/∂p_k)²‖X_k‖² (disjoint supports), q_g = ∂ℓᵀM∂ℓ = gᵀA⁻¹g
  for (std::size_t k = 0; k < K; ++k) {
    gg += dscores_[k] * dscores_[k] * norms_[k];
    for (std::size_t l = 0; l < K; ++l) q += dscores_[k] * m_[k * K + l] * dscores_[l];
  }
  if (gg == 0.0) return result;  // g_t = 0: u_{t+1} = w_t, A_t = A_{t−1}
  q = std::max(q, gg * floor);

  // Alg. 1 line 9 with A_t = A_{t−1} + s g gᵀ, s = σ + η_t: A_t⁻¹g = v_g/(1 + s q_g), v_g = V∂ℓ/∂p.
  const double s = options_.sigma + eta(steps() + 1);
  const double denominator = 1.0 + s * q;
  for (std::size_t k = 0; k < K; ++k) {
    const double a = dscores_[k] / denominator;
    const double* vk = v_.data() + k * column;
    for (std::size_t e = 0; e < column; ++e) u_[e] -= a * vk[e];
  }
  if (s == 0.0) return result;
  // Sherman–Morrison: A_t⁻¹ = A_{t−1}⁻¹ − (r v_g)(r v_g)ᵀ, r = √(s/(1 + s q_g)).
  const double r = std::sqrt(s / denominator), minus_one = -1.0;
  DistributedMatrix* update = &gr.v;
  if (K == 1) {  // r v_g = (r ℓ') v, scaled where it is on the grid
    if (gr.v.local_cols() > 0)
      for (int i = 0; i < gr.v.local_rows(); ++i) gr.v.data()[i] *= r * dscores_[0];
  } else {
    std::fill(g_.begin(), g_.end(), 0.0);
    for (std::size_t k = 0; k < K; ++k) {
      const double a = r * dscores_[k];
      const double* vk = v_.data() + k * column;
      for (std::size_t e = 0; e < column; ++e) g_[e] += a * vk[e];
    }
    update = &*gr.update;
    gr.layout.to_grid(g_, *update);
  }
  pdger_(&n, &n, &minus_one, update->data(), &kOne, &kOne, update->desc(), &kOne, update->data(), &kOne, &kOne,
         update->desc(), &kOne, gr.inverse.data(), &kOne, &kOne, gr.inverse.desc());
  curvature_ += s * gg;
  return result;
}

}  // namespace adasketch
