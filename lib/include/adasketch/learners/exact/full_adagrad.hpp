#pragma once
/// @file
/// ADA-FULL: AdaGrad with the full proximal matrix H_t = δI + G_t^{1/2}, G_t = Σ_{s≤t} g_s g_sᵀ
/// (Duchi et al. 2011; restated in the ADA-FD paper §2 and the ADA-GP/DP paper's H_t), the exact
/// baseline of the sketched learners (sketched_adagrad.hpp), by mirror descent (ada-full) or dual
/// averaging (ada-full-da). G (dK × dK) lives on a 2-D block-cyclic ScaLAPACK grid and is
/// eigendecomposed at every step. The step, its cost and the layout: docs/design.md §2, "The exact
/// learners". Built with ADASKETCH_WITH_EXACT_LEARNERS (version.hpp).
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/exact/options.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

/// ADA-FULL (ada-full, ada-full-da): the learner make_learner builds for those names, with ScaLAPACK.
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
  /// The options as given.
  const FullAdaGradOptions& options() const noexcept { return given_; }
  /// The process grid actually used (nprow × npcol) and its block size.
  ///@{
  int grid_rows() const noexcept;
  int grid_cols() const noexcept;
  int block() const noexcept;
  ///@}

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// W (d × K), for dual averaging Σg, and G by feature rows (a staged block of width dK·K).
  void add_state_fields(StateFields& fields) override;
  /// Takes η and δ relative to the data's scale (detail::at_data_scale).
  void on_data_scale(const DataScale& scale) override;
  /// G from the grid into the staged rows (before a save), and back (after a load).
  ///@{
  void before_state_save(StateFields& fields) override;
  void after_state_load(StateFields& fields) override;
  ///@}

 private:
  struct Grid;  // lib/src/learners/exact/full_adagrad.cpp: the ScaLAPACK side
  bool dual_averaging() const noexcept { return options_.update == FullAdaGradOptions::Update::dual_averaging; }

  FullAdaGradOptions options_;  ///< in effect: given_, or given_ at the data's scale (on_data_scale)
  FullAdaGradOptions given_;    ///< as given: spec(), options()
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
