#pragma once
/// @file
/// CompAdaGrad: composite mirror descent with a compressed, complementary proximal term (Mehta,
/// Rendell, Varghese, Webers 2016, §2–4): full-matrix AdaGrad in the k-dimensional range of a
/// subsampled randomized Hadamard transform Π̃, diagonal AdaGrad on its orthogonal complement,
/// A_t = Π̃ᵀK_tΠ̃ + τP⊥D_tP⊥, with φ(x) = λ₁‖x‖₁ + λ₂/2‖x‖² (eq. (2)). The update, the two placements
/// of δ, the padding to a power of two, the ℓ2 and ℓ1 steps and their cost, dual averaging:
/// docs/design.md §2, "CompAdaGrad".
#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/comp_adagrad/options.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"

namespace adasketch {

namespace detail {
class Srht;
class SrhtLasso;
}  // namespace detail

/// CompAdaGrad (comp-adagrad, comp-adagrad-da): the learner make_learner builds for those names.
class CompAdaGrad final : public Learner {
 public:
  /// Not collective. Throws InvalidArgument unless dim ≥ 1, 0 ≤ k ≤ n, η > 0, δ > 0 (normal), τ ≥ 0,
  /// λ₁ ≥ 0, λ₂ ≥ 0 (all finite), τ > 0 or λ₂ > 0 (else the complement step is unbounded), 0 ≤
  /// rank_tolerance < 1, 0 < lasso_tolerance < 1 and lasso_max_iterations ≥ 1.
  CompAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const CompAdaGradOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  CompAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
              const CompAdaGradOptions& options = {});
  ~CompAdaGrad() override;

  /// "comp-adagrad" (mirror descent) or "comp-adagrad-da" (dual averaging).
  std::string name() const override;
  void weights(std::span<double> out) const override;
  /// Algorithm, loss (K for softmax), ℓ (the SRHT rows k), η, δ, τ, λ₁, λ₂ and the seed. The placement and the
  /// tolerances have no LearnerSpec field: make_learner always uses the defaults.
  LearnerSpec spec() const override;
  /// The options as given.
  const CompAdaGradOptions& options() const noexcept { return given_; }
  /// n: dK padded to a power of two (the SRHT's dimension).
  index_t padded_dim() const noexcept { return n_; }
  /// The padding coordinates [dK, n) this rank holds (block-distributed as BlockPartition(n − dK, P)).
  index_t local_padding() const noexcept { return pad_; }

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// c, Π̃GΠ̃ᵀ, then x⊥ and diag(G⊥) on the features (width K) and on the padding; dual averaging:
  /// then Π̃ḡ and P⊥ḡ.
  void add_state_fields(StateFields& fields) override;
  /// Takes η, δ, λ₁ and λ₂ relative to the data's scale (detail::at_data_scale).
  void on_data_scale(const DataScale& scale) override;

 private:
  void check_row(const LocalRow& x) const;
  /// out[κk + a] += (Π̃_p(a ⊗ e_κ))_a for κ < K: this rank's part.
  void add_local_products(const LocalRow& x, std::span<double> out) const;
  /// Eigendecomposes Π̃GΠ̃ᵀ and sets kappa_ to the eigenvalues of K.
  void factor_block();
  /// The complement gradient h = P⊥g into perp_grad_ (g = x ⊗ ∂ℓ/∂p), its square into diag(G⊥), and
  /// D (τ D_t) into diag_.
  void update_complement(const LocalRow& x);
  bool dual_averaging() const noexcept { return options_.update == CompAdaGradOptions::Update::dual_averaging; }
  /// The new c and x⊥ for the linear term η(Π̃ᵀproj + perp) (perp ∈ Im P⊥) and λ (φ's ℓ2 part times
  /// η, or ηt), measured from x_t (from_current) or from 0: the ℓ2 step, or (l1_step) the LASSO with μ.
  void l2_step(std::span<const double> proj, std::span<const double> perp, double lam, bool from_current);
  void l1_step(std::span<const double> proj, std::span<const double> perp, double lam, double mu, bool from_current);

  CompAdaGradOptions options_;  ///< in effect: given_, or given_ at the data's scale (on_data_scale)
  CompAdaGradOptions given_;    ///< as given: spec(), options()
  double root_delta_;  ///< δ of eq. (5)'s root (placement inside_root), in the squared gradients' units
  index_t classes_ = 1;  ///< K
  index_t real_ = 0;     ///< local feature entries d_p·K
  index_t pad_ = 0;      ///< local padding coordinates
  index_t n_ = 1;        ///< dK padded to a power of two
  index_t k_ = 0;
  std::optional<BlockPartition> padding_;  ///< BlockPartition(n − dK, P), when n > dK
  std::unique_ptr<detail::Srht> srht_;
  std::unique_ptr<detail::SrhtLasso> lasso_;
  std::optional<SymmetricEigen> eigen_;  ///< k ≥ 1

  std::vector<double> coef_;     ///< c = Π̃x (k)
  std::vector<double> block_;    ///< Π̃GΠ̃ᵀ (k × k, row-major)
  std::vector<double> perp_;     ///< x⊥ (local: features, then padding)
  std::vector<double> perp_sq_;  ///< diag(G⊥) (local)
  std::vector<double> sum_proj_;  ///< dual averaging: Π̃ḡ (k)
  std::vector<double> sum_perp_;  ///< dual averaging: P⊥ḡ = Σ_s P⊥g_s (local)

  // Scratch, rewritten in each step before it is read.
  std::vector<double> reduce_, second_;  ///< the first and second Allreduce
  std::vector<double> scores_, dscores_;
  std::vector<double> pg_, kappa_, rotated_, small_;  ///< k: Π̃g, eigenvalues of K, …
  std::vector<double> system_, full_block_;           ///< k × k
  std::vector<double> perp_grad_, diag_;  ///< local: P⊥g, τD_t
  /// Three local buffers, which each step names for what they hold (B, y, By in the ℓ2 step; x, Π̃ᵀv, u
  /// in the ℓ1 step).
  std::array<std::vector<double>, 3> local_;
  mutable std::vector<double> products_;          ///< add_local_scores' Π̃(a ⊗ e_κ)
  mutable std::vector<double> class_row_;         ///< dense x, K > 1: a ⊗ e_κ
  mutable std::vector<index_t> class_indices_;    ///< sparse x, K > 1: local indices j·K + κ
};

}  // namespace adasketch
