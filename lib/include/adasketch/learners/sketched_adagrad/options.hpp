#pragma once
/// @file
/// The options of SketchedAdaGrad (ada-fd, fast-ada-fd, ada-gp, ada-dp and their dual-averaging forms).
#include "adasketch/learners/hyperparameters.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// The hyperparameters of SketchedAdaGrad: the table's rows marked A (hyperparameter_table.h: ell ≥ 1,
/// eta, delta with H = δI + (BᵀB)^{1/2}, seed of the random projections r_t[i] =
/// Philox(seed).normal(t, i)/√ℓ, form, lambda1, lambda2, scale, with its defaults), and the settings below.
struct SketchedAdaGradOptions {
  /// What is sketched, and how.
  enum class Sketching {
    fd_gradients,       ///< Frequent Directions of the gradients, ℓ rows (ADA-FD)
    fast_fd_gradients,  ///< fast FD of the gradients: 2ℓ-row buffer, shrunk when full (amortized O(ℓd))
    rp_gradients,       ///< Gaussian random projection of the gradients, r_t ~ N(0, I/ℓ) (ADA-GP)
    rp_data,            ///< Gaussian random projection of the examples x_t (ADA-DP)
  };
  /// The update: mirror descent or dual averaging (both take the composite φ).
  enum class Update {
    mirror_descent,  ///< composite mirror descent, φ = 0 (ADA-FD Alg. 2; ADA-GP Alg. 1; ADA-DP Alg. 2)
    dual_averaging,  ///< primal-dual subgradient / dual averaging, φ = 0 (ADA-FD Alg. 1, eq. (6))
  };
  Sketching sketching = Sketching::fd_gradients;  ///< what is sketched (ada-fd, fast-ada-fd, ada-gp, ada-dp)
  Update update = Update::mirror_descent;  ///< mirror descent, or dual averaging ("-da")
  ADASKETCH_OPTIONS_FIELDS(A)
  /// Eigenvalues λ_i ≤ rank_tolerance·λ_max of BBᵀ count as zero: the round-off level of the
  /// eigensolver (about R·u·λ_max) for a rank-deficient sketch. In [0, 1). Genuine eigenvalues this
  /// small (e.g. rows of nearly vanished gradients) are dropped too, which changes H⁻¹ by at most
  /// √(rank_tolerance·λ_max)/δ; 1e-12 already moves ADA-FD's weights by ~1e-7 in such runs.
  double rank_tolerance = 1e-15;
  /// λ₁ > 0: the ℓ1 prox stops when ‖∇D(μ)‖ ≤ prox_tolerance·max(‖μ‖, ‖Cw‖) in its dual (or on
  /// reaching the optimum of a quadratic piece), in (0, 1). No LearnerSpec field: make_learner uses
  /// the default.
  double prox_tolerance = 1e-12;
};

}  // namespace adasketch
