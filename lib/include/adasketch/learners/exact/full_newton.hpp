#pragma once
/// @file
/// FULL-ON: the full Online Newton Step with SON's projection (SON paper, Luo, Agarwal, Cesa-Bianchi,
/// Langford 2016, eq. (1)–(2) and Alg. 1 with the exact A_t = αI + Σ_s (σ + η_s) g_s g_sᵀ), the exact
/// baseline of the sketched Newton learners (sketched_newton.hpp; the same step, options and
/// choices). A_t⁻¹ is kept by Sherman–Morrison on a 2-D block-cyclic ScaLAPACK grid; n²/P doubles
/// for n = dK. The step, softmax, its cost, why α = 0 is refused, diagonal rescaling:
/// docs/design.md §2, "The exact learners". Built with ADASKETCH_WITH_EXACT_LEARNERS (version.hpp).
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/exact/options.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

namespace detail {
class BoxProjection;  // lib/src/learners/box_projection.hpp
}  // namespace detail

/// FULL-ON (full-on): the learner make_learner builds for that name, with ScaLAPACK.
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
  /// diag_rescale, D^{-1/2}u (scores of original examples).
  void weights(std::span<double> out) const override;
  /// Algorithm, loss (K for softmax), α (alpha0), C, σ, η, the η_t schedule, grid_rows and
  /// diag_rescale. block has no LearnerSpec field: make_learner uses its default.
  LearnerSpec spec() const override;
  /// The options as given.
  const FullNewtonOptions& options() const noexcept { return given_; }
  /// η_t for the t-th example (t ≥ 1).
  double eta(index_t t) const noexcept;
  /// Examples whose projection was active (some |uᵀX_k| > C) so far.
  index_t projections() const noexcept { return projections_; }
  /// The process grid actually used (nprow × npcol) and its block size.
  ///@{
  int grid_rows() const noexcept;
  int grid_cols() const noexcept;
  int block() const noexcept;
  ///@}

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  /// Yes: the step predicts with w_t, u_t projected onto |wᵀx_t| ≤ C (SON Lemma 1).
  bool predicts_projected() const noexcept override { return true; }
  /// out[k] += u_pᵀX_k,p (D_p^{-1/2} in X_k with diag_rescale).
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// u, D (diag_rescale), the projection count, tr(A − αI), and A⁻¹ by feature rows (a staged block
  /// of K rows of width n per feature).
  void add_state_fields(StateFields& fields) override;
  /// Takes α relative to the data's scale (detail::at_data_scale).
  void on_data_scale(const DataScale& scale) override;
  /// A⁻¹ from the grid into the staged rows (before a save), and back (after a load).
  ///@{
  void before_state_save(StateFields& fields) override;
  void after_state_load(StateFields& fields) override;
  ///@}

 private:
  struct Grid;  // lib/src/learners/exact/full_newton.cpp: the ScaLAPACK side
  /// X_k = D^{-1/2}(x ⊗ e_k) into x_ from the densified slice (zero on a malformed slice).
  void build_class_rows();
  /// The one Allreduce's local sums after V arrived: [z, M's lower triangle, ‖X_k‖², malformed].
  void local_sums(bool ok);
  /// From the densified slice dense_ and D: X_k, V = A⁻¹Xᵀ (v_, grid v) and by one Allreduce z_, M (m_,
  /// with its floor) and ‖X_k‖² (norms_); whether some |z_k| > C. Once per step, twice with diag_rescale
  /// (after D_{t+1}).
  bool products(const LocalRow& x, bool ok);

  FullNewtonOptions options_;  ///< in effect: given_, or given_ at the data's scale (on_data_scale)
  FullNewtonOptions given_;    ///< as given: spec(), options()
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
