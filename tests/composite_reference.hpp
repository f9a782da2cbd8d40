#pragma once
// Dense single-process references for the composite AdaGrad steps (test_composite.cpp), written
// from the papers with φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖²: the whole W on every rank, H built explicitly and
// each prox solved on its own, independently of the library's closed forms and dual Newton:
//   mirror descent:  w_{t+1} = argmin ½wᵀ(H_t + ηλ₂I)w − (H_tw_t − ηg_t)ᵀw + ηλ₁‖w‖₁
//   dual averaging:  w_{t+1} = argmin ½wᵀ(H_t + ηtλ₂I)w + ηḡ_tᵀw + ηtλ₁‖w‖₁
// ADA-DIAG's H_t = δ + √G_t (entry-wise) with every entry's prox taken at every step (no lazy
// catch-up). The sketched ones build H_t = δI + (B_tᵀB_t)^{1/2} from a dense sketch (FD with a LAPACK
// SVD at each shrink, as the RFD paper's Alg. 1, 2; ADA-GP's S ← S + r_t g_tᵀ and ADA-DP's S ←
// S + r_t x_tᵀ with the library's r_t), eigendecomposed by dsyev; the prox with λ₁ = 0 by a
// Cholesky solve (dposv), with λ₁ > 0 by cyclic coordinate descent run until no entry moves by
// more than 10⁻¹⁵ of the largest (the LASSO to about 10⁻¹³).
#include <cstdint>
#include <vector>

#include "adasketch/learners/loss.hpp"
#include "adasketch/random/philox.hpp"
#include "adasketch/types.hpp"

namespace adasketch::test {

/// n examples (row-major n × d, the same on every rank) with labels for the loss; only the first
/// half of the features carry signal, so a large λ₁ zeroes the rest.
struct CompositeProblem {
  index_t n = 0, d = 0;
  std::vector<double> x, y;
  const double* row(index_t t) const { return x.data() + t * d; }
};
CompositeProblem make_composite_problem(index_t n, index_t d, const Loss& loss, bool sparse, unsigned seed);

/// argmin ½wᵀAw − bᵀw + κ‖w‖₁ for a symmetric positive definite n × n A (row-major): dposv for
/// κ = 0, else coordinate descent from `start`.
std::vector<double> dense_prox(const std::vector<double>& A, const std::vector<double>& b, double kappa,
                               std::vector<double> start);

class CompositeReference {
 public:
  enum class Kind { diagonal, fd, fast_fd, gp, dp };
  struct Setup {
    Kind kind = Kind::diagonal;
    bool dual_averaging = false;
    index_t ell = 0;
    double eta = 0.1, delta = 1.0, lambda1 = 0.0, lambda2 = 0.0;
    std::uint64_t seed = 1;
  };
  CompositeReference(const Setup& setup, index_t d, const Loss& loss);
  /// One example: the loss of the current W, then the composite step.
  void step(const double* x, double y);

  const std::vector<double>& weights() const noexcept { return W_; }  ///< d × K, feature-major
  double cumulative_loss() const noexcept { return cumulative_loss_; }

 private:
  void fd_insert(const std::vector<double>& g);
  void add_random_row(const std::vector<double>& a, index_t cols);
  /// H = δI + (SᵀS)^{1/2} (cols × cols) for the rows S holds.
  std::vector<double> sketched_h(index_t rows, index_t cols) const;
  /// The prox of one block (the whole w, or a class column for ADA-DP) for its H, current weights
  /// w and gradient (or gradient sum).
  std::vector<double> prox(const std::vector<double>& H, const std::vector<double>& w, const std::vector<double>& g) const;

  Setup s_;
  index_t d_, K_, D_;
  Loss loss_;
  Philox rng_;
  std::vector<double> W_, gbar_, G_, S_;
  std::uint64_t inserted_ = 0;
  index_t fd_rows_ = 0, fd_filled_ = 0, t_ = 0;
  double cumulative_loss_ = 0.0;
};

}  // namespace adasketch::test
