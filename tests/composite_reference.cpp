#include "composite_reference.hpp"

#include <cblas.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "adasketch/error.hpp"

namespace adasketch::test {

namespace {

double soft(double v, double kappa) {
  const double m = std::abs(v) - kappa;
  return m > 0.0 ? std::copysign(m, v) : 0.0;
}

}  // namespace

CompositeProblem make_composite_problem(index_t n, index_t d, const Loss& loss, bool sparse, unsigned seed) {
  CompositeProblem p{n, d, std::vector<double>(sz(n * d), 0.0), std::vector<double>(sz(n), 0.0)};
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // Correlated features (two shared factors), so the full-matrix H matters.
  std::vector<double> mix(sz(2 * d));
  for (auto& v : mix) v = normal(gen);
  const index_t K = loss.outputs();
  std::vector<double> theta(sz(d * K), 0.0);
  for (index_t j = 0; j < (d + 1) / 2; ++j)
    for (index_t k = 0; k < K; ++k) theta[sz(j * K + k)] = normal(gen);
  for (index_t t = 0; t < n; ++t) {
    const double z0 = normal(gen), z1 = normal(gen);
    std::vector<double> score(sz(K), 0.0);
    for (index_t j = 0; j < d; ++j) {
      double v = 0.3 * normal(gen) + mix[sz(2 * j)] * z0 + mix[sz(2 * j + 1)] * z1;
      if (sparse && unit(gen) < 0.5) v = 0.0;
      p.x[sz(t * d + j)] = v;
      for (index_t k = 0; k < K; ++k) score[sz(k)] += theta[sz(j * K + k)] * v;
    }
    if (loss.kind() == LossKind::softmax)
      p.y[sz(t)] = static_cast<double>(std::max_element(score.begin(), score.end()) - score.begin());
    else
      p.y[sz(t)] = score[0] + 0.5 * normal(gen) >= 0.0 ? 1.0 : -1.0;
  }
  return p;
}

std::vector<double> dense_prox(const std::vector<double>& A, const std::vector<double>& b, double kappa,
                               std::vector<double> w) {
  const auto n = static_cast<index_t>(b.size());
  if (kappa == 0.0) {
    std::vector<double> a = A;
    w = b;
    const lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(n), 1, a.data(),
                                          static_cast<lapack_int>(n), w.data(), 1);
    if (info != 0) throw LapackError("dposv", info);
    return w;
  }
  // Cyclic coordinate descent: w_i ← soft(b_i − Σ_{j≠i} A_ij w_j, κ)/A_ii.
  for (int sweep = 0; sweep < 1000000; ++sweep) {
    double change = 0.0, size = 0.0;
    for (index_t i = 0; i < n; ++i) {
      double r = b[sz(i)];
      for (index_t j = 0; j < n; ++j)
        if (j != i) r -= A[sz(i * n + j)] * w[sz(j)];
      const double wi = soft(r, kappa) / A[sz(i * n + i)];
      change = std::max(change, std::abs(wi - w[sz(i)]));
      size = std::max(size, std::abs(wi));
      w[sz(i)] = wi;
    }
    if (change <= 1e-15 * size) return w;
  }
  throw std::runtime_error("dense_prox: coordinate descent did not converge");
}

CompositeReference::CompositeReference(const Setup& setup, index_t d, const Loss& loss)
    : s_(setup), d_(d), K_(loss.outputs()), D_(d * loss.outputs()), loss_(loss), rng_(setup.seed) {
  W_.assign(sz(D_), 0.0);
  gbar_.assign(sz(D_), 0.0);
  switch (s_.kind) {
    case Kind::diagonal: G_.assign(sz(D_), 0.0); break;
    case Kind::fd:
    case Kind::fast_fd:
      fd_rows_ = s_.kind == Kind::fd ? s_.ell : 2 * s_.ell;
      S_.assign(sz(fd_rows_ * D_), 0.0);
      break;
    case Kind::gp: S_.assign(sz(s_.ell * D_), 0.0); break;
    case Kind::dp: S_.assign(sz(s_.ell * d_), 0.0); break;
  }
}

// RFD paper Alg. 1 (fd) and Alg. 2 (fast fd): g into the first zero row; when none is left,
// B = UΣVᵀ (dgesvd) and B ← sqrt(max(Σ² − σ_ℓ²I, 0))Vᵀ, which keeps ℓ − 1 rows.
void CompositeReference::fd_insert(const std::vector<double>& g) {
  std::copy(g.begin(), g.end(), S_.begin() + fd_filled_ * D_);
  if (++fd_filled_ < fd_rows_) return;
  const index_t m = std::min(fd_rows_, D_);
  std::vector<double> a = S_, sv(sz(m)), vt(sz(m * D_)), superb(sz(std::max<index_t>(m, 2)));
  double u_dummy = 0.0;
  const lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'S', static_cast<lapack_int>(fd_rows_),
                                         static_cast<lapack_int>(D_), a.data(), static_cast<lapack_int>(D_), sv.data(),
                                         &u_dummy, 1, vt.data(), static_cast<lapack_int>(D_), superb.data());
  if (info != 0) throw LapackError("dgesvd", info);
  const double shrink = s_.ell <= m ? sv[sz(s_.ell - 1)] * sv[sz(s_.ell - 1)] : 0.0;
  std::fill(S_.begin(), S_.end(), 0.0);
  for (index_t i = 0; i + 1 < s_.ell && i < m; ++i) {
    const double scale = std::sqrt(std::max(sv[sz(i)] * sv[sz(i)] - shrink, 0.0));
    for (index_t j = 0; j < D_; ++j) S_[sz(i * D_ + j)] = scale * vt[sz(i * D_ + j)];
  }
  fd_filled_ = s_.ell - 1;
}

// ADA-GP Alg. 1 / ADA-DP Alg. 2 line 4: S ← S + r aᵀ, r_i = Philox(seed).normal(t, i)/√ℓ for the
// t-th insertion (the library's documented draw).
void CompositeReference::add_random_row(const std::vector<double>& a, index_t cols) {
  for (index_t i = 0; i < s_.ell; ++i) {
    const double r = rng_.normal(inserted_, static_cast<std::uint64_t>(i)) / std::sqrt(static_cast<double>(s_.ell));
    for (index_t j = 0; j < cols; ++j) S_[sz(i * cols + j)] += r * a[sz(j)];
  }
  ++inserted_;
}

std::vector<double> CompositeReference::sketched_h(index_t rows, index_t cols) const {
  const int n = static_cast<int>(cols);
  std::vector<double> q(sz(cols * cols), 0.0), mu(sz(cols));
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, n, static_cast<int>(rows), 1.0, S_.data(), n, 0.0, q.data(), n);
  const lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', n, q.data(), n, mu.data());
  if (info != 0) throw LapackError("dsyev", info);
  const double mu_max = *std::max_element(mu.begin(), mu.end());
  std::vector<double> H(sz(cols * cols), 0.0);
  for (index_t i = 0; i < cols; ++i) {  // eigenvector i is column i of q
    const double h = s_.delta + (mu[sz(i)] > 1e-12 * mu_max ? std::sqrt(mu[sz(i)]) : 0.0);
    for (index_t a = 0; a < cols; ++a)
      for (index_t b = 0; b < cols; ++b) H[sz(a * cols + b)] += h * q[sz(a * cols + i)] * q[sz(b * cols + i)];
  }
  return H;
}

std::vector<double> CompositeReference::prox(const std::vector<double>& H, const std::vector<double>& w,
                                             const std::vector<double>& g) const {
  const auto n = static_cast<index_t>(w.size());
  const double eta = s_.dual_averaging ? s_.eta * static_cast<double>(t_) : s_.eta;  // η or ηt
  std::vector<double> A = H, b(sz(n), 0.0);
  for (index_t i = 0; i < n; ++i) {
    A[sz(i * n + i)] += eta * s_.lambda2;
    if (s_.dual_averaging) {
      b[sz(i)] = -s_.eta * g[sz(i)];  // g = ḡ_t
    } else {
      double hw = 0.0;
      for (index_t j = 0; j < n; ++j) hw += H[sz(i * n + j)] * w[sz(j)];
      b[sz(i)] = hw - s_.eta * g[sz(i)];
    }
  }
  return dense_prox(A, b, eta * s_.lambda1, w);
}

void CompositeReference::step(const double* x, double y) {
  ++t_;
  std::vector<double> p(sz(K_), 0.0), dp(sz(K_));
  for (index_t j = 0; j < d_; ++j)
    for (index_t k = 0; k < K_; ++k) p[sz(k)] += x[j] * W_[sz(j * K_ + k)];
  cumulative_loss_ += loss_.value(p, y);
  loss_.derivative(p, y, dp);
  std::vector<double> g(sz(D_));
  double gg = 0.0;
  for (index_t j = 0; j < d_; ++j)
    for (index_t k = 0; k < K_; ++k) {
      g[sz(j * K_ + k)] = x[j] * dp[sz(k)];
      gg += g[sz(j * K_ + k)] * g[sz(j * K_ + k)];
    }
  for (index_t e = 0; e < D_; ++e) gbar_[sz(e)] += g[sz(e)];
  const double t = static_cast<double>(t_);
  if (s_.kind == Kind::diagonal) {  // every entry's closed-form prox, every step
    for (index_t e = 0; e < D_; ++e) {
      G_[sz(e)] += g[sz(e)] * g[sz(e)];
      const double H = s_.delta + std::sqrt(G_[sz(e)]);
      if (s_.dual_averaging) {
        W_[sz(e)] = -s_.eta * soft(gbar_[sz(e)], t * s_.lambda1) / (H + s_.eta * t * s_.lambda2);
      } else {
        const double v = W_[sz(e)] - s_.eta * g[sz(e)] / H;
        W_[sz(e)] = soft(v, s_.eta * s_.lambda1 / H) / (1.0 + s_.eta * s_.lambda2 / H);
      }
    }
    return;
  }
  if (s_.kind == Kind::dp) {  // H ⊗ I_K: one prox per class column, x inserted every step
    add_random_row(std::vector<double>(x, x + d_), d_);
    const auto H = sketched_h(s_.ell, d_);
    std::vector<double> w(sz(d_)), gk(sz(d_));
    for (index_t k = 0; k < K_; ++k) {
      for (index_t j = 0; j < d_; ++j) {
        w[sz(j)] = W_[sz(j * K_ + k)];
        gk[sz(j)] = s_.dual_averaging ? gbar_[sz(j * K_ + k)] : g[sz(j * K_ + k)];
      }
      const auto next = prox(H, w, gk);
      for (index_t j = 0; j < d_; ++j) W_[sz(j * K_ + k)] = next[sz(j)];
    }
    return;
  }
  if (gg != 0.0) {  // the learners insert no zero gradient
    if (s_.kind == Kind::gp)
      add_random_row(g, D_);
    else
      fd_insert(g);
  }
  const auto H = sketched_h(s_.kind == Kind::gp ? s_.ell : fd_rows_, D_);
  W_ = prox(H, W_, s_.dual_averaging ? gbar_ : g);
}

}  // namespace adasketch::test
