#pragma once
/// @file
/// Sketched Online Newton: FD-SON, fast FD-SON, RP-SON, Oja-SON (SON paper, Luo, Agarwal,
/// Cesa-Bianchi, Langford 2016: Alg. 1 with the sketches of Alg. 2, 8, 6 and 3) and RFD-SON, fast
/// RFD-SON (RFD paper, Luo, Chen, Zhang, Li 2017: Alg. 5 and 6). Each step projects u onto
/// {|wᵀx| ≤ C} in the A-norm and takes the Newton step u ← w − A⁻¹g, A = αI + BᵀB, through the
/// R×R Gram of the sketch B. The step, its cost, the choices and the options (m = 0, α = 0,
/// diagonal rescaling, softmax): docs/design.md §2, "Sketched Online Newton".
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/learner.hpp"
#include "adasketch/learners/sketched_newton/options.hpp"
#include "adasketch/linalg/page_buffer.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

namespace detail {
class BoxProjection;  // lib/src/learners/box_projection.hpp
}  // namespace detail

/// Sketched Online Newton (fd-son, fast-fd-son, rp-son, oja-son, rfd-son, fast-rfd-son): the learner
/// make_learner builds for those names.
class SketchedNewton final : public Learner {
 public:
  /// Local (no communication). Throws InvalidArgument for an option outside its documented range.
  /// @param comm the caller's communicator (not owned)
  /// @param dim d ≥ 1, split uniformly over the ranks
  /// @param loss any loss; softmax takes K scores
  /// @param options the hyperparameters (default: the table's defaults)
  SketchedNewton(const Communicator& comm, index_t dim, const Loss& loss, const SketchedNewtonOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  SketchedNewton(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                 const SketchedNewtonOptions& options = {});
  ~SketchedNewton() override;

  /// fd-son, fast-fd-son, rp-son, oja-son, rfd-son or fast-rfd-son.
  std::string name() const override;
  /// Local: out[j·K + k] = u[(begin + j)·K + k], the slice of u = ū + Zᵀc (the weights before the next
  /// projection); with diag_rescale, D^{-1/2}u (scores of original examples).
  void weights(std::span<double> out) const override;
  /// Algorithm, loss, ℓ, α (alpha0), C, σ, η, the η_t schedule, (rp) the seed, (oja) oja_gamma,
  /// diag_rescale, and the form.
  LearnerSpec spec() const override;
  void choose_form(FormChoice form) override;

  /// The options as given.
  const SketchedNewtonOptions& options() const noexcept { return given_; }
  /// nullptr when ell = 0.
  const Sketch* sketch() const noexcept override { return sketch_.get(); }
  /// α of the current A = αI + BᵀB: the option α, or the RFD sketch's α_t.
  double alpha() const noexcept;
  /// η_t for the t-th example (t ≥ 1).
  double eta(index_t t) const noexcept;
  /// Examples whose projection was active (|uᵀx| > C) so far.
  index_t projections() const noexcept { return projections_; }

  /// Collective (one Allreduce). out (laid out as in weights()) = w for w = argmin_{|wᵀx| ≤ C} ‖w − u‖_A,
  /// the projection step() would apply to x now (Lemma 1 or 2; softmax: the box-QP projection onto
  /// |W_kᵀx| ≤ C for every k; with diag_rescale, D^{-1/2}w for the projection of u with x̃); does not
  /// change the learner.
  void projected_weights(const LocalRow& x, std::span<double> out) const;

  /// The sketch's per-feature state on x's features (one class row: K = 1).
  void prefetch(const LocalRow& x) const noexcept override;

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  /// Yes: the step predicts with w_t, u_t projected onto |wᵀx_t| ≤ C (SON Lemma 1).
  bool predicts_projected() const noexcept override { return true; }
  /// out[0] += ūᵀx_p + cᵀ(Y_p x_p): this rank's part of uᵀx.
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// ū, c, the cached factor of αI + BBᵀ with its α and trace, the projection count, D (diag_rescale),
  /// the sketch.
  void add_state_fields(StateFields& fields) override;
  /// Takes α relative to the data's scale (detail::at_data_scale).
  void on_data_scale(const DataScale& scale) override;

 private:
  struct Projection {
    double ux = 0.0, xx = 0.0, tau = 0.0, gamma = 0.0;
    bool in_range = false;  // α = 0 and x ∈ range(A): w = u − γBᵀH²x̂, no multiple of x
  };
  /// The one Allreduce and the projection coefficients; leaves Z x in work_.zx and, when gamma ≠ 0,
  /// H x̂ in work_.hx (H²x̂ when in_range): w = u − γ(x − BᵀHx̂), or u − γBᵀH²x̂.
  Projection project(const LocalRow& x) const;
  /// Cholesky factor L of α I + BBᵀ from the sketch's Gram: all rows, or only row k (an FD insertion
  /// into the free row k leaves the other rows of the factor unchanged). α = 0: the factor Y of the
  /// pseudo-inverse H = YᵀY (Y = Λ⁺^{1/2}Uᵀ from BBᵀ = UΛUᵀ), always all rows.
  void factor_all();
  /// Builds the sketch in `form` (none when ell = 0) and sizes everything that depends on it (a fresh
  /// learner).
  void install_sketch(SketchForm form);
  /// install_sketch's parts: the sketch and the factor (ell ≥ 1), and the K > 1 buffers.
  void install_factor(SketchForm form);
  void install_classes();
  /// The step with a sketch and one score (SON Alg. 1) on the example `original`, fed = rescaled(original).
  StepResult step_sketched(const LocalRow& original, const LocalRow& fed, double label);
  /// The step without a sketch (ell = 0): A = αI.
  StepResult step_plain(const LocalRow& original, const LocalRow& fed, double label);
  /// x̃ = D^{-1/2}x in work_.rescaled (valid until the next call), or x itself without diag_rescale.
  LocalRow rescaled(const LocalRow& x) const;
  /// D_jj += (dl·x_j)² on x's nonzeros (SON §5.2: the diagonal of g gᵀ, g = ℓ'x).
  void update_diagonal(const LocalRow& x, double dl) noexcept;
  /// The row the step (g = ℓ'x, ĝ) uses: fed without diag_rescale or with dl = 0; otherwise ū += κ·fed
  /// (κ ← 0), D_{t+1} = D_t + diag(g gᵀ) and D_{t+1}^{-1/2}original (in work_.rescaled).
  LocalRow rescale_for_step(const LocalRow& original, const LocalRow& fed, double dl, double& kappa);
  /// Z x into work_.zx and ‖x‖² (returned), by one Allreduce: the rescaled step's row (sketch only).
  double reduce_step_row(const LocalRow& x);
  /// w ← D^{-1/2}w on this rank's entries (diag_rescale; no-op otherwise).
  void unscale(std::span<double> w) const noexcept;
  void factor_row(index_t k);
  void factor_pseudo_inverse();
  /// v ← L⁻¹v, and v ← L⁻ᵀv (so that H v is forward then backward); α = 0: v ← Yv and v ← Yᵀv.
  void forward(std::span<double> v) const noexcept;
  void backward(std::span<double> v) const noexcept;
  /// ū += a·x on this rank's entries.
  void add_to_ubar(const LocalRow& x, double a) noexcept;

  // Softmax (K > 1; lib/src/learners/sketched_newton/softmax.cpp).
  /// The step with K scores, with or without a sketch (rescaling and D's update included).
  StepResult step_classes(const LocalRow& x, double label);
  /// The class rows X_k of x: their local indices j·K + k and (diag_rescale) values x_j/sqrt(D_{jK+k}),
  /// in work_.class_index and work_.class_value (valid until the next call).
  void build_class_rows(const LocalRow& x) const;
  /// X_k as a local row of the dK-dimensional space, after build_class_rows(x).
  LocalRow class_row(const LocalRow& x, index_t k) const;
  /// The one Allreduce [Z X_k, ūᵀX_k, ‖X_k‖² for k < K] into work_.zxk, work_.scores (z0) and
  /// work_.norms, and the projection: λ' into work_.lambda and Σ_k λ'_k H x̂_k into work_.hx when
  /// some |z0_k| > C (returns true).
  bool project_classes(const LocalRow& x) const;
  /// diag_rescale, after ∂ℓ/∂p: ū takes the projection's work_.ucoef on the old rows (then 0), D_{t+1},
  /// the class rows D_{t+1}^{-1/2}(x ⊗ e_k) and (with a sketch) their Z X_k and ‖X_k‖² by an Allreduce.
  void rescale_classes_for_step(const LocalRow& x);

  /// The per-example buffers: each step (and each const projection) rewrites them before reading
  /// them; none is state.
  struct Workspace {
    std::vector<double> reduce;        ///< the step's one Allreduce: [Zx, ūᵀx, ‖x‖²] (K > 1: per class)
    std::vector<double> zx;            ///< Z x (R_z)
    std::vector<double> hx;            ///< H x̂, or H²x̂ when x ∈ range(A) (R)
    std::vector<double> rhs;           ///< a right-hand side of H, solved in place (R)
    std::vector<double> dc;            ///< Δc = Mᵀv: a change of c in the basis Z (R_z)
    std::vector<double> zg;            ///< Z ĝ (R_z)
    std::vector<double> pinv_product;  ///< α = 0: Y v and Yᵀv (R)
    std::vector<double> factor_columns;  ///< factor_all: L by columns (R × R)
    PageBuffer ghat;                   ///< ĝ's local values (up to d_p·K; a sparse row's use its first pages)
    std::vector<double> rescaled;      ///< diag_rescale: x̃'s local values
    // Softmax (K > 1):
    std::vector<index_t> class_index;  ///< a sparse example's class rows' local indices j·K + k
    std::vector<double> class_value;   ///< diag_rescale: the class rows' values
    std::vector<double> zxk;           ///< Z X_k for k < K (K × R_z)
    std::vector<double> xhat;          ///< x̂_k = L⁻¹ M Z X_k (K × R)
    std::vector<double> mtilde;        ///< M̃ = [x̂_kᵀ H x̂_l] of the projection's QP (K × K)
    std::vector<double> scores;        ///< z0_k = u_kᵀx
    std::vector<double> norms;         ///< ‖X_k‖²
    std::vector<double> lambda;        ///< the projection's multipliers λ'
    std::vector<double> dscores;       ///< ∂ℓ/∂p_k
    std::vector<double> ucoef;         ///< ū's coefficient of each X_k
    std::vector<double> zgrad;         ///< Z g
    std::vector<index_t> ghat_index;   ///< ĝ's local indices (sparse examples)
  };

  SketchedNewtonOptions options_;  ///< in effect: given_, or given_ at the data's scale (on_data_scale)
  SketchedNewtonOptions given_;    ///< as given: spec(), options()
  std::unique_ptr<Sketch> sketch_;
  bool regularized_ = false;                // α from the sketch (RFD)
  bool pseudo_inverse_ = false;             // α = 0: A⁺ with H = (BBᵀ)⁺
  bool form_resolved_ = false;              // false until an automatic form is chosen (first step)
  index_t rows_ = 0;   // R: rows of B (and of the factor)
  index_t basis_ = 0;  // R_z: rows of the sketch's stored basis Z (and entries of c)
  index_t projections_ = 0;
  double factor_alpha_ = 0.0;               // α of the factorized matrix
  double factor_trace_ = 0.0;               // tr BBᵀ of the factorized matrix
  std::vector<double> trace_part_;          // its diagonal entries, as factorized
  // ū, d_p·K: zero pages until a feature is touched; with a sketch that defers folds, u = ū + (the
  // sketch's deferred folds) + Zᵀc, and a step settles its example's features first (Sketch::settle).
  PageBuffer ubar_;
  std::vector<double> c_;                   // c: u = ū + Zᵀc (R_z)
  std::vector<double> factor_;              // L (or Y when α = 0), R × R
  std::vector<double> diag_;                // diag_rescale: D (d_p·K entries, like the weights)
  SymmetricEigen eigen_{1};                 // α = 0: BBᵀ = UΛUᵀ
  index_t classes_ = 1;                     // K
  std::unique_ptr<detail::BoxProjection> box_;  // K > 1: the projection's QP
  std::vector<index_t> dense_class_index_;  // K > 1: j·K + k, class-major, for dense examples
  mutable Workspace work_;
};

}  // namespace adasketch
