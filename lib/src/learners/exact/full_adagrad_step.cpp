// FullAdaGrad's step (ADA-FD paper eq. (1), (2) with the full G_t): the weights, the scores and the
// update through the eigendecomposition of G_t on the process grid.
#include "adasketch/learners/exact/full_adagrad.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include "../../linalg/scalapack_api.hpp"
#include "../dense_slice.hpp"
#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"
#include "full_adagrad_grid.hpp"

namespace adasketch {

using detail::kOne;

void FullAdaGrad::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= w_.size(), "out.size() = " + number_text(out.size()) + ", needs " + number_text(w_.size()));
  std::copy(w_.begin(), w_.end(), out.begin());
}

void FullAdaGrad::add_local_scores(const LocalRow& x, std::span<double> out) const {
  if (!detail::slice_ok(x, local_dim())) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, local_dim()));
  const std::size_t K = out.size();
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k) out[k] += v * w_[class_entry(j, k, K)];
  });
}

StepResult FullAdaGrad::do_step(const LocalRow& x, double label) {
  const std::size_t K = sz(outputs()), dpk = w_.size();
  // The step's one Allreduce: [scores, ‖x‖², malformed slices] (docs/design.md §3).
  std::fill(reduce_.begin(), reduce_.end(), 0.0);
  const bool ok = detail::slice_ok(x, local_dim());
  if (ok) {
    add_local_scores(x, std::span<double>(reduce_).first(K));
    reduce_[K] = x.local_norm2();
  }
  reduce_[K + 1] = ok ? 0.0 : 1.0;
  comm().allreduce_sum(reduce_);
  if (reduce_[K + 1] != 0.0) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, local_dim()));
  const auto scores = std::span<const double>(reduce_).first(K);
  for (const double s : scores)
    if (!std::isfinite(s)) throw NumericError(name() + ": the score wᵀx is not finite");
  const StepResult result{loss().value(scores, label), loss().mistake(scores, label)};
  loss().derivative(scores, label, dscores_);
  double dd = 0.0;
  for (const double d : dscores_) dd += d * d;
  const double xx = reduce_[K], gg = xx * dd;  // ‖x ⊗ ∂ℓ/∂p‖² = ‖x‖²‖∂ℓ/∂p‖²
  if (!std::isfinite(gg)) throw NumericError(name() + ": the gradient is not finite");
  if (xx == 0.0 || dd == 0.0) return result;  // g = 0: G and the weights stay as they are
  trace_ += gg;
  if (!std::isfinite(trace_)) throw NumericError(name() + ": G = Σ g gᵀ overflowed (its trace is not finite)");

  // g = x ⊗ ∂ℓ/∂p in the feature layout (dual averaging: Σg += g in the second column).
  std::fill(g_.begin(), g_.begin() + static_cast<std::ptrdiff_t>(dpk), 0.0);
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k) g_[class_entry(j, k, K)] = v * dscores_[k];
  });
  if (dual_averaging())
    for (std::size_t e = 0; e < dpk; ++e) g_[dpk + e] += g_[e];

  Grid& gr = *grid_;
  const int n = gr.layout.n();
  gr.layout.to_grid(g_, gr.in);
  // G_t = G_{t−1} + g gᵀ. With x = y = g and α = 1 each entry adds the same product g_i g_j as its mirror.
  const double one = 1.0, zero = 0.0;
  pdger_(&n, &n, &one, gr.in.data(), &kOne, &kOne, gr.in.desc(), &kOne, gr.in.data(), &kOne, &kOne, gr.in.desc(),
         &kOne, gr.g.data(), &kOne, &kOne, gr.g.desc());

  // G = VΛVᵀ and H⁻¹ = V diag(φ) Vᵀ, φ_i = 1/(δ + √λ_i) (ADA-FD paper §2: H = δI + G^{1/2}).
  std::copy(gr.g.local().begin(), gr.g.local().end(), gr.copy.local().begin());
  const int lwork = static_cast<int>(gr.work.size()), liwork = static_cast<int>(gr.iwork.size());
  int info = 0;
  pdsyevd_("V", "L", &n, gr.copy.data(), &kOne, &kOne, gr.copy.desc(), gr.lambda.data(), gr.v.data(), &kOne, &kOne,
           gr.v.desc(), gr.work.data(), &lwork, gr.iwork.data(), &liwork, &info, 1, 1);
  // A failure (info > 0: an eigenvalue did not converge) may be seen on some processes only: agreed.
  if (const index_t worst = comm().allreduce_max(index_t{info}); worst != 0) throw LapackError("pdsyevd", worst);
  const double lambda_max = gr.lambda.back(), delta = options_.delta;  // ascending
  if (!std::isfinite(lambda_max)) throw NumericError(name() + ": non-finite eigenvalue of G");
  for (std::size_t i = 0; i < gr.lambda.size(); ++i) {
    const double l = gr.lambda[i];
    gr.phi[i] = lambda_max > 0.0 && l > options_.rank_tolerance * lambda_max ? 1.0 / (delta + std::sqrt(l)) : 1.0 / delta;
  }

  // out = V(φ ∘ Vᵀv) for v = g (mirror descent) or Σg (dual averaging): column 1 or 2 of `in`.
  const int column = dual_averaging() ? 2 : 1;
  pdgemv_("T", &n, &n, &one, gr.v.data(), &kOne, &kOne, gr.v.desc(), gr.in.data(), &kOne, &column, gr.in.desc(),
          &kOne, &zero, gr.rotated.data(), &kOne, &kOne, gr.rotated.desc(), &kOne);
  if (gr.rotated.local_cols() > 0)
    for (int r = 0; r < gr.rotated.local_rows(); ++r) gr.rotated.data()[r] *= gr.phi[sz(gr.layout.global_row(r))];
  pdgemv_("N", &n, &n, &one, gr.v.data(), &kOne, &kOne, gr.v.desc(), gr.rotated.data(), &kOne, &kOne,
          gr.rotated.desc(), &kOne, &zero, gr.out.data(), &kOne, &kOne, gr.out.desc(), &kOne);
  gr.layout.to_features(gr.out, step_);

  const double eta = options_.eta;
  if (dual_averaging()) {
    for (std::size_t e = 0; e < dpk; ++e) w_[e] = -eta * step_[e];  // eq. (1), φ = 0: w = −η H⁻¹ Σg
  } else {
    for (std::size_t e = 0; e < dpk; ++e) w_[e] -= eta * step_[e];  // eq. (2), φ = 0: w − η H⁻¹ g
  }
  return result;
}

}  // namespace adasketch
