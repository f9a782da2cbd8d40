#pragma once
/// @file
/// ADA-DIAG: AdaGrad with a diagonal proximal matrix (Duchi et al. 2011; restated in the ADA-FD
/// paper §2, eq. (1)–(2)): every entry of W has its own H = δ + √G, and the composite step with
/// φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖² has a closed form per entry, applied lazily to the entries a sparse step
/// skips. The formulas and the lazy k-fold shrink: docs/design.md §2, "ADA-DIAG".
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/diagonal/options.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

/// ADA-DIAG (ada-diag, ada-diag-da): the learner make_learner builds for those names.
class DiagonalAdaGrad final : public Learner {
 public:
  /// Not collective. Throws InvalidArgument unless dim ≥ 1, η > 0, δ > 0, λ₁ ≥ 0 and λ₂ ≥ 0 (finite).
  DiagonalAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const DiagonalAdaGradOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  DiagonalAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                  const DiagonalAdaGradOptions& options = {});

  /// "ada-diag" (mirror descent) or "ada-diag-da" (dual averaging).
  std::string name() const override;
  void weights(std::span<double> out) const override;
  /// Algorithm, loss (K for softmax), η, δ, λ₁ and λ₂.
  LearnerSpec spec() const override;
  /// The options as given.
  const DiagonalAdaGradOptions& options() const noexcept { return given_; }

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// The d × K blocks of W (or Σg) and G; composite mirror descent also `last`.
  void add_state_fields(StateFields& fields) override;
  /// Takes η, δ, λ₁ and λ₂ relative to the data's scale (detail::at_data_scale).
  void on_data_scale(const DataScale& scale) override;

 private:
  bool composite() const noexcept { return options_.lambda1 > 0.0 || options_.lambda2 > 0.0; }
  bool lazy_shrink() const noexcept { return composite() && options_.update == DiagonalAdaGradOptions::Update::mirror_descent; }
  /// Entry e = j·K + k of the local W after `steps` steps: stored (mirror descent, caught up over
  /// the steps after last_[e]) or formed from Σg and G (dual averaging).
  double weight(std::size_t entry, index_t steps) const noexcept;
  /// Adds g² to G_e and takes entry e's step for the gradient entry g (caught up before).
  void update(std::size_t entry, double g, index_t step) noexcept;

  DiagonalAdaGradOptions options_;  ///< in effect: given_, or given_ at the data's scale (on_data_scale)
  DiagonalAdaGradOptions given_;    ///< as given: spec(), options()
  std::vector<double> state_;       ///< mirror descent: W; dual averaging: Σ_s g_s (local, d_p × K)
  std::vector<double> sum_square_;  ///< G (local, d_p × K)
  std::vector<double> last_;        ///< composite mirror descent: the step each entry of W is current to
  std::vector<double> scores_, dscores_;
};

}  // namespace adasketch
