#pragma once
// Sketched full-matrix AdaGrad: ADA-FD (Wan, Wei, Zhang 2018, Alg. 1 and 2, eq. (6), (7)) and ADA-GP /
// ADA-DP (Wan, Zhang 2019, Alg. 1 and 2). H_t = δI + (B_tᵀB_t)^{1/2} with B_t a sketch of the
// gradients (FD, fast FD or a Gaussian random projection) or of the data (random projection).
//
//   composite mirror descent (ADA-FD Alg. 2, ADA-GP Alg. 1, ADA-DP Alg. 2):  w_{t+1} = w_t − η H_t⁻¹ g_t
//   dual averaging (ADA-FD Alg. 1, eq. (6)):                                w_{t+1} = −η H_t⁻¹ ḡ_t,  ḡ_t = Σ_{s≤t} g_s
//
// H⁻¹ through the R×R Gram only. With M = BBᵀ = UΛUᵀ (R = sketch rows; eigendecomposed every step,
// identically on every rank) and σ_i = √λ_i, the papers' Woodbury form is
//   H⁻¹v = (v − V(δI + Σ)⁻¹ΣVᵀv)/δ,   B = UΣVᵀ,
// and since V = BᵀUΣ⁻¹ on the range of B, V(δI+Σ)⁻¹ΣVᵀ = BᵀU diag(1/(σ_i(δ+σ_i)))UᵀB = BᵀPB:
//   H⁻¹v = (v − BᵀPBv)/δ,   P = U diag(1/(σ_i(δ+σ_i))) Uᵀ,
// dropping the λ_i ≤ rank_tolerance·λ_max. Accuracy: the Gram fixes λ_i only to about u·λ_max
// (u = 2⁻⁵³), so a direction with tiny σ_i has its factor σ_i/(δ+σ_i) in H⁻¹ wrong by about
// u·λ_max/(σ_i δ); dropping it instead errs by σ_i/δ. Both stay below √(rank_tolerance·λ_max)/δ ≈
// 3·10⁻⁸·σ_max/δ at the default, the price of never forming an SVD of the ℓ×d matrix B
// (docs/design.md §3). H⁻¹'s eigenvalues stay in [1/(δ+σ_max), 1/δ] whatever is dropped.
//
// Multiclass (softmax, K scores): W is d×K, stored feature-major as a dK-vector, and a gradient is
// G = x ⊗ ∂ℓ/∂p. The gradient sketches have dimension dK on the interleaved partition (a feature's K
// entries stay on its owner). ADA-DP sketches x (dimension d) and applies H ⊗ I_K: each class column
// of W takes the step of ADA-DP Alg. 2 for its own gradient x·∂ℓ/∂p_k.
//
// Lazy weights (docs/design.md §3): w = w̄ + Zᵀc (gradient sketches, c ∈ R^{R_z}) or W = W̄ + ZᵀC (data
// sketch, C ∈ R^{R_z×K}), with B = M·Z the sketch's stored basis Z and mixing M (Sketch). One step:
//   1. one Allreduce of [Z(x⊗e_k) for k < K, w̄ᵀ(x⊗e_k) for k < K, ‖x‖²] (R_z·K + K + 1 numbers;
//      R_z + K + 1 for the data sketch): the scores p_k = w̄ᵀ(x⊗e_k) + cᵀZ(x⊗e_k) and
//      Zg = Σ_k ∂ℓ/∂p_k Z(x⊗e_k), ‖g‖² = ‖x‖²‖∂ℓ/∂p‖²;
//   2. mirror descent: if the insertion will restructure the sketch (an FD shrink), fold
//      w̄ += Zᵀc, c = 0 (the sparse FD form defers the sum over the features: Sketch::fold_coefficients;
//      a step settles its example's entries first); insert g (or x); c ← c' with
//      Z_oldᵀc = Z_newᵀc' + βg, w̄ += βg; then w̄ −= (η/δ)g and c += (η/δ)·MᵀP(M Z_new g);
//   3. dual averaging keeps w̄ = −(η/δ)ḡ and Zw̄ through the insertions (update_product, with
//      gᵀw̄ = Σ_k ∂ℓ/∂p_k w̄ᵀ(x⊗e_k) from the same Allreduce) and sets c = −MᵀP(M Zw̄): no fold.
// A step touches O(R_z·s·K) sketch entries for s local nonzeros plus O(R³) for P (between dense FD
// shrinks, or always with the sparse form, SketchForm::sparse), and reads the sketch once for a
// dense example. Nothing is allocated per example.
//
// A zero gradient (∂ℓ/∂p = 0, or x = 0) leaves a gradient sketch, w̄ and c unchanged and is not
// inserted, so the t-th *inserted* gradient of ADA-GP draws the random vector r_t (the same law as
// the paper's Alg. 1, whose r_t g_tᵀ is zero then). ADA-DP inserts every x_t (Alg. 2 line 4). With a
// composite term the step is still taken (φ shrinks w, and dual averaging's tηφ grows with t).
//
// Composite regularization φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖² (ADA-FD eq. (1), (2); ADA-GP/DP end of §3.3), with
// H' = H + η'λ₂I = δ'I + VΣVᵀ (B = UΣVᵀ):
//   mirror descent:  w_{t+1} = argmin η⟨g_t, w⟩ + ηφ(w) + ½‖w − w_t‖²_{H_t}          (η' = η)
//   dual averaging:  w_{t+1} = argmin η⟨ḡ_t, w⟩ + ηtφ(w) + ½wᵀH_tw                   (η' = ηt, Duchi et al.)
// ℓ2 only (λ₁ = 0): closed forms through the same R×R machinery, H'⁻¹v = (v − BᵀP'Bv)/δ' with P'
// = U diag(1/(σ_i(δ'+σ_i)))Uᵀ, in the lazy form with a global scale s, w = s(w̄ + Zᵀc):
//   dual averaging:  w = −ηH'⁻¹ḡ = (δ/δ')(w̄ − Zᵀ MᵀP'M(Zw̄)), w̄ = −(η/δ)ḡ as for φ = 0, s = δ/δ'_t;
//   mirror descent:  w_{t+1} = H'⁻¹(H w_t − ηg) = ρ w_t − (η/δ')g + Zᵀq,  ρ = δ/δ',
//                    q = MᵀP'M((η/δ')Zg + (ηλ₂/δ')Zw_t): s ← ρs, then w̄ −= (η/δ')g/s, c += q/s,
//                    with Zw kept through the insertions (update_product) and the steps
//                    (Z w_{t+1} = ρZw_t − (η/δ')Zg + Kq, Sketch::apply_basis_gram). When s falls
//                    below 10⁻¹⁵⁰ it is folded into w̄ and c, O(d_p·K) once every
//                    ~345/log(1 + ηλ₂/δ) steps; otherwise a step costs what it costs for φ = 0.
// ℓ1 (λ₁ > 0): no closed form for a non-diagonal H'. The prox min ½wᵀH'w − bᵀw + κ‖w‖₁ is solved
// exactly (to prox_tolerance) through its r-dimensional dual (r ≤ R kept directions;
// lib/src/learners/sketched_l1_prox.hpp): b = Hw_t − ηg_t, κ = ηλ₁ (mirror descent) or b = −ηḡ_t,
// κ = ηtλ₁ (dual averaging), warm-started at μ₀ = Cw_t, C = Σ^{1/2}Vᵀ. The weights are explicit
// (w̄ = w, c = 0: no lazy Zᵀc form) and exactly zero wherever |b − Cᵀμ*| ≤ κ; dual averaging keeps
// ḡ too. Z w_t joins the step's Allreduce (R_z·K more numbers for ADA-DP, R_z for the others); then
// each Newton iteration costs one Allreduce of R_z + R_z(R_z+1)/2 + 2 numbers, O(R_z·d_p·K) local
// work plus O(R_z²) per non-zero weight, and O(R³) replicated: a step is O(R·d/P) per iteration
// whatever the example's sparsity (a few iterations: the solve starts from the previous weights).
// ADA-DP solves one such prox per class (H ⊗ I_K).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

namespace detail {
class SketchedL1Prox;
}  // namespace detail

struct SketchedAdaGradOptions {
  /// What is sketched, and how.
  enum class Sketching {
    fd_gradients,       ///< Frequent Directions of the gradients, ℓ rows (ADA-FD)
    fast_fd_gradients,  ///< fast FD of the gradients: 2ℓ-row buffer, shrunk when full (amortized O(ℓd))
    rp_gradients,       ///< Gaussian random projection of the gradients, r_t ~ N(0, I/ℓ) (ADA-GP)
    rp_data,            ///< Gaussian random projection of the examples x_t (ADA-DP)
  };
  enum class Form {
    mirror_descent,  ///< composite mirror descent, φ = 0 (ADA-FD Alg. 2; ADA-GP Alg. 1; ADA-DP Alg. 2)
    dual_averaging,  ///< primal-dual subgradient / dual averaging, φ = 0 (ADA-FD Alg. 1, eq. (6))
  };
  Sketching sketching = Sketching::fd_gradients;
  Form form = Form::mirror_descent;
  index_t ell = defaults::ell;          ///< sketch size ℓ (τ in the papers) ≥ 1
  double eta = defaults::eta;           ///< step size η > 0
  double delta = defaults::delta;       ///< δ > 0 (σ in the ADA-GP/DP paper): H = δI + (BᵀB)^{1/2}
  std::uint64_t seed = defaults::seed;  ///< random projections: r_t[i] = Philox(seed).normal(t, i)/√ℓ
  /// Eigenvalues λ_i ≤ rank_tolerance·λ_max of BBᵀ count as zero: the round-off level of the
  /// eigensolver (about R·u·λ_max) for a rank-deficient sketch. In [0, 1). Genuine eigenvalues this
  /// small (e.g. rows of nearly vanished gradients) are dropped too, which changes H⁻¹ by at most
  /// √(rank_tolerance·λ_max)/δ; 1e-12 already moves ADA-FD's weights by ~1e-7 in such runs.
  double rank_tolerance = 1e-15;
  /// The sketch's form (Sketch): the sparse form costs time independent of d per sparse example.
  FormChoice sketch_form = FormChoice::automatic;
  double lambda1 = defaults::lambda1;  ///< λ₁ ≥ 0 of φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖²: exact zeros in w
  double lambda2 = defaults::lambda2;  ///< λ₂ ≥ 0 of φ
  /// λ₁ > 0: the ℓ1 prox stops when ‖∇D(μ)‖ ≤ prox_tolerance·max(‖μ‖, ‖Cw‖) in its dual (or on
  /// reaching the optimum of a quadratic piece), in (0, 1). No LearnerSpec field: make_learner uses
  /// the default.
  double prox_tolerance = 1e-12;
};

class SketchedAdaGrad final : public Learner {
 public:
  /// Collective (constructs the sketch on comm). Throws InvalidArgument unless dim ≥ 1, ℓ ≥ 1, η > 0,
  /// δ > 0, λ₁ ≥ 0, λ₂ ≥ 0 (finite), 0 ≤ rank_tolerance < 1 and 0 < prox_tolerance < 1.
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
  const SketchedAdaGradOptions& options() const noexcept { return options_; }
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

 private:
  bool sketches_gradients() const noexcept { return options_.sketching != SketchedAdaGradOptions::Sketching::rp_data; }
  bool dual_averaging() const noexcept { return options_.form == SketchedAdaGradOptions::Form::dual_averaging; }
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
  // Composite steps (sketched_adagrad_composite.cpp), after the insertion of the gradient g (an empty
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

  SketchedAdaGradOptions options_;
  std::unique_ptr<Sketch> sketch_;
  index_t rows_ = 0;     ///< R: sketch rows (ℓ, or 2ℓ for fast FD)
  index_t basis_ = 0;    ///< R_z: rows of the sketch's stored basis Z (entries of c, of Z·x)
  index_t classes_ = 1;  ///< K
  index_t dp_ = 0;       ///< local features d_p
  SymmetricEigen eigen_;
  index_t rank_ = 0;     ///< eigenpairs kept by the last factor_gram()
  bool form_resolved_ = false;  ///< false until an automatic form is chosen (first step)
  bool diagonal_ = false;  ///< the last Gram was diagonal: phi_[r] belongs to row r, no eigenvectors
  std::vector<double> phi_, z_, mixed_;  ///< P's weights (R), scratch (R), B-space scratch (R)
  std::vector<double> q_, projected_;    ///< MᵀP(Mv), Z·g (or Z·x), R_z entries
  /// w̄ (d_p × K, feature-major); dual averaging: −(η/δ)ḡ. With a gradient sketch that defers folds,
  /// w = s(w̄ + the sketch's deferred folds + Zᵀc), and a step settles its example's entries first.
  std::vector<double> lazy_;
  std::vector<double> coef_;      ///< c (R), or C class-major (K × R) for the data sketch
  std::vector<double> dual_;      ///< dual averaging: Zw̄ (R_z), or ZW̄ class-major (K × R_z)
  std::vector<double> reduce_;    ///< the step's Allreduce buffer
  std::vector<double> scores_, dscores_;
  std::vector<double> g_values_;  ///< the gradient x ⊗ ∂ℓ/∂p as a local row (dense or sparse)
  std::vector<index_t> g_indices_;
  std::vector<index_t> class_indices_;  ///< K > 1, gradient sketch: class-major j·K + k for a dense x
  mutable std::vector<index_t> sparse_class_indices_;  ///< K > 1: x's local indices mapped to j·K + k
  mutable std::vector<double> score_products_;         ///< add_local_scores' local products
  // Composite regularization.
  Prox prox_ = Prox::none;
  std::vector<double> sigma_;     ///< σ_i of the last factor_gram (by row when diagonal_, 0: dropped)
  double scale_ = 1.0;            ///< ridge mirror descent: s of w = s(w̄ + Zᵀc)
  std::vector<double> zw_;        ///< ridge mirror descent: Zw (R_z), or ZW class-major (K × R_z)
  std::vector<double> gsum_;      ///< lasso dual averaging: ḡ (d_p × K, feature-major)
  std::vector<double> work_;      ///< ridge mirror descent scratch: v and Kq (2·R_z)
  std::vector<double> target_, column_, mu0_;  ///< lasso scratch: b − Cᵀμ₀ part, a weight column, μ₀
  std::unique_ptr<detail::SketchedL1Prox> prox_solver_;
};

}  // namespace adasketch
