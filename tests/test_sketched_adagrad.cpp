// SketchedAdaGrad (ADA-FD, fast ADA-FD, ADA-GP, ADA-DP; mirror descent and dual averaging) against
// dense implementations written here from the papers:
//   - ADA-FD with ℓ > dK keeps every gradient direction (FD is exact), so it must equal full-matrix
//     AdaGrad, H_t = δI + G_t^{1/2} with G_t = Σ g gᵀ eigendecomposed by LAPACK at every step
//     (ADA-FD paper eq. (1), (2) with φ = 0);
//   - ADA-GP / ADA-DP against their Alg. 1 / Alg. 2 literally: S_t = S_{t−1} + r_t a_tᵀ with the
//     library's r_t (Philox(seed).normal(t, i)/√ℓ for the t-th insertion), an SVD S = UΣVᵀ (LAPACK
//     dgesvd) at every step and β ← β − (η/σ)(g − V(σI + Σ)⁻¹ΣVᵀg);
// and the same run at 1, 2, 3 ranks (against MPI_COMM_SELF on every rank).
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/loss.hpp"
#include "adasketch/learners/sketched_adagrad/sketched_adagrad.hpp"
#include "adasketch/random/philox.hpp"
#include "test_support.hpp"

using namespace adasketch;
using Sketching = SketchedAdaGradOptions::Sketching;
using Update = SketchedAdaGradOptions::Update;

namespace {

/// n examples of dimension d (row-major, the same on every rank) with labels for `loss`.
struct Problem {
  index_t n = 0, d = 0;
  LossKind loss = LossKind::logistic;
  int classes = 2;
  bool sparse = false;
  std::vector<double> x, y;
  const double* row(index_t t) const { return x.data() + t * d; }
};

Problem make_problem(index_t n, index_t d, LossKind loss, int classes, bool sparse, unsigned seed) {
  Problem p{n, d, loss, classes, sparse, {}, {}};
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  // Correlated features (a low-rank-plus-noise mix), so full-matrix preconditioning matters.
  std::vector<double> mix(sz(d * d));
  for (auto& v : mix) v = normal(gen);
  const int K = loss == LossKind::softmax ? classes : 1;
  std::vector<double> theta(sz(d * K));
  for (auto& v : theta) v = normal(gen);
  p.x.assign(sz(n * d), 0.0);
  p.y.assign(sz(n), 0.0);
  std::vector<double> z(sz(d));
  for (index_t t = 0; t < n; ++t) {
    for (auto& v : z) v = normal(gen);
    for (index_t j = 0; j < d; ++j) {
      double v = 0.3 * z[sz(j)];
      for (index_t i = 0; i < std::min<index_t>(d, 2); ++i) v += mix[sz(j * d + i)] * z[sz(i)];
      if (sparse && unif(gen) < 0.5) v = 0.0;
      p.x[sz(t * d + j)] = v;
    }
    if (K > 1) {
      int best = 0;
      double best_score = -1e300;
      for (int k = 0; k < K; ++k) {
        double s = normal(gen) * 0.5;
        for (index_t j = 0; j < d; ++j) s += theta[sz(j * K + k)] * p.x[sz(t * d + j)];
        if (s > best_score) best_score = s, best = k;
      }
      p.y[sz(t)] = best;
    } else {
      double s = normal(gen) * 0.5;
      for (index_t j = 0; j < d; ++j) s += theta[sz(j)] * p.x[sz(t * d + j)];
      p.y[sz(t)] = loss == LossKind::absolute || loss == LossKind::squared ? s : (s >= 0 ? 1.0 : -1.0);
    }
  }
  return p;
}

/// The rank's part of example t, as the learner takes it (sparse: only the nonzeros).
struct LocalExample {
  std::vector<index_t> idx;
  std::vector<double> val;
  LocalRow row(bool sparse) const { return sparse ? LocalRow::sparse(idx, val) : LocalRow::dense(val); }
};

LocalExample local_example(const Problem& p, index_t t, index_t begin, index_t end) {
  LocalExample e;
  for (index_t j = begin; j < end; ++j) {
    const double v = p.row(t)[j];
    if (!p.sparse) {
      e.val.push_back(v);
    } else if (v != 0.0) {
      e.idx.push_back(j - begin);
      e.val.push_back(v);
    }
  }
  return e;
}

// ---- dense references -------------------------------------------------------------------------

/// H⁻¹v for H = δI + G^{1/2}, G symmetric D×D (LAPACK dsyev), eigenvalues ≤ 1e-12·λ_max set to 0.
std::vector<double> full_inverse_apply(const std::vector<double>& G, index_t D, double delta,
                                       const std::vector<double>& v) {
  std::vector<double> q = G, mu(sz(D));
  const lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', static_cast<lapack_int>(D), q.data(),
                                        static_cast<lapack_int>(D), mu.data());
  if (info != 0) throw LapackError("dsyev", info);
  const double mu_max = *std::max_element(mu.begin(), mu.end());
  std::vector<double> out(sz(D), 0.0);
  for (index_t i = 0; i < D; ++i) {  // eigenvector i is column i of q
    const double m = mu[sz(i)] > 1e-12 * mu_max ? mu[sz(i)] : 0.0;
    double c = 0.0;
    for (index_t r = 0; r < D; ++r) c += q[sz(r * D + i)] * v[sz(r)];
    c /= delta + std::sqrt(m);
    for (index_t r = 0; r < D; ++r) out[sz(r)] += c * q[sz(r * D + i)];
  }
  return out;
}

/// The papers' literal step direction (v − V(δI + Σ)⁻¹ΣVᵀv)/δ for S = UΣVᵀ (S: R×D row-major), dgesvd.
std::vector<double> sketch_inverse_apply(const std::vector<double>& S, index_t R, index_t D, double delta,
                                         const std::vector<double>& v) {
  const index_t m = std::min(R, D);
  std::vector<double> a = S, s(sz(m)), vt(sz(m * D)), superb(sz(std::max<index_t>(m, 2)));
  double u_dummy = 0.0;
  const lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'S', static_cast<lapack_int>(R),
                                         static_cast<lapack_int>(D), a.data(), static_cast<lapack_int>(D), s.data(),
                                         &u_dummy, 1, vt.data(), static_cast<lapack_int>(D), superb.data());
  if (info != 0) throw LapackError("dgesvd", info);
  std::vector<double> out = v;
  for (index_t i = 0; i < m; ++i) {
    double c = 0.0;
    for (index_t j = 0; j < D; ++j) c += vt[sz(i * D + j)] * v[sz(j)];
    c *= s[sz(i)] / (delta + s[sz(i)]);
    for (index_t j = 0; j < D; ++j) out[sz(j)] -= c * vt[sz(i * D + j)];
  }
  for (auto& o : out) o /= delta;
  return out;
}

/// Full-matrix AdaGrad (kind full), ADA-FD Alg. 2 / Alg. 1 with a dense SVD-based FD sketch (fd, fast_fd),
/// ADA-GP Alg. 1 (gp) or ADA-DP Alg. 2 (dp), dense, in either form.
struct Reference {
  enum class Kind { full, fd, fast_fd, gp, dp };
  Kind kind;
  bool dual;
  index_t d, K, D, ell;
  double eta, delta;
  Loss loss;
  Philox rng;
  std::vector<double> W, gbar, G, S;
  std::uint64_t inserted = 0;
  index_t fd_rows = 0, fd_filled = 0;
  double cumulative_loss = 0.0;
  index_t mistakes = 0;

  Reference(Kind k, bool dual_averaging, index_t dim, const Loss& l, index_t ell_, double eta_, double delta_,
            std::uint64_t seed)
      : kind(k), dual(dual_averaging), d(dim), K(l.outputs()), D(dim * l.outputs()), ell(ell_), eta(eta_),
        delta(delta_), loss(l), rng(seed) {
    W.assign(sz(D), 0.0);
    gbar.assign(sz(D), 0.0);
    if (kind == Kind::full) G.assign(sz(D * D), 0.0);
    if (kind == Kind::gp) S.assign(sz(ell * D), 0.0);
    if (kind == Kind::dp) S.assign(sz(ell * d), 0.0);
    if (kind == Kind::fd || kind == Kind::fast_fd) {
      fd_rows = kind == Kind::fd ? ell : 2 * ell;
      S.assign(sz(fd_rows * D), 0.0);
    }
  }

  /// ADA-FD Alg. 2 lines 4–6 (Alg. 1 lines 4–6): g into the first zero row; when no zero row is left
  /// (every step for FD once ℓ−1 rows are kept, every ℓ+1 steps for fast FD), B = UΣVᵀ (dgesvd)
  /// and B ← sqrt(max(Σ² − σ_ℓ²I, 0))Vᵀ, which keeps ℓ−1 rows.
  void fd_insert(const std::vector<double>& g) {
    std::copy(g.begin(), g.end(), S.begin() + fd_filled * D);
    if (++fd_filled < fd_rows) return;
    const index_t m = std::min(fd_rows, D);
    std::vector<double> a = S, sv(sz(m)), vt(sz(m * D)), superb(sz(std::max<index_t>(m, 2)));
    double u_dummy = 0.0;
    const lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'S', static_cast<lapack_int>(fd_rows),
                                           static_cast<lapack_int>(D), a.data(), static_cast<lapack_int>(D),
                                           sv.data(), &u_dummy, 1, vt.data(), static_cast<lapack_int>(D), superb.data());
    if (info != 0) throw LapackError("dgesvd", info);
    const double shrink = ell <= m ? sv[sz(ell - 1)] * sv[sz(ell - 1)] : 0.0;
    std::fill(S.begin(), S.end(), 0.0);
    for (index_t i = 0; i + 1 < ell && i < m; ++i) {
      const double scale = std::sqrt(std::max(sv[sz(i)] * sv[sz(i)] - shrink, 0.0));
      for (index_t j = 0; j < D; ++j) S[sz(i * D + j)] = scale * vt[sz(i * D + j)];
    }
    fd_filled = ell - 1;
  }

  void add_random_row(const std::vector<double>& a, index_t cols) {
    for (index_t i = 0; i < ell; ++i) {
      const double r = rng.normal(inserted, static_cast<std::uint64_t>(i)) / std::sqrt(static_cast<double>(ell));
      for (index_t j = 0; j < cols; ++j) S[sz(i * cols + j)] += r * a[sz(j)];
    }
    ++inserted;
  }

  void step(const double* x, double y) {
    std::vector<double> p(sz(K), 0.0), dp(sz(K));
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K; ++k) p[sz(k)] += x[j] * W[sz(j * K + k)];
    cumulative_loss += loss.value(p, y);
    mistakes += loss.mistake(p, y) ? 1 : 0;
    loss.derivative(p, y, dp);
    std::vector<double> g(sz(D));
    double gg = 0.0;
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K; ++k) {
        g[sz(j * K + k)] = x[j] * dp[sz(k)];
        gg += g[sz(j * K + k)] * g[sz(j * K + k)];
      }
    if (kind == Kind::dp) {
      add_random_row(std::vector<double>(x, x + d), d);  // Alg. 2 line 4, every t
      for (index_t k = 0; k < K; ++k) {
        std::vector<double> v(sz(d));
        for (index_t j = 0; j < d; ++j) {
          gbar[sz(j * K + k)] += g[sz(j * K + k)];
          v[sz(j)] = dual ? gbar[sz(j * K + k)] : g[sz(j * K + k)];
        }
        const auto u = sketch_inverse_apply(S, ell, d, delta, v);
        for (index_t j = 0; j < d; ++j) {
          double& w = W[sz(j * K + k)];
          w = dual ? -eta * u[sz(j)] : w - eta * u[sz(j)];
        }
      }
      return;
    }
    if (gg == 0.0) return;  // the learner inserts no zero gradient (and the step is zero)
    for (index_t e = 0; e < D; ++e) gbar[sz(e)] += g[sz(e)];
    const std::vector<double>& v = dual ? gbar : g;
    std::vector<double> u;
    if (kind == Kind::full) {
      for (index_t a = 0; a < D; ++a)
        for (index_t b = 0; b < D; ++b) G[sz(a * D + b)] += g[sz(a)] * g[sz(b)];
      u = full_inverse_apply(G, D, delta, v);
    } else if (kind == Kind::gp) {
      add_random_row(g, D);
      u = sketch_inverse_apply(S, ell, D, delta, v);
    } else {
      fd_insert(g);
      u = sketch_inverse_apply(S, fd_rows, D, delta, v);  // Alg. 2 line 7 / eq. (6) with B_t = Σ'Vᵀ
    }
    for (index_t e = 0; e < D; ++e) W[sz(e)] = dual ? -eta * u[sz(e)] : W[sz(e)] - eta * u[sz(e)];
  }
};

/// The learner's whole W (d·K, feature-major) on every rank.
std::vector<double> gather_weights(const Learner& learner) {
  const index_t K = learner.outputs();
  const auto& part = learner.partition();
  std::vector<double> all(sz(part.dim() * K), 0.0);
  std::vector<double> local(sz(learner.local_dim() * K));
  learner.weights(local);
  const index_t begin = part.begin(learner.comm().rank());
  std::copy(local.begin(), local.end(), all.begin() + begin * K);
  learner.comm().allreduce_sum(all);
  return all;
}

double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / std::max(scale, 1e-300);
}

struct RunResult {
  std::vector<double> weights;
  double cumulative_loss = 0.0;
  index_t mistakes = 0;
};

RunResult run_learner(const Communicator& comm, const Problem& p, const SketchedAdaGradOptions& o) {
  SketchedAdaGrad learner(comm, p.d, Loss(p.loss, p.classes), o);
  const auto& part = learner.partition();
  const index_t begin = part.begin(comm.rank()), end = part.end(comm.rank());
  RunResult r;
  for (index_t t = 0; t < p.n; ++t) {
    const auto e = local_example(p, t, begin, end);
    const auto s = learner.step(e.row(p.sparse), p.y[sz(t)]);
    r.cumulative_loss += s.loss;
    r.mistakes += s.mistake ? 1 : 0;
  }
  r.weights = gather_weights(learner);
  return r;
}

struct Case {
  const char* what;
  LossKind loss;
  int classes;
  index_t d;
};
const Case kCases[] = {
    {"logistic", LossKind::logistic, 2, 6}, {"softmax", LossKind::softmax, 3, 5}, {"hinge", LossKind::hinge, 2, 6}};

SketchedAdaGradOptions options(Sketching s, Update f, index_t ell, double eta, double delta) {
  SketchedAdaGradOptions o;
  o.sketching = s;
  o.update = f;
  o.ell = ell;
  o.eta = eta;
  o.delta = delta;
  o.scale = ScaleRule::none;  // as the dense references take them
  o.seed = 17;
  return o;
}

// Softmax from W = 0 leaves the classes that were never the label with identical columns of W in
// exact arithmetic (their gradient entries are equal), so their scores tie and round-off picks the
// argmax: a few mistakes may differ. Binary mistakes must agree exactly.
void expect_same_mistakes(index_t got, index_t expected, const Loss& loss, const std::string& what) {
  if (loss.kind() == LossKind::softmax)
    EXPECT_LE(std::abs(got - expected), 3) << what;
  else
    EXPECT_EQ(got, expected) << what;
}

const char* form_name(Update f) { return f == Update::mirror_descent ? "CMD" : "DA"; }

}  // namespace

TEST(SketchedAdaGrad, FdWithEllAboveDimensionEqualsFullMatrixAdaGrad) {
  const auto comm = test::world();
  for (const auto& c : kCases)
    for (bool sparse : {false, true})
      for (Sketching s : {Sketching::fd_gradients, Sketching::fast_fd_gradients})
        for (Update f : {Update::mirror_descent, Update::dual_averaging}) {
          const auto p = make_problem(300, c.d, c.loss, c.classes, sparse, 3);
          const Loss loss(c.loss, c.classes);
          const index_t D = c.d * loss.outputs();
          const double eta = 0.5, delta = 0.3;
          const auto got = run_learner(comm, p, options(s, f, D + 1, eta, delta));
          Reference ref(Reference::Kind::full, f == Update::dual_averaging, c.d, loss, 0, eta, delta, 0);
          for (index_t t = 0; t < p.n; ++t) ref.step(p.row(t), p.y[sz(t)]);
          const std::string what = std::string(c.what) + (sparse ? " sparse " : " dense ") +
                                   (s == Sketching::fd_gradients ? "fd " : "fast-fd ") + form_name(f);
          EXPECT_LT(rel_diff(got.weights, ref.W), 1e-8) << what;
          EXPECT_NEAR(got.cumulative_loss, ref.cumulative_loss, 1e-8 * ref.cumulative_loss) << what;
          expect_same_mistakes(got.mistakes, ref.mistakes, loss, what);
        }
}

TEST(SketchedAdaGrad, ShrinkingFdEqualsTheDenseAlgorithms) {
  // ℓ < dK: FD really shrinks, against ADA-FD Alg. 2 (CMD) and Alg. 1 (DA) with a dense SVD at each step.
  const auto comm = test::world();
  for (const auto& c : kCases)
    for (bool sparse : {false, true})
      for (Sketching s : {Sketching::fd_gradients, Sketching::fast_fd_gradients})
        for (Update f : {Update::mirror_descent, Update::dual_averaging})
          for (index_t ell : {2, 4}) {
            const auto p = make_problem(250, 2 * c.d + 1, c.loss, c.classes, sparse, 13);
            const Loss loss(c.loss, c.classes);
            const double eta = 0.1, delta = 1.0;
            const auto got = run_learner(comm, p, options(s, f, ell, eta, delta));
            Reference ref(s == Sketching::fd_gradients ? Reference::Kind::fd : Reference::Kind::fast_fd,
                          f == Update::dual_averaging, p.d, loss, ell, eta, delta, 0);
            for (index_t t = 0; t < p.n; ++t) ref.step(p.row(t), p.y[sz(t)]);
            const std::string what = std::string(c.what) + (sparse ? " sparse " : " dense ") +
                                     (s == Sketching::fd_gradients ? "fd " : "fast-fd ") + form_name(f) +
                                     " ell=" + std::to_string(ell);
            EXPECT_LT(rel_diff(got.weights, ref.W), 1e-8) << what;
            EXPECT_NEAR(got.cumulative_loss, ref.cumulative_loss, 1e-8 * ref.cumulative_loss) << what;
            expect_same_mistakes(got.mistakes, ref.mistakes, loss, what);
          }
}

TEST(SketchedAdaGrad, RandomProjectionsEqualTheDenseAlgorithms) {
  const auto comm = test::world();
  for (const auto& c : kCases)
    for (bool sparse : {false, true})
      for (Sketching s : {Sketching::rp_gradients, Sketching::rp_data})
        for (Update f : {Update::mirror_descent, Update::dual_averaging})
          for (index_t ell : {3, 20}) {
            const auto p = make_problem(250, c.d, c.loss, c.classes, sparse, 5);
            const Loss loss(c.loss, c.classes);
            const double eta = 0.5, delta = 0.3;
            auto o = options(s, f, ell, eta, delta);
            const auto got = run_learner(comm, p, o);
            Reference ref(s == Sketching::rp_gradients ? Reference::Kind::gp : Reference::Kind::dp,
                          f == Update::dual_averaging, c.d, loss, ell, eta, delta, o.seed);
            for (index_t t = 0; t < p.n; ++t) ref.step(p.row(t), p.y[sz(t)]);
            const std::string what = std::string(c.what) + (sparse ? " sparse " : " dense ") +
                                     (s == Sketching::rp_gradients ? "ada-gp " : "ada-dp ") + form_name(f) +
                                     " ell=" + std::to_string(ell);
            EXPECT_LT(rel_diff(got.weights, ref.W), 1e-8) << what;
            EXPECT_NEAR(got.cumulative_loss, ref.cumulative_loss, 1e-8 * ref.cumulative_loss) << what;
            expect_same_mistakes(got.mistakes, ref.mistakes, loss, what);
          }
}

TEST(SketchedAdaGrad, SmallSketchesGiveTheSameWeightsOnEveryRankCount) {
  // ℓ < d: FD really shrinks, so this also covers the folds and the lazy coefficients across shrinks.
  const auto comm = test::world();
  const Communicator self(MPI_COMM_SELF);
  for (const auto& c : kCases)
    for (bool sparse : {false, true})
      for (Sketching s : {Sketching::fd_gradients, Sketching::fast_fd_gradients, Sketching::rp_gradients,
                          Sketching::rp_data})
        for (Update f : {Update::mirror_descent, Update::dual_averaging}) {
          const auto p = make_problem(300, 4 * c.d + 1, c.loss, c.classes, sparse, 9);
          const auto o = options(s, f, 4, 0.1, 1.0);
          const auto here = run_learner(comm, p, o);
          const auto alone = run_learner(self, p, o);
          const std::string what = std::string(c.what) + (sparse ? " sparse " : " dense ") + "sketching " +
                                   std::to_string(static_cast<int>(s)) + " " + form_name(f);
          EXPECT_LT(rel_diff(here.weights, alone.weights), 1e-9) << what;
          EXPECT_NEAR(here.cumulative_loss, alone.cumulative_loss, 1e-9 * alone.cumulative_loss) << what;
        }
}

TEST(SketchedAdaGrad, PredictUsesTheCurrentWeights) {
  const auto comm = test::world();
  for (Sketching s : {Sketching::fd_gradients, Sketching::rp_data})
    for (bool sparse : {false, true}) {
      const auto p = make_problem(60, 9, LossKind::softmax, 3, sparse, 21);
      SketchedAdaGrad learner(comm, p.d, Loss(LossKind::softmax, 3), options(s, Update::mirror_descent, 3, 0.3, 0.5));
      const auto& part = learner.partition();
      const index_t begin = part.begin(comm.rank()), end = part.end(comm.rank());
      for (index_t t = 0; t + 1 < p.n; ++t) {
        learner.step(local_example(p, t, begin, end).row(p.sparse), p.y[sz(t)]);
        const auto w = gather_weights(learner);
        std::vector<double> scores(3), expected(3, 0.0);
        learner.predict(local_example(p, t + 1, begin, end).row(p.sparse), scores);
        for (index_t j = 0; j < p.d; ++j)
          for (index_t k = 0; k < 3; ++k) expected[sz(k)] += p.row(t + 1)[j] * w[sz(j * 3 + k)];
        EXPECT_LT(rel_diff(scores, expected), 1e-10) << t;
      }
    }
}

TEST(SketchedAdaGrad, MoreRanksThanFeatures) {
  const auto comm = test::world();
  const Communicator self(MPI_COMM_SELF);
  const auto p = make_problem(80, 2, LossKind::logistic, 2, false, 4);
  for (Sketching s : {Sketching::fd_gradients, Sketching::rp_data}) {
    const auto o = options(s, Update::mirror_descent, 3, 0.3, 0.5);
    EXPECT_LT(rel_diff(run_learner(comm, p, o).weights, run_learner(self, p, o).weights), 1e-9);
  }
}

TEST(SketchedAdaGrad, RejectsBadOptionsAndRows) {
  const auto comm = test::world();
  const Loss loss(LossKind::logistic);
  auto bad = [&](auto&& edit) {
    auto o = options(Sketching::fd_gradients, Update::mirror_descent, 3, 0.1, 1.0);
    edit(o);
    EXPECT_THROW(SketchedAdaGrad(comm, 5, loss, o), InvalidArgument);
  };
  bad([](SketchedAdaGradOptions& o) { o.ell = 0; });
  bad([](SketchedAdaGradOptions& o) { o.eta = 0.0; });
  bad([](SketchedAdaGradOptions& o) { o.delta = -1.0; });
  bad([](SketchedAdaGradOptions& o) { o.delta = std::nan(""); });
  bad([](SketchedAdaGradOptions& o) { o.rank_tolerance = 1.0; });
  EXPECT_THROW(SketchedAdaGrad(comm, 0, loss, {}), InvalidArgument);

  SketchedAdaGrad learner(comm, 5, loss, {});
  const std::vector<double> too_long(sz(learner.local_dim() + 1), 1.0);
  EXPECT_THROW(learner.step(LocalRow::dense(too_long), 1.0), InvalidArgument);
  const std::vector<index_t> idx{learner.local_dim()};
  const std::vector<double> val{1.0};
  EXPECT_THROW(learner.step(LocalRow::sparse(idx, val), 1.0), InvalidArgument);
  EXPECT_EQ(learner.name(), "ada-fd");
}
