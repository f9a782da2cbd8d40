#pragma once
// The A-norm projection onto K slabs, for the multiclass SON step (sketched_newton.hpp) and the
// exact FULL-ON learner: with X ∈ R^{K×D} (rows x_k) and M = X A⁻¹ Xᵀ,
//   argmin_{|Xw|_∞ ≤ C} ‖w − u‖_A = u − A⁻¹Xᵀλ,
// where λ ∈ R^K is the multiplier of the box-constrained QP in the scores z = Xw (z0 = Xu):
//   min_{|z_k| ≤ C} ½(z − z0)ᵀM⁻¹(z − z0),   z = z0 − Mλ,
// i.e. the unique λ with, for every k, λ_k = 0 and |z_k| ≤ C, or λ_k > 0 and z_k = C, or λ_k < 0 and
// z_k = −C (the KKT conditions; equivalently λ minimizes ½λᵀMλ − z0ᵀλ + C‖λ‖₁). K = 1 gives Lemma 1's
// λ = τ_C(z0)/M.
//
// Solved exactly by the dual active-set method of Goldfarb and Idnani (1983) specialized to box
// constraints: start from λ = 0 (z = z0, the unconstrained minimizer), repeatedly take the most
// violated bound p and raise its multiplier along the direction that keeps the bounds of the active
// set W, dropping an active bound whose multiplier reaches zero first (a partial step) until z_p
// reaches its bound (a full step, p joins W). The dual objective increases strictly at every step
// and no (W, p) repeats, so the method ends after finitely many steps (at most 3^K; a few times K in
// practice) with the KKT point. Each step solves with the Cholesky factor of M_WW: O(K³).
// M must be symmetric positive definite (NumericError otherwise). No allocation per solve.
#include <span>
#include <vector>

#include "adasketch/types.hpp"

namespace adasketch::detail {

class BoxProjection {
 public:
  /// Workspace for K ≥ 1 scores.
  explicit BoxProjection(index_t K);
  /// λ for M (K×K row-major, symmetric positive definite), z0 (K) and C > 0 (+∞: λ = 0). A bound
  /// counts as violated when |z_k| − C exceeds 1e-14·max(C, max_k |z0_k|) (round-off of z = z0 − Mλ).
  void solve(std::span<const double> M, std::span<const double> z0, double C, std::span<double> lambda);
  /// Steps (full and partial) of the last solve.
  index_t steps() const noexcept { return steps_; }

 private:
  /// d_W = −M_WW⁻¹ M_Wp into direction_ (|W| entries) and returns the Schur complement
  /// M_pp − M_pW M_WW⁻¹ M_Wp.
  double direction(std::span<const double> M, index_t p);

  index_t K_;
  index_t steps_ = 0;
  std::vector<index_t> active_;      // W, in order of addition
  std::vector<bool> in_active_;
  std::vector<double> z_, factor_, direction_, rhs_;
};

}  // namespace adasketch::detail
