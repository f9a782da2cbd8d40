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
// A⁻¹ lives on a 2-D block-cyclic ScaLAPACK grid built from the learner's communicator; u stays in the
// feature layout (rank p holds features [begin(p), end(p)), docs/design.md §3). A step:
//   1. x moved to the grid (pdgemr2d), v = A⁻¹x (pdgemv), v moved back (pdgemr2d);
//   2. one Allreduce of [uᵀx, xᵀv, ‖x‖², malformed slices];
//   3. the projection and the Newton step on u (local), and A⁻¹ −= (√(c/(1+cq)) v)(√(c/(1+cq)) v)ᵀ
//      (pdger with α = −1 and x = y, so A⁻¹ stays exactly symmetric).
// Cost per example (P processes): O(d²/P) flops for the product and the update, O(d/P) words for the
// two vector moves (each a pdgemr2d, O(P) messages at most), one Allreduce of 4 numbers, and d²/P
// doubles of memory for A⁻¹. An exact baseline for d up to a few thousand. The Sherman–Morrison form
// is exact in exact arithmetic; its round-off grows with the condition number of A_t (α small against
// the curvature seen), like every ONS that keeps an inverse.
//
// Choices, as SketchedNewton's: α > 0 and normal; a zero gradient (ℓ' = 0, x = 0) changes neither A nor
// u beyond the projection; q is clamped below by ‖x‖²/(α + tr(A − αI)) (≤ xᵀA⁻¹x in exact arithmetic;
// tr(A − αI) = Σ c_s‖x_s‖² is kept); scores of Learner::predict and saved models are uᵀx (SON's own
// prediction would be the projected clip_C(uᵀx), of the same sign). Binary and regression losses only
// (softmax is refused). The partition must have equal blocks, as for FullAdaGrad; checkpoints store
// A⁻¹ by feature rows, so a run resumes at any rank count and on any grid.
//
// Diagonal rescaling (diag_rescale; SON §5.2 and footnote 6, SketchedNewton's convention): the
// algorithm above is fed x̃_t = D_t^{-1/2}x_t, D_t = D_1 + diag(Σ_{s<t} g_sg_sᵀ), D_1 = defaults::rescale_d1·I
// (0.1·I), g_s = ℓ'_s x_s the gradient in the ORIGINAL coordinates: after step t, D_jj += (ℓ'_t x_tj)².
// u and A live in the rescaled coordinates; D is distributed like u. weights(), predict() and a saved
// model score original examples with the current D: w = D^{-1/2}u, so wᵀx = uᵀx̃ is the score the next
// step starts from (before its projection). O(d/P) more per example.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

struct FullNewtonOptions {
  double alpha = defaults::alpha;  ///< SON's α > 0: A_0 = αI
  /// Radius of K_t = {w : |wᵀx_t| ≤ C} (> 0; +∞ disables the projection).
  double C = defaults::C;
  double sigma = defaults::sigma;  ///< curvature σ ≥ 0 of SON's Assumption 2 (constant)
  double eta = defaults::eta;      ///< scale η ≥ 0 of the η_t schedule
  EtaSchedule eta_schedule = EtaSchedule::constant;  ///< η_t (learner.hpp)
  /// Rows of the ScaLAPACK process grid, dividing the rank count (0: the most nearly square grid).
  int grid_rows = defaults::grid_rows;
  /// The grid's square block size ≥ 1 (0: automatic, ⌈d/(2·max(nprow, npcol))⌉ clamped to [1, 64]).
  int block = defaults::grid_block;
  /// Feed D_t^{-1/2}x_t, D_t = 0.1·I + diag(Σ_{s<t} g_sg_sᵀ) (SON §5.2; see above).
  bool diag_rescale = false;
};

class FullNewton final : public Learner {
 public:
  /// Collective (builds the process grids on comm). Throws InvalidArgument, on every rank, for a
  /// softmax loss, an option outside its documented range, grid rows that do not divide comm.size(),
  /// or a partition without equal blocks.
  FullNewton(const Communicator& comm, index_t dim, const Loss& loss, const FullNewtonOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  FullNewton(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
             const FullNewtonOptions& options = {});
  ~FullNewton() override;

  /// "full-on".
  std::string name() const override;
  /// Local: out[j] = u[begin + j] (the weights before the next projection); with diag_rescale,
  /// D^{-1/2}u (scores of original examples, see above).
  void weights(std::span<double> out) const override;
  /// Algorithm, loss, α (alpha0), C, σ, η, the η_t schedule, grid_rows and diag_rescale. block has no
  /// LearnerSpec field: make_learner uses its default.
  LearnerSpec spec() const override;
  const FullNewtonOptions& options() const noexcept { return options_; }
  /// η_t for the t-th example (t ≥ 1).
  double eta(index_t t) const noexcept;
  /// Examples whose projection was active (|uᵀx| > C) so far.
  index_t projections() const noexcept { return projections_; }
  /// The process grid actually used (nprow × npcol) and its block size.
  int grid_rows() const noexcept;
  int grid_cols() const noexcept;
  int block() const noexcept;

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  /// out[0] += u_pᵀx_p (u_pᵀD_p^{-1/2}x_p with diag_rescale).
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// u, D (diag_rescale), the projection count, tr(A − αI), and A⁻¹ by feature rows (a staged block
  /// of width d).
  void add_state_fields(StateFields& fields) override;
  /// A⁻¹ from the grid into the staged rows, and back.
  void before_state_save(StateFields& fields) override;
  void after_state_load(StateFields& fields) override;

 private:
  struct Grid;  // lib/src/learners/full_newton.cpp: the ScaLAPACK side

  FullNewtonOptions options_;
  std::unique_ptr<Grid> grid_;
  std::vector<double> u_;       ///< u, local d_p
  std::vector<double> diag_;    ///< diag_rescale: D, local d_p
  std::vector<double> x_, v_;   ///< the step's x and v = A⁻¹x in the feature layout
  std::vector<double> reduce_;  ///< the Allreduce: uᵀx, xᵀv, ‖x‖², malformed slices
  index_t projections_ = 0;
  double curvature_ = 0.0;      ///< tr(A − αI) = Σ_s c_s‖x_s‖² (replicated), for the clamp of q
};

}  // namespace adasketch
