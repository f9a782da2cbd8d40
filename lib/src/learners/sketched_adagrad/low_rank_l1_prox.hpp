#pragma once
// The ℓ1 prox of the sketched AdaGrad learners (adasketch/learners/sketched_adagrad/sketched_adagrad.hpp), solved
// exactly through its dual, which has one variable per kept direction of the sketch (internal).
//
// Primal: w* = argmin_w ½wᵀH'w − bᵀw + κ‖w‖₁ with H' = δ'I + CᵀC, C = Σ^{1/2}Vᵀ (r × n) for the
// kept singular pairs of B = UΣVᵀ. Writing ½‖Cw‖² = max_μ μᵀCw − ½‖μ‖² and minimizing over w first
// (entry-wise, a soft-threshold) gives the dual
//   D(μ) = −½‖μ‖² − ‖soft(b − Cᵀμ, κ)‖²/(2δ'),   w(μ) = soft(b − Cᵀμ, κ)/δ',
//   ∇D(μ) = Cw(μ) − μ,   ∂²D(μ) = −I − C·diag(A)·Cᵀ/δ'   (A: the entries with |b − Cᵀμ| > κ),
// strongly concave, piecewise quadratic with a continuous gradient; max D = min of the primal and
// w* = w(μ*) (so μ* = Cw*). The learners pass C = T·Z with the sketch's stored basis Z and
// T = Σ^{-1/2}UᵀM (r × R_z, replicated), so Cw = T(Zw) and Cᵀμ = Zᵀ(Tᵀμ).
//
// Semismooth Newton on μ ∈ R^r from the caller's μ₀: the direction Δ solves (I + C A Cᵀ/δ')Δ = ∇D
// (Cholesky, r × r); Armijo backtracking on D (halving, sufficient increase 10⁻⁴, with a round-off
// allowance of 16u(|D| + |D'|)). Each evaluation of a point costs one Allreduce of
// R_z + R_z(R_z + 1)/2 + 2 numbers (Zs, the lower triangle of Z diag(A) Zᵀ, ‖s‖² and the count of
// entries whose sign pattern changed) and local work O(R_z·n) for the two products plus O(R_z²) per
// local active entry; everything else is replicated, so every rank takes the same decisions and
// ends with the same μ. Stops when
//   - a full Newton step leaves the sign pattern of soft(b − Cᵀμ, κ) unchanged: D is then one
//     quadratic on the whole step, whose maximizer the step reached (exact up to round-off), or
//   - ‖∇D(μ)‖ ≤ tolerance·max(‖μ‖, ‖Cw(μ)‖): w(μ) is then the exact prox of b + Cᵀ(Cw(μ) − μ), so
//     ‖w(μ) − w*‖ ≤ ‖C‖·‖∇D(μ)‖/δ'.
// Throws NumericError (on every rank) when neither happens within max_iterations or the line search
// cannot increase D. Nothing is allocated per solve.
#include <span>
#include <vector>

#include "adasketch/sketch/sketch.hpp"
#include "adasketch/types.hpp"

namespace adasketch::detail {

class LowRankL1Prox {
 public:
  static constexpr int max_iterations = 100;

  /// Scratch for `sketch`'s rows, basis rows and local columns (the sketch must outlive this).
  LowRankL1Prox(const Sketch& sketch, double tolerance);

  /// T (r × R_z, row-major) for the next solves, r ≤ rows: the caller fills the returned view.
  std::span<double> set_rank(index_t r);
  index_t rank() const noexcept { return rank_; }
  /// out[0..r) = T zw for zw = Z·v (basis_rows entries): Cv.
  void apply_t(std::span<const double> zw, std::span<double> out) const;
  /// a += Cᵀμ for μ ∈ R^r (local entries).
  void add_ct(std::span<const double> mu, std::span<double> a);

  /// Collective. w = soft(a − Cᵀμ*, κ)/δ' with μ* the maximizer of D for b − Cᵀμ = a − Cᵀμ, from
  /// μ₀ (r entries). a and w have the sketch's local_dim() entries (w may not alias a).
  void solve(std::span<const double> a, std::span<const double> mu0, double kappa, double delta,
             std::span<double> w);

 private:
  struct Point {
    std::vector<double> mu, grad, hess, s;
    std::vector<signed char> pattern;
    double value = 0.0, cw_norm = 0.0;
  };
  /// Evaluates D, ∇D, the Hessian's negative and w(μ)δ' = s at p.mu; returns how many local
  /// entries changed sign pattern against `reference` (summed over ranks).
  double evaluate(Point& p, const Point* reference);

  const Sketch& sketch_;
  double tolerance_;
  index_t rows_, basis_, n_, rank_ = 0;
  std::span<const double> a_;
  double kappa_ = 0.0, delta_ = 1.0;
  std::vector<double> t_, y_, reduce_, kernel_, tk_, chunk_, direction_, negated_, factor_;
  Point current_, trial_;
};

}  // namespace adasketch::detail
