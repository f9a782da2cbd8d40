#pragma once
// CompAdaGrad's ℓ1 composite step (Mehta et al. 2016, §4.2, eq. (16)): the LASSO
//
//   min_x f(x) = ½xᵀQx + uᵀx + μ‖x‖₁,   Q = Π̃ᵀK̂Π̃ + P⊥DP⊥ + λI,
//
// with Π̃ the SRHT (Π̃Π̃ᵀ = I, P = Π̃ᵀΠ̃, P⊥ = I − P), K̂ ≻ 0 (k × k, replicated), D ≥ 0 diagonal and
// E = D + λI ≻ 0 (distributed like x). The paper runs LARS with implicit covariates A^{1/2}; this is
// another exact method, suited to the distributed shape, that stops at a stated tolerance.
//
// Structure: Q = E + VSVᵀ with V = [Π̃ᵀ, DΠ̃ᵀ] (n × 2k) and S = [[K̂ + M, −I], [−I, 0]], M = Π̃DΠ̃ᵀ:
// with a = Π̃x and b = Π̃Dx, Qx = Ex + Π̃ᵀ((K̂ + M)a − b) − D Π̃ᵀa and xᵀQx = xᵀEx + aᵀ(K̂ + M)a − 2aᵀb.
//
// Method: a primal-dual active-set (semismooth Newton) iteration. From a point x with gradient
// r = Qx + u, the predicted support J = {j : |E_j x_j − r_j| > μ} and signs s_j give the Newton point:
// x_J = Q_JJ⁻¹β_J, β = −(u + μs), x = 0 off J, by Woodbury through the 2k × 2k system
// C = S⁻¹ + V_JᵀE_J⁻¹V_J = [[N₀, N₁ − I], [N₁ − I, N₂ − K̂ − M]], N_p = Π̃ diag(1_J D^p/E) Π̃ᵀ (LU,
// replicated; C is nonsingular since Q_JJ and S are). When J and s are those of the minimizer, this is
// the minimizer.
//
// Globalization: a Newton point is kept only if f strictly decreases. Otherwise, from the last kept
// point x, a feature-sign step (Lee, Battle, Raina, Ng 2007, "Efficient sparse coding algorithms",
// §2): on the face J = supp(x), s = sign(x) — plus, when x is optimal on that face to the tolerance,
// the zero coordinate with the largest violation |r_j| − μ > 0 and s_j = −sign(r_j) — the same Woodbury
// solve gives the minimizer z of the smooth g_s(y) = ½yᵀQy + uᵀy + μsᵀy on {y_{J^c} = 0}; the step
// goes from x towards z up to the first coordinate that reaches zero (clipped to zero there). f = g_s
// on the closed orthant of s and g_s decreases along the segment, so f strictly decreases; a full
// step ends at a face minimizer, a clipped one shrinks J. Face minimizers depend on (J, s) only, so
// no face is visited twice and the method ends after finitely many steps for every strictly convex
// instance, however ill-conditioned Q is. Should a step make no progress (round-off), a
// proximal-gradient step x ← soft_{μ/L}(x − r/L) with L = max(‖K̂‖, max D) + λ ≥ ‖Q‖ (Q is block
// diagonal on Im P ⊕ Im P⊥) is taken instead, which decreases f. The solve stops when the
// minimum-norm subgradient ω_j = dist(0, ∂_j f(x)) satisfies ‖ω‖₂ ≤ tolerance·‖s‖₂, s_j the sum of the
// magnitudes of the terms of r_j plus μ. With τD large this can be out of reach: Π̃ᵀ(K̂ + M)a and DΠ̃ᵀa
// cancel, and the round-off level of ω is set by the terms summed inside the transforms, bounded by
// s'_j ≥ s_j. That is when a safeguard step fails to decrease f (impossible in exact arithmetic); the
// solve then returns the kept point if ‖ω‖₂ ≤ tolerance·‖s'‖₂ there (Iterations::at_round_off).
// Where the first test is met, the second changes nothing.
//
// Cost of a Newton iteration: two Allreduces (3k(k+1)/2 + 2k + 3 numbers: the Newton data; 2k + 3
// numbers: f, Π̃x, Π̃Dx, ‖x‖₁, ‖Dx‖₁), O(L log L + k² log n) local work for L local coordinates and O(k³)
// replicated; a feature-sign step adds four small Allreduces and one of Newton data.
// Started at the previous weights, whose support changes little between examples, it usually stops
// after one or two Newton iterations. All decisions use reduced values, so every rank takes them alike.
#include <array>
#include <span>
#include <vector>

#include "../../linalg/hadamard.hpp"
#include "adasketch/comm/communicator.hpp"
#include "adasketch/types.hpp"

namespace adasketch::detail {

class SrhtLasso {
 public:
  struct Problem {
    std::span<const double> block;  ///< K̂ + M (k × k, row-major, replicated)
    double block_norm;              ///< ‖K̂‖₂, or an upper bound
    std::span<const double> d;      ///< D (local)
    double lambda;                  ///< λ ≥ 0 (D + λ > 0 everywhere)
    std::span<const double> u;      ///< u (local)
    double mu;                      ///< μ ≥ 0
  };

  /// What a solve took.
  struct Iterations {
    int newton = 0;    ///< Newton points computed
    int face = 0;      ///< feature-sign steps (after a rejected Newton point)
    int proximal = 0;  ///< proximal-gradient steps (after a feature-sign step without progress)
    bool at_round_off = false;  ///< stopped at the round-off floor (see the stopping rule above)
  };

  /// Scratch for srht.local_size() coordinates and srht.rows() rows.
  SrhtLasso(const Communicator& comm, const Srht& srht, double tolerance, int max_iterations);

  /// Collective. x: the starting point in, the minimizer out (local coordinates); a: Π̃x of the
  /// result. Throws NumericError (on every rank) when the tolerance is not reached within
  /// max_iterations steps of all kinds (Newton, feature-sign, proximal), or on a non-finite objective;
  /// LapackError when the Newton system is singular.
  Iterations solve(const Problem& problem, std::span<double> x, std::span<double> a);

 private:
  struct Point {
    std::vector<double> x, r;  ///< local
    std::vector<double> a, b;  ///< Π̃x, Π̃Dx
    double f = 0.0;
    double a_terms = 0.0, b_terms = 0.0;     ///< ‖x‖₁/√n ≥ |a_i|, ‖Dx‖₁/√n ≥ |b_i|
    double face_omega2 = 0.0, scale2 = 0.0;  ///< local: ω² on supp(x), and s² (set by gradient())
    bool at_floor = false;                   ///< ‖ω‖ ≤ tolerance·‖s'‖ (set after reduce_newton_data())
  };
  /// p.a, p.b, p.f from p.x (one Allreduce).
  void evaluate(Point& p);
  /// p.r, and the support prediction, ω² and s² of p (local) for the next reduction.
  void gradient(Point& p);
  /// The Newton data of the predicted support, ‖ω‖², ‖s‖² and ‖s'‖² (one Allreduce); returns whether
  /// the point of the last gradient() is optimal to the tolerance, and sets at_floor_ by s'.
  bool reduce_newton_data();
  /// to.x: the Newton point of the support predicted at the last gradient().
  void newton_point(Point& to);
  /// to.x: the feature-sign step from `from` (gradient() called on it); false when it cannot
  /// progress (no violated face, or a coordinate leaving its orthant at once).
  bool face_step(const Point& from, Point& to);
  /// to.x = soft_{μ/L}(from.x − from.r/L).
  void proximal_point(const Point& from, Point& to);

  const Communicator& comm_;
  const Srht& srht_;
  double tolerance_;
  int max_iterations_;
  index_t local_ = 0, k_ = 0;
  const Problem* problem_ = nullptr;
  double lipschitz_ = 0.0;  ///< 0 until the first proximal step of a solve
  double block_abs_sum_ = 0.0;  ///< Σ|K̂ + M| over the block's entries
  Point current_, kept_;
  std::vector<double> e_, sign_, beta_;  ///< local: E, the signs s, β
  /// Local vectors on V = [Π̃ᵀ, DΠ̃ᵀ]'s two blocks: what Π̃ᵀ gives or Π̃ takes (pi_side_), and what is
  /// scaled by D on the way (d_side_).
  std::vector<double> pi_side_, d_side_;
  std::vector<double> s1_, reduce_, newton_, system_, rhs_;
  std::array<double, 2> face_sums_{};
  std::vector<int> pivots_;
  double omega2_ = 0.0, scale2_ = 0.0, floor2_ = 0.0;  ///< local sums of the last gradient()
  bool at_floor_ = false;
};

}  // namespace adasketch::detail
