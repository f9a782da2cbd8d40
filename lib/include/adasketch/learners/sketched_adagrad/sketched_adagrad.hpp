#pragma once
/// @file
/// Sketched full-matrix AdaGrad: ADA-FD (Wan, Wei, Zhang 2018, Alg. 1 and 2, eq. (6), (7)) and ADA-GP /
/// ADA-DP (Wan, Zhang 2019, Alg. 1 and 2). H_t = δI + (B_tᵀB_t)^{1/2} with B_t a sketch of the
/// gradients (FD, fast FD or a Gaussian random projection) or of the data (random projection); H⁻¹
/// is applied through the R×R Gram only, to lazy weights w = w̄ + Zᵀc, with composite ℓ1/ℓ2 terms.
/// The derivation (the Woodbury form through the Gram, its accuracy, the step, softmax, the
/// composite steps): docs/design.md §2, "Sketched AdaGrad".
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/learner.hpp"
#include "adasketch/learners/sketched_adagrad/options.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

namespace detail {
class LowRankL1Prox;
}  // namespace detail

/// Sketched full-matrix AdaGrad (ada-fd, fast-ada-fd, ada-gp, ada-dp and their "-da" forms): the
/// learner make_learner builds for those names.
class SketchedAdaGrad final : public Learner {
 public:
  /// Collective (constructs the sketch on comm). Throws InvalidArgument unless dim ≥ 1, ℓ ≥ 1, η > 0,
  /// δ > 0, λ₁ ≥ 0, λ₂ ≥ 0 (finite), 0 ≤ rank_tolerance < 1 and 0 < prox_tolerance < 1.
  /// @param comm the caller's communicator (not owned)
  /// @param dim d, split uniformly over the ranks
  /// @param loss any loss; softmax takes K scores
  /// @param options the hyperparameters (default: the table's defaults)
  SketchedAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const SketchedAdaGradOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  SketchedAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                  const SketchedAdaGradOptions& options = {});
  ~SketchedAdaGrad() override;

  /// ada-fd, ada-fd-da, fast-ada-fd, fast-ada-fd-da, ada-gp, ada-gp-da, ada-dp, ada-dp-da
  /// (mirror descent; "-da" for dual averaging).
  std::string name() const override;
  void weights(std::span<double> out) const override;
  /// Algorithm, loss (K for softmax), ℓ, η, δ, λ₁, λ₂, (random projections) the seed, and the form.
  /// rank_tolerance and prox_tolerance have no LearnerSpec field: make_learner always uses the defaults.
  LearnerSpec spec() const override;
  void choose_form(FormChoice form) override;
  /// The options as given.
  const SketchedAdaGradOptions& options() const noexcept { return given_; }
  /// The sketch B (of the dK-dimensional gradients, or of the d-dimensional data for ADA-DP).
  const Sketch* sketch() const noexcept override { return sketch_.get(); }

  /// The sketch's per-feature state on x's features (one class row: K = 1).
  void prefetch(const LocalRow& x) const noexcept override;

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// w̄, c (and Zw̄ for dual averaging; s and Zw for ℓ2 mirror descent; ḡ for ℓ1 dual averaging),
  /// then the sketch's fields.
  void add_state_fields(StateFields& fields) override;
  /// Takes η, δ, λ₁ and λ₂ relative to the data's scale (detail::at_data_scale).
  void on_data_scale(const DataScale& scale) override;

 private:
  bool sketches_gradients() const noexcept { return options_.sketching != SketchedAdaGradOptions::Sketching::rp_data; }
  bool dual_averaging() const noexcept { return options_.update == SketchedAdaGradOptions::Update::dual_averaging; }
  /// The composite step: none (φ = 0), the ℓ2 closed form, or the ℓ1 prox.
  enum class Prox { none, ridge, lasso };
  /// Builds the sketch in `form` and sizes everything that depends on it (a fresh learner).
  void install_sketch(SketchForm form);
  /// Throws InvalidArgument unless x fits this rank's block.
  void check_row(const LocalRow& x) const;
  /// out[k·R_z + i] += (Z_p (x_p ⊗ e_k))_i for k < K (gradient sketches), or out[i] += (Z_p x_p)_i (data).
  void add_local_products(const LocalRow& x, std::span<double> out) const;
  /// out[k] += w̄_pᵀ(x_p ⊗ e_k).
  void add_local_lazy_dots(const LocalRow& x, std::span<double> out) const;
  /// w̄ += Zᵀc (or W̄ += ZᵀC) and c = 0: before an insertion that restructures the sketch.
  void fold();
  /// The gradient sketch's row x ⊗ e_k (x itself when K = 1; valid until the next call).
  LocalRow gradient_row(const LocalRow& x, index_t k) const;
  /// Eigendecomposes the current Gram (unless it is diagonal) and sets σ_i and the weights
  /// φ_i = 1/(σ_i(delta+σ_i)) of P (delta = δ, or δ' with the ℓ2 term).
  void factor_gram(double delta);
  /// out = MᵀP(M v) for v ∈ R^{R_z} with the last factor_gram().
  void apply_p(std::span<const double> v, std::span<double> out);
  /// The global factor s of the weights after `steps` steps: w = s(w̄ + Zᵀc) (1 without the ℓ2 closed form).
  double weight_scale(index_t steps) const noexcept;
  /// δ' = δ + ηtλ₂ of dual averaging after t steps (δ when λ₂ = 0).
  double averaged_delta(index_t t) const noexcept;
  /// weight_products: Z w_t (per class for the data sketch) with ℓ1, else empty.
  void step_gradient_sketch(const LocalRow& x, std::span<const double> products, std::span<const double> lazy_dots,
                            std::span<double> weight_products, double xx);
  void step_data_sketch(const LocalRow& x, std::span<const double> products, std::span<const double> lazy_dots,
                        std::span<double> weight_products, double xx);
  // Composite steps (lib/src/learners/sketched_adagrad/composite.cpp), after the insertion of the gradient g (an empty
  // row when it is zero: nothing inserted), with projected_ = Z_new g and Zw mapped to Z_new.
  /// ℓ2 mirror descent; β from carrying c through the insertion.
  void ridge_gradient_step(const LocalRow& g, double beta);
  /// ℓ2 mirror descent of ADA-DP, per class (projected_ = Z_new x).
  void ridge_data_step(const LocalRow& x);
  /// Local products Z_p w_p (per class for the data sketch) of the explicit weights, for the Allreduce.
  void add_local_weight_products(std::span<double> out);
  /// T = Σ^{-1/2}UᵀM of the last factor_gram() into the ℓ1 prox.
  void load_prox_factor();
  /// The ℓ1 prox into w (the sketch's local entries), given zw = Z_new w_t and target = δw_t − ηg
  /// (mirror descent; Cᵀμ₀ is added here) or −ηḡ (dual averaging).
  void lasso_solve(std::span<double> target, std::span<const double> zw, std::span<double> w);
  void lasso_gradient_step(const LocalRow& g, std::span<const double> zw);
  void lasso_data_step(const LocalRow& x, std::span<const double> zw);
  /// Ridge mirror descent: folds s into w̄ and c when it gets small.
  void renormalize();

  SketchedAdaGradOptions options_;  ///< in effect: given_, or given_ at the data's scale (on_data_scale)
  SketchedAdaGradOptions given_;    ///< as given: spec(), options()
  std::unique_ptr<Sketch> sketch_;
  index_t rows_ = 0;     ///< R: sketch rows (ℓ, or 2ℓ for fast FD)
  index_t basis_ = 0;    ///< R_z: rows of the sketch's stored basis Z (entries of c, of Z·x)
  index_t classes_ = 1;  ///< K
  index_t dp_ = 0;       ///< local features d_p
  SymmetricEigen eigen_;
  /// The decomposition factor_gram() fills: eigen_, or a fast FD sketch's (FrequentDirections::gram_eigen).
  SymmetricEigen* gram_eigen_ = &eigen_;
  index_t rank_ = 0;     ///< eigenpairs kept by the last factor_gram()
  bool form_resolved_ = false;  ///< false until an automatic form is chosen (first step)
  bool diagonal_ = false;  ///< the last Gram was diagonal: phi_[r] belongs to row r, no eigenvectors
  std::vector<double> phi_;  ///< P's weights (R)
  /// w̄ (d_p × K, feature-major); dual averaging: −(η/δ)ḡ. With a gradient sketch that defers folds,
  /// w = s(w̄ + the sketch's deferred folds + Zᵀc), and a step settles its example's entries first.
  std::vector<double> lazy_;
  std::vector<double> coef_;      ///< c (R), or C class-major (K × R) for the data sketch
  std::vector<double> dual_;      ///< dual averaging: Zw̄ (R_z), or ZW̄ class-major (K × R_z)
  std::vector<index_t> class_indices_;  ///< K > 1, gradient sketch: class-major j·K + k for a dense x
  // Composite regularization.
  Prox prox_ = Prox::none;
  std::vector<double> sigma_;     ///< σ_i of the last factor_gram (by row when diagonal_, 0: dropped)
  double scale_ = 1.0;            ///< ridge mirror descent: s of w = s(w̄ + Zᵀc)
  std::vector<double> zw_;        ///< ridge mirror descent: Zw (R_z), or ZW class-major (K × R_z)
  std::vector<double> gsum_;      ///< lasso dual averaging: ḡ (d_p × K, feature-major)
  std::unique_ptr<detail::LowRankL1Prox> prox_solver_;

  /// The per-example buffers: each step (and add_local_scores) rewrites them before reading them;
  /// none is state.
  struct Workspace {
    std::vector<double> reduce;         ///< the step's Allreduce buffer
    std::vector<double> mv;             ///< M v in B-space (R)
    std::vector<double> eigen_coords;   ///< ΦUᵀ(Mv): P's eigen-coordinates of M v (R)
    std::vector<double> q;              ///< MᵀP(Mv) (R_z)
    std::vector<double> projected;      ///< Z·g (or Z·x) (R_z)
    std::vector<double> scores;         ///< p_k
    std::vector<double> dscores;        ///< ∂ℓ/∂p_k
    std::vector<double> g_values;       ///< the gradient x ⊗ ∂ℓ/∂p as a local row (dense or sparse)
    std::vector<index_t> g_indices;     ///< its local indices (sparse)
    std::vector<index_t> sparse_class_indices;  ///< K > 1: x's local indices mapped to j·K + k
    std::vector<double> score_products;  ///< add_local_scores' local products
    std::vector<double> ridge;          ///< ridge mirror descent: v and Kq (2·R_z)
    std::vector<double> target;         ///< lasso: the b − Cᵀμ₀ part
    std::vector<double> column;         ///< lasso: a weight column
    std::vector<double> mu0;            ///< lasso: μ₀
  };
  mutable Workspace work_;
};

}  // namespace adasketch
