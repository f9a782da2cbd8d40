#pragma once
// ADA-FULL: AdaGrad with the full proximal matrix (Duchi et al. 2011; restated in the ADA-FD paper §2
// and the ADA-GP/DP paper's H_t), the exact baseline of the sketched learners (sketched_adagrad.hpp):
//   G_t = Σ_{s≤t} g_s g_sᵀ,   H_t = δI + G_t^{1/2},
//   composite mirror descent (φ = 0):  w_{t+1} = w_t − η H_t⁻¹ g_t            (ada-full)
//   dual averaging (φ = 0):            w_{t+1} = −η H_t⁻¹ Σ_{s≤t} g_s          (ada-full-da)
// Multiclass (softmax, K scores): W is d×K stored feature-major as a dK-vector and g = x ⊗ ∂ℓ/∂p, so G
// is dK×dK, as in the sketched learners; binary and regression losses have K = 1.
//
// G lives on a 2-D block-cyclic ScaLAPACK grid built from the learner's communicator (nprow × npcol =
// P, square blocks); weights and Σg stay in the feature layout of every learner (rank p holds
// features [begin(p), end(p)), docs/design.md §3). A step with g ≠ 0:
//   1. one Allreduce of the K scores and ‖x‖²;
//   2. g (and Σg) moved to the grid (pdgemr2d), G += ggᵀ (pdger);
//   3. G = VΛVᵀ by the divide-and-conquer eigensolver (pdsyevd) on a copy of G, its status agreed by
//      one more Allreduce of one number;
//   4. H⁻¹v = V diag(1/(δ + √λ_i)) Vᵀv (two pdgemv) for v = g or Σg, moved back (pdgemr2d).
// The eigendecomposition is recomputed each step: G_t^{1/2} changes in every eigenvector when G_t takes
// a rank-one term, and even the rank-one update of an eigendecomposition (the secular equation, as in
// the divide-and-conquer merge) ends with V ← V·U for a dense n×n U, O(n³) as well, while round-off
// would accumulate in V over the steps. Eigenvalues λ_i ≤ rank_tolerance·λ_max are
// the round-off of G's null space (t < dK) and count as zero (factor 1/δ, as the sketched learners drop
// them): √λ would otherwise put about √(u·λ_max)/δ of noise into H⁻¹.
// A zero gradient (ℓ' = 0 or x = 0) changes neither G nor the weights (no eigensolve).
//
// Cost per example (n = dK, P processes): the eigensolve O(n³/P) flops (and O(n) messages of its
// tridiagonal reduction), two products and the update O(n²/P), two vector moves O(n/P) words, and n²/P
// doubles of memory for G plus as much for its copy and for V. An exact baseline for d·K up to a few
// thousand. Every rank holds at most its feature block of any vector. The per-example path allocates
// nothing itself (ScaLAPACK's own buffers are its business).
//
// The partition must have equal blocks (BlockPartition(d, P) or with an explicit block size; the
// trailing blocks may be shorter or empty): ScaLAPACK's 1-D block layout, so vectors move with one
// pdgemr2d. Checkpoints store G by feature rows (a StateFields block staged from the grid), so a run
// resumes at any rank count and on any grid.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

struct FullAdaGradOptions {
  enum class Form {
    mirror_descent,  ///< composite mirror descent, φ = 0 (ADA-FD paper eq. (2))
    dual_averaging,  ///< primal-dual subgradient / dual averaging, φ = 0 (ADA-FD paper eq. (1))
  };
  Form form = Form::mirror_descent;
  double eta = defaults::eta;      ///< step size η > 0
  double delta = defaults::delta;  ///< δ > 0: H = δI + G^{1/2}
  /// Eigenvalues λ ≤ rank_tolerance·λ_max of G count as zero, in [0, 1). The default is about the
  /// eigensolver's round-off n·u·λ_max for n = dK up to ~10³ (u = 2⁻⁵³); raise it for larger n.
  double rank_tolerance = defaults::full_rank_tolerance;
  /// Rows of the ScaLAPACK process grid, dividing the rank count (0: the most nearly square grid).
  int grid_rows = defaults::grid_rows;
  /// The grid's square block size ≥ 1 (0: automatic, ⌈dK/(2·max(nprow, npcol))⌉ clamped to [1, 64]).
  int block = defaults::grid_block;
};

class FullAdaGrad final : public Learner {
 public:
  /// Collective (builds the process grids on comm). Throws InvalidArgument, on every rank, unless
  /// η > 0, δ > 0 (normal, finite), 0 ≤ rank_tolerance < 1, grid_rows ≥ 0 divides comm.size(), block
  /// ≥ 0 and the partition has equal blocks.
  FullAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const FullAdaGradOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  FullAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
              const FullAdaGradOptions& options = {});
  ~FullAdaGrad() override;

  /// "ada-full" (mirror descent) or "ada-full-da" (dual averaging).
  std::string name() const override;
  void weights(std::span<double> out) const override;
  /// Algorithm, loss (K for softmax), η, δ and grid_rows. rank_tolerance and block have no LearnerSpec
  /// field: make_learner uses their defaults.
  LearnerSpec spec() const override;
  const FullAdaGradOptions& options() const noexcept { return options_; }
  /// The process grid actually used (nprow × npcol) and its block size.
  int grid_rows() const noexcept;
  int grid_cols() const noexcept;
  int block() const noexcept;

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// W (d × K), for dual averaging Σg, and G by feature rows (a staged block of width dK·K).
  void add_state_fields(StateFields& fields) override;
  /// G from the grid into the staged rows, and back.
  void before_state_save(StateFields& fields) override;
  void after_state_load(StateFields& fields) override;

 private:
  struct Grid;  // lib/src/learners/full_adagrad.cpp: the ScaLAPACK side
  bool dual_averaging() const noexcept { return options_.form == FullAdaGradOptions::Form::dual_averaging; }

  FullAdaGradOptions options_;
  std::unique_ptr<Grid> grid_;
  std::vector<double> w_;       ///< W, local d_p × K, feature-major
  /// The step's g in the feature layout (d_p·K); dual averaging: [g, Σ_{s≤t} g_s], column-major.
  std::vector<double> g_;
  std::vector<double> step_;    ///< H⁻¹v in the feature layout
  std::vector<double> reduce_;  ///< the Allreduce: K scores, ‖x‖²
  std::vector<double> dscores_;
  double trace_ = 0.0;          ///< tr G = Σ_s ‖g_s‖² (replicated): G stays finite while it is
};

}  // namespace adasketch
