#pragma once
// FULL-ON: the full Online Newton Step with SON's projection (SON paper, Luo, Agarwal, Cesa-Bianchi,
// Langford 2016, eq. (1)–(2) and Alg. 1 with the exact A_t), the exact baseline of the sketched Newton
// learners (sketched_newton.hpp; the same step, options and choices):
//   A_t = αI + Σ_{s≤t} (σ + η_s) g_s g_sᵀ,   g_s = ℓ'_s(w_sᵀx_s) x_s,
//   projection (Alg. 1 line 5, Lemma 1)  w_t = argmin_{|wᵀx_t| ≤ C} ‖w − u_t‖_{A_{t−1}}
//                                            = u_t − τ_C(u_tᵀx_t)/q · v,  v = A_{t−1}⁻¹x_t,  q = x_tᵀv;
//   Newton (Alg. 1 line 9)               u_{t+1} = w_t − A_t⁻¹g_t = w_t − ℓ' v/(1 + c q),  c = (σ + η_t)ℓ'²,
// since A_t = A_{t−1} + c x xᵀ gives A_t⁻¹x = v/(1 + c q) (Sherman–Morrison). A_t⁻¹ itself is kept,
// A_t⁻¹ = A_{t−1}⁻¹ − c/(1 + c q) · v vᵀ, so a step needs one product A⁻¹x and no solve.
//
// Softmax (K scores; SketchedNewton's multiclass SON with the exact A): W ∈ R^{d×K} is the n-vector u,
// n = dK, feature-major (a feature's K weights on its owner), the example's class rows X_k = x ⊗ e_k,
// scores z_k = uᵀX_k, gradient g = Σ_k ∂ℓ/∂p_k X_k = x ⊗ ∂ℓ/∂p, and A_t is n×n. With V = A_{t−1}⁻¹Xᵀ
// (n×K) and M = X A_{t−1}⁻¹Xᵀ = XV (K×K):
//   projection  w_t = argmin_{|W_kᵀx_t| ≤ C ∀k} ‖w − u_t‖_{A_{t−1}} = u_t − Vλ, λ the multiplier of the
//               box-constrained QP in the scores (lib/src/learners/box_projection.hpp; K = 1: λ = τ_C(z)/q,
//               the formula above), predictions p = z − Mλ, set to exactly ±C on the active bounds
//               (where the KKT conditions put them: classes tied at C stay exact ties, decided alike
//               at every rank count);
//   Newton      A_{t−1}⁻¹g = V∂ℓ/∂p =: v_g, q_g = gᵀA_{t−1}⁻¹g = ∂ℓᵀM∂ℓ, s = σ + η_t:
//               u_{t+1} = w_t − v_g/(1 + s q_g),  A_t⁻¹ = A_{t−1}⁻¹ − s/(1 + s q_g) · v_g v_gᵀ.
// Binary and regression losses are the case K = 1.
//
// A⁻¹ lives on a 2-D block-cyclic ScaLAPACK grid built from the learner's communicator; u stays in the
// feature layout (rank p holds features [begin(p), end(p)), docs/design.md §3). A step:
//   1. X (n×K) moved to the grid (pdgemr2d), V = A⁻¹Xᵀ (one pdgemm), V moved back (pdgemr2d);
//   2. one Allreduce of [z, M's lower triangle, ‖X_k‖², malformed slices] (K = 1: [uᵀx, xᵀv, ‖x‖², ·]);
//   3. the projection and the Newton step on u (local), and A⁻¹ −= (r v_g)(r v_g)ᵀ, r = √(s/(1 + s q_g))
//      (pdger with α = −1 and x = y, so A⁻¹ stays exactly symmetric; for K > 1 r v_g is formed in the
//      feature layout and moved to the grid by a third pdgemr2d).
// Cost per example (P processes): O(n²K/P) flops for the product and O(n²/P) for the update, O(nK/P)
// words for the vector moves (each a pdgemr2d, O(P) messages at most), one Allreduce of K(K+5)/2 + 1
// numbers, O(K³) for the QP, and n²/P doubles of memory for A⁻¹. An exact baseline for n up to a few
// thousand. The Sherman–Morrison form is exact in exact arithmetic; its round-off grows with the
// condition number of A_t (α small against the curvature seen), like every ONS that keeps an inverse.
//
// Choices, as SketchedNewton's: α > 0 and normal; a zero gradient (ℓ' = 0, x = 0) changes neither A nor
// u beyond the projection; M's diagonal is clamped below by ‖X_k‖²/(α + tr(A − αI)) (≤ X_kᵀA⁻¹X_k in
// exact arithmetic; tr(A − αI) = Σ s_t‖g_t‖² is kept), and q_g by ‖g‖²/(α + tr(A − αI)); scores of
// Learner::predict and saved models are uᵀX_k (SON's own prediction would be the projected one, of
// which they are the unclipped form). The partition must have equal blocks, as for FullAdaGrad;
// checkpoints store A⁻¹ by feature rows, so a run resumes at any rank count and on any grid.
// α = 0 (SON App. D's pseudo-inverse, which SketchedNewton takes in fd-son, fast-fd-son and rp-son) is
// refused: A_t = Σ c_s g_sg_sᵀ is singular until the gradients span R^n, and the rank-one update of a
// kept A⁺ (Meyer 1973) branches on whether g_t lies in range(A_{t−1}), a rank decision the kept A⁺ can
// only make from its own accumulated round-off (the residual (I − AA⁺)g of a g in the range is
// round-off, that of a g just outside it may be as small); deciding it exactly takes an
// eigendecomposition per step (O(n³/P), as ADA-FULL). FD-SON with α = 0 and ℓ ≥ n + 1 is that exact
// algorithm (FD keeps every gradient, tests/test_full_matrix.cpp), its rank decisions made on the
// eigenvalues of the ℓ×ℓ Gram at every step.
//
// Diagonal rescaling (diag_rescale; SON §5.2 and footnote 6, SketchedNewton's convention): the
// algorithm above is fed x̃_t = D_t^{-1/2}x_t (softmax: X_k = D_t^{-1/2}(x_t ⊗ e_k), D then n-diagonal),
// D_t = D_1 + diag(Σ_{s<t} g_sg_sᵀ), D_1 = defaults::rescale_d1·I (0.1·I), g_s the gradient in the
// ORIGINAL coordinates: after step t, D_{jK+k} += (∂ℓ/∂p_k x_tj)² (K = 1: (ℓ'_t x_tj)²). u and A live
// in the rescaled coordinates; D is distributed like u. weights(), predict() and a saved model score
// original examples with the current D: w = D^{-1/2}u, so wᵀ(x ⊗ e_k) = uᵀX_k is the score the next
// step starts from (before its projection). O(nK/P) more per example.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

namespace detail {
class BoxProjection;  // lib/src/learners/box_projection.hpp
}  // namespace detail

struct FullNewtonOptions {
  double alpha = defaults::alpha0;  ///< SON's α > 0: A_0 = αI (α = 0 is refused, see above)
  /// Radius of K_t = {w : |wᵀx_t| ≤ C} (softmax: every class's score; > 0; +∞ disables the projection).
  double C = defaults::C;
  double sigma = defaults::sigma;  ///< curvature σ ≥ 0 of SON's Assumption 2 (constant)
  double eta = defaults::eta;      ///< scale η ≥ 0 of the η_t schedule
  EtaSchedule eta_schedule = EtaSchedule::constant;  ///< η_t (learner.hpp)
  /// Rows of the ScaLAPACK process grid, dividing the rank count (0: the most nearly square grid).
  int grid_rows = defaults::grid_rows;
  /// The grid's square block size ≥ 1 (0: automatic, ⌈n/(2·max(nprow, npcol))⌉ clamped to [1, 64]).
  int block = defaults::grid_block;
  /// Feed D_t^{-1/2}x_t, D_t = 0.1·I + diag(Σ_{s<t} g_sg_sᵀ) (SON §5.2; see above).
  bool diag_rescale = false;
};

class FullNewton final : public Learner {
 public:
  /// Collective (builds the process grids on comm). Throws InvalidArgument, on every rank, for an
  /// option outside its documented range, grid rows that do not divide comm.size(), or a partition
  /// without equal blocks.
  FullNewton(const Communicator& comm, index_t dim, const Loss& loss, const FullNewtonOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  FullNewton(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
             const FullNewtonOptions& options = {});
  ~FullNewton() override;

  /// "full-on".
  std::string name() const override;
  /// Local: out[j·K + k] = u[(begin + j)·K + k] (the weights before the next projection); with
  /// diag_rescale, D^{-1/2}u (scores of original examples, see above).
  void weights(std::span<double> out) const override;
  /// Algorithm, loss (K for softmax), α (alpha0), C, σ, η, the η_t schedule, grid_rows and
  /// diag_rescale. block has no LearnerSpec field: make_learner uses its default.
  LearnerSpec spec() const override;
  const FullNewtonOptions& options() const noexcept { return options_; }
  /// η_t for the t-th example (t ≥ 1).
  double eta(index_t t) const noexcept;
  /// Examples whose projection was active (some |uᵀX_k| > C) so far.
  index_t projections() const noexcept { return projections_; }
  /// The process grid actually used (nprow × npcol) and its block size.
  int grid_rows() const noexcept;
  int grid_cols() const noexcept;
  int block() const noexcept;

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  /// out[k] += u_pᵀX_k,p (D_p^{-1/2} in X_k with diag_rescale).
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// u, D (diag_rescale), the projection count, tr(A − αI), and A⁻¹ by feature rows (a staged block
  /// of K rows of width n per feature).
  void add_state_fields(StateFields& fields) override;
  /// A⁻¹ from the grid into the staged rows, and back.
  void before_state_save(StateFields& fields) override;
  void after_state_load(StateFields& fields) override;

 private:
  struct Grid;  // lib/src/learners/full_newton.cpp: the ScaLAPACK side
  /// X_k = D^{-1/2}(x ⊗ e_k) into x_ from the densified slice (zero on a malformed slice).
  void build_class_rows();
  /// The one Allreduce's local sums after V arrived: [z, M's lower triangle, ‖X_k‖², malformed].
  void local_sums(bool ok);

  FullNewtonOptions options_;
  std::unique_ptr<Grid> grid_;
  std::unique_ptr<detail::BoxProjection> box_;  ///< the projection's QP (K > 1)
  std::vector<double> u_;       ///< u, local d_p·K, feature-major
  std::vector<double> diag_;    ///< diag_rescale: D, local d_p·K
  std::vector<double> dense_;   ///< the step's slice of x, dense (d_p)
  std::vector<double> x_, v_;   ///< the step's X and V = A⁻¹Xᵀ in the feature layout (d_p·K × K, by columns)
  std::vector<double> g_;       ///< K > 1: r·v_g in the feature layout, for the update of A⁻¹
  std::vector<double> reduce_;  ///< the Allreduce
  std::vector<double> m_, z_, norms_, lambda_, dscores_;  ///< M (K×K), z, ‖X_k‖², λ, ∂ℓ/∂p (replicated)
  index_t projections_ = 0;
  double curvature_ = 0.0;      ///< tr(A − αI) = Σ_t s_t‖g_t‖² (replicated), for the clamps
};

}  // namespace adasketch
