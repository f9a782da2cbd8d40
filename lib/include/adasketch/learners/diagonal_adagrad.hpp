#pragma once
// ADA-DIAG: AdaGrad with a diagonal proximal matrix (Duchi et al. 2011; restated in the ADA-FD
// paper §2, eq. (1)–(2), and docs/design.md §2). Every entry (j, k) of W (d × K) has its own statistic
// G_jk = Σ_s g_{s,jk}², with g_s = x_s ⊗ ∂ℓ_s/∂p, and H = δ + √G entry-wise. With the composite term
// φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖² both steps have a closed form per entry (soft(y, a) = sign(y)(|y| − a)₊):
//   composite mirror descent (eq. (2)):  w_{t+1} = argmin ηg_t w + ηφ(w) + H_t(w − w_t)²/2
//                                                = soft(w_t − ηg_t/H_t, ηλ₁/H_t) / (1 + ηλ₂/H_t)
//   dual averaging (eq. (1), Duchi et al.'s tηφ):  w_{t+1} = argmin ηḡ_t w + ηtφ(w) + H_t w²/2
//                                                = −η soft(ḡ_t, tλ₁) / (H_t + ηtλ₂),  ḡ_t = Σ_{s≤t} g_s
// (φ = 0: w_t − ηg_t/H_t and −ηḡ_t/H_t, computed exactly as such.)
// Per example: one Allreduce of the K scores, then O(s·K) local work for s local nonzeros (O(d_p·K)
// for a dense slice). The dual-averaging form stores Σ g and G only and forms a weight when it is
// read, so a sparse step never touches the other features. No allocation after construction.
//
// Lazy composite mirror descent: φ shrinks every entry at every step, also those whose gradient
// entry is zero (their H stays constant). An entry keeps the step up to which it is current,
// `last`; when a step reads or updates it, the k = t − 1 − last skipped steps are applied at once:
// the k-fold composition of y ↦ soft(y, a)/(1 + b) (a = ηλ₁/H, b = ηλ₂/H) is
//   sign(y) (|y| r^k − a r(1 − r^k)/(1 − r))₊,  r = 1/(1 + b)   (|y| − k a)₊ sign(y) when b = 0,
// since the iterates decrease in |·| and stay at 0 once there; it is evaluated as
// |y| e^{−kL} + a·expm1(−kL)/b with L = log1p(b). A sparse step stays O(s·K); `last` is part of
// the checkpoint (a block like W, so it does not depend on the rank count).
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

struct DiagonalAdaGradOptions {
  enum class Form { mirror_descent, dual_averaging };
  double eta = defaults::eta;          ///< step size η > 0
  double delta = defaults::delta;      ///< δ > 0 added to the diagonal √G
  Form form = Form::mirror_descent;
  double lambda1 = defaults::lambda1;  ///< λ₁ ≥ 0 of φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖²: exact zeros in W
  double lambda2 = defaults::lambda2;  ///< λ₂ ≥ 0 of φ
};

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
  const DiagonalAdaGradOptions& options() const noexcept { return options_; }

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// The d × K blocks of W (or Σg) and G; composite mirror descent also `last`.
  void add_state_fields(StateFields& fields) override;

 private:
  bool composite() const noexcept { return options_.lambda1 > 0.0 || options_.lambda2 > 0.0; }
  bool lazy_shrink() const noexcept { return composite() && options_.form == DiagonalAdaGradOptions::Form::mirror_descent; }
  /// Entry e = j·K + k of the local W after `steps` steps: stored (mirror descent, caught up over
  /// the steps after last_[e]) or formed from Σg and G (dual averaging).
  double weight(std::size_t entry, index_t steps) const noexcept;
  /// Adds g² to G_e and takes entry e's step for the gradient entry g (caught up before).
  void update(std::size_t entry, double g, index_t step) noexcept;

  DiagonalAdaGradOptions options_;
  std::vector<double> state_;       ///< mirror descent: W; dual averaging: Σ_s g_s (local, d_p × K)
  std::vector<double> sum_square_;  ///< G (local, d_p × K)
  std::vector<double> last_;        ///< composite mirror descent: the step each entry of W is current to
  std::vector<double> scores_, dscores_;
};

}  // namespace adasketch
