#pragma once
/// @file
/// The options of SketchedNewton (fd-son, fast-fd-son, rp-son, oja-son, rfd-son, fast-rfd-son).
#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/hyperparameters.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// The hyperparameters of SketchedNewton: the table's rows marked N (hyperparameter_table.h, with its
/// defaults), and the settings below. Per learner: ell (m in SON) may be 0 (no sketch: A = αI, projected
/// online gradient descent), the fast variants buffer 2ℓ rows and oja needs ℓ ≤ d; alpha0 is SON's α
/// (> 0, or 0 for fd, fast-fd and rp: the pseudo-inverse, SON App. D), for rfd and fast-rfd the initial
/// α₀ of the sketch's α_t; C is the radius of K_t = {w : |wᵀx_t| ≤ C} (softmax: every class's score;
/// +∞ disables the projection); sigma is σ of SON's Assumption 2 (the squared loss has σ = 1/(8C²) on
/// |wᵀx|, |y| ≤ C; 0 assumes convexity only); eta scales the η_t schedule (a9a, squared loss: σ =
/// 1/(8C²) and η_t = 100/t make RFD-SON insensitive to α₀, jobs/son_a9a.sh); the seed drives rp (results
/// do not depend on the rank count); oja_gamma gives Oja-SON's Γ_t = diag(γ_1, …, γ_m)/t (SON eq. (4)),
/// each γ in (0, 1]; diag_rescale feeds D_t^{-1/2}x_t (SON §5.2; docs/design.md §2).
struct SketchedNewtonOptions {
  /// Sketch of the to-sketch vectors: fd, fast-fd (SON Alg. 2, 8), rp (Alg. 6), oja (Alg. 3, eq. (4)),
  /// rfd, fast-rfd (RFD paper Alg. 3, 4: α_t grows by σ_ℓ²/2 at every shrink).
  SketchKind sketch = SketchKind::fast_rfd;
  ADASKETCH_OPTIONS_FIELDS(N)
  /// Sparse oja sketch: the rebase threshold (OjaSketchOptions::max_growth, ≥ 1).
  double max_growth = defaults::max_growth;
  /// α = 0: eigenvalues of BBᵀ ≤ rank_tolerance·λ_max count as zero, and x counts as in range(A)
  /// when ‖(I − A⁺A)x‖² ≤ √rank_tolerance·‖x‖², in (0, 1). The Gram is exact to about R·u·λ_max
  /// (u = 2⁻⁵³); with κ ≤ 1/rank_tolerance, x̂ᵀHx̂ is accurate to about u/rank_tolerance·‖x‖² ≈ 1e-6‖x‖²,
  /// well inside the range test's √rank_tolerance = 1e-5. LearnerSpec has no field: make_learner
  /// uses the default.
  double rank_tolerance = 1e-10;
};

}  // namespace adasketch
