#pragma once
// ADA-DIAG: AdaGrad with a diagonal proximal matrix (Duchi et al. 2011; restated in the ADA-FD
// paper §2, eq. (1)–(2), and docs/design.md §2). Every entry (j, k) of W (d × K) has its own statistic
// G_jk = Σ_s g_{s,jk}², with g_s = x_s ⊗ ∂ℓ_s/∂p, and H = δ + √G entry-wise:
//   composite mirror descent (eq. (2), φ = 0):  W ← W − η g_t / H_t
//   dual averaging          (eq. (1), φ = 0):  W_{t+1} = −η (Σ_{s≤t} g_s) / H_t
// Per example: one Allreduce of the K scores, then O(s·K) local work for s local nonzeros (O(d_p·K)
// for a dense slice). The dual-averaging form stores Σ g and G only and forms a weight when it is
// read, so a sparse step never touches the other features. No allocation after construction.
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

struct DiagonalAdaGradOptions {
  enum class Form { mirror_descent, dual_averaging };
  double eta = defaults::eta;      ///< step size η > 0
  double delta = defaults::delta;  ///< δ > 0 added to the diagonal √G
  Form form = Form::mirror_descent;
};

class DiagonalAdaGrad final : public Learner {
 public:
  /// Not collective. Throws InvalidArgument unless dim ≥ 1, η > 0 and δ > 0 (finite).
  DiagonalAdaGrad(const Communicator& comm, index_t dim, const Loss& loss, const DiagonalAdaGradOptions& options = {});
  /// The same on the caller's split of the features (partition.parts() == comm.size()).
  DiagonalAdaGrad(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
                  const DiagonalAdaGradOptions& options = {});

  /// "ada-diag" (mirror descent) or "ada-diag-da" (dual averaging).
  std::string name() const override;
  void weights(std::span<double> out) const override;
  /// Algorithm, loss (K for softmax), η and δ.
  LearnerSpec spec() const override;
  const DiagonalAdaGradOptions& options() const noexcept { return options_; }

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// The d × K blocks of W (or Σg) and G.
  void add_state_fields(StateFields& fields) override;

 private:
  /// Entry e = j·K + k of the local W: stored (mirror descent) or formed from Σg and G (dual averaging).
  double weight(std::size_t entry) const noexcept;
  /// Adds g² to G_e and takes entry e's step for the gradient entry g.
  void update(std::size_t entry, double g) noexcept;

  DiagonalAdaGradOptions options_;
  std::vector<double> state_;       ///< mirror descent: W; dual averaging: Σ_s g_s (local, d_p × K)
  std::vector<double> sum_square_;  ///< G (local, d_p × K)
  std::vector<double> scores_, dscores_;
};

}  // namespace adasketch
