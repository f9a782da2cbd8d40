#pragma once
/// @file
/// The options of CompAdaGrad (comp-adagrad, comp-adagrad-da).
#include "adasketch/learners/hyperparameters.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// The hyperparameters of CompAdaGrad: the table's rows marked C (hyperparameter_table.h, with its
/// defaults: ell is the SRHT's k, 0 ≤ k ≤ n with dK padded to a power of two; δ_r = δ_c = delta; tau
/// weighs the complement block, τ > 0 or λ₂ > 0; lambda2 is the paper's λ; seed draws the SRHT's rows
/// and signs), and the settings below.
struct CompAdaGradOptions {
  /// The update: the paper's mirror descent, or dual averaging.
  enum class Update {
    mirror_descent,  ///< composite mirror descent, eq. (2): the paper's algorithm
    dual_averaging,  ///< x_{t+1} = argmin η⟨ḡ_t, x⟩ + ηtφ(x) + ½‖x‖²_{A_t} (docs/design.md §2)
  };
  /// Where δ sits in the subspace block (docs/design.md §2, "CompAdaGrad").
  enum class Placement {
    outside_root,  ///< K = (Π̃GΠ̃ᵀ)^{1/2} + δI (eq. (19)): the default
    inside_root,   ///< Π̃ᵀKΠ̃ = Πᵀ(ΠGΠᵀ + δI)^{1/2}Π (eq. (5))
  };
  ADASKETCH_OPTIONS_FIELDS(C)
  Placement placement = Placement::outside_root;  ///< where δ sits (no LearnerSpec field)
  Update update = Update::mirror_descent;  ///< mirror descent, or dual averaging ("-da")
  /// Eigenvalues λ_i ≤ rank_tolerance·λ_max of Π̃GΠ̃ᵀ count as zero, in [0, 1): the eigensolver fixes
  /// them only to about k·u·λ_max, and the square root would turn that into √(k·u·λ_max).
  double rank_tolerance = 1e-15;
  /// ℓ1 step: stop when ‖dist(0, ∂f(x))‖₂ ≤ lasso_tolerance·‖s‖₂ with s_j the sum of the magnitudes
  /// of the terms of ∂f/∂x_j (so round-off alone cannot prevent it), in (0, 1).
  double lasso_tolerance = 1e-12;
  /// ℓ1 step: NumericError beyond lasso_max_iterations + 4n solver steps (Newton, feature-sign or
  /// proximal; n = dK padded to a power of two, since a feature-sign step adds one coordinate).
  int lasso_max_iterations = 100;
};

}  // namespace adasketch
