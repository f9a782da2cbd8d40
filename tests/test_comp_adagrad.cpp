// CompAdaGrad (adasketch/learners/comp_adagrad/comp_adagrad.hpp):
//   - the SRHT (lib/src/linalg/hadamard.hpp) against Π̃ = RHΣ/√n written out with Sylvester's recursion
//     (tests/hadamard_reference.hpp): Π̃v for dense and sparse v, Π̃ᵀz and Π̃ diag(w) Π̃ᵀ on blocks of
//     the features and of the padding that are not aligned to powers of two;
//   - its two limits (CompAdaGrad §2): k = 0 with τ = 1 is ADA-DIAG, against the library's
//     DiagonalAdaGrad and a dense loop, also with φ = λ₁‖w‖₁ + λ₂/2‖w‖² (λ₁, λ₂ > 0) against the composite
//     DiagonalAdaGrad and the dense composite reference (composite_reference.hpp); k = n is full-matrix AdaGrad, H_t = δI + G_t^{1/2} with G_t
//     eigendecomposed by LAPACK dsyev at every step (for d a power of two and for a padded d);
//   - the same run on MPI_COMM_SELF and on the world's ranks; checkpoint resume, bitwise at the same
//     rank count and to round-off at another; make_learner, spec() and the argument checks.
// The ℓ2 and ℓ1 steps against dense solves of eq. (9) and (16): test_comp_adagrad_steps.cpp.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/comp_adagrad/comp_adagrad.hpp"
#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"
#include "checkpoint_support.hpp"
#include "composite_reference.hpp"
#include "hadamard_reference.hpp"
#include "test_support.hpp"

using namespace adasketch;
using Placement = CompAdaGradOptions::Placement;

namespace {

// ---- the SRHT ---------------------------------------------------------------------------------

// This rank's coordinate ranges as the learner lays them out: its features' block of [0, N), then its
// block of the padding [N, n).
std::vector<detail::CoordinateRange> local_ranges(index_t N, index_t n, int P, int rank) {
  const BlockPartition features(N, P);
  std::vector<detail::CoordinateRange> r{{features.begin(rank), features.size(rank)}};
  if (n > N) {
    const BlockPartition padding(n - N, P);
    r.push_back({N + padding.begin(rank), padding.size(rank)});
  }
  return r;
}

TEST(CompAdaGradSrht, MatchesTheDenseTransform) {
  const auto comm = test::world();
  const int P = comm.size(), rank = comm.rank();
  for (const index_t N : {index_t{1}, index_t{37}, index_t{64}, index_t{45}})
    for (const index_t k : {index_t{0}, index_t{1}, index_t{5}, index_t{-1}}) {  // −1: k = n
      const index_t n = detail::next_power_of_two(N), rows = k < 0 ? n : std::min(k, n);
      SCOPED_TRACE("N = " + std::to_string(N) + ", n = " + std::to_string(n) + ", k = " + std::to_string(rows));
      const auto ranges = local_ranges(N, n, P, rank);
      const detail::Srht srht(n, rows, 11, ranges);
      const std::vector<double> pi = test::dense_srht(srht);
      std::mt19937_64 gen(5);
      std::normal_distribution<double> normal;
      std::vector<double> v(sz(n)), w(sz(n)), z(sz(rows));
      for (auto& e : v) e = normal(gen);
      for (auto& e : w) e = std::exp(normal(gen));
      for (auto& e : z) e = normal(gen);
      std::vector<double> local_v, local_w;  // this rank's coordinates in local order
      std::vector<index_t> global;
      for (const auto& r : ranges)
        for (index_t j = r.begin; j < r.begin + r.size; ++j) {
          local_v.push_back(v[sz(j)]);
          local_w.push_back(w[sz(j)]);
          global.push_back(j);
        }
      ASSERT_EQ(static_cast<index_t>(global.size()), srht.local_size());
      // Π̃v, dense and (every third entry) sparse, summed over ranks.
      std::vector<double> got(sz(rows), 0.0), got_sparse(sz(rows), 0.0), want(sz(rows), 0.0), want_sparse(sz(rows), 0.0);
      srht.forward(local_v, got);
      std::vector<index_t> idx;
      std::vector<double> val;
      for (std::size_t i = 0; i < global.size(); i += 3) {
        idx.push_back(static_cast<index_t>(i));
        val.push_back(local_v[i]);
      }
      srht.forward_sparse(idx, val, got_sparse);
      comm.allreduce_sum(got);
      comm.allreduce_sum(got_sparse);
      for (index_t a = 0; a < rows; ++a)
        for (index_t j = 0; j < n; ++j) {
          want[sz(a)] += pi[sz(a * n + j)] * v[sz(j)];
          // The sparse vector: the entries at local positions 0, 3, 6, … of each rank.
        }
      std::vector<double> sparse_v(sz(n), 0.0);
      for (std::size_t i = 0; i < global.size(); i += 3) sparse_v[sz(global[i])] = local_v[i];
      comm.allreduce_sum(sparse_v);
      for (index_t a = 0; a < rows; ++a)
        for (index_t j = 0; j < n; ++j) want_sparse[sz(a)] += pi[sz(a * n + j)] * sparse_v[sz(j)];
      EXPECT_LE(test::relative_max_diff(got, want), 1e-13) << "dense Π̃v";
      EXPECT_LE(test::relative_max_diff(got_sparse, want_sparse), 1e-13) << "sparse Π̃v";
      // Π̃ᵀz on the local coordinates.
      std::vector<double> back(global.size()), back_want(global.size(), 0.0);
      srht.transpose(z, back);
      for (std::size_t i = 0; i < global.size(); ++i)
        for (index_t a = 0; a < rows; ++a) back_want[i] += pi[sz(a * n + global[i])] * z[sz(a)];
      EXPECT_TRUE(test::everywhere(comm, test::relative_max_diff(back, back_want) <= 1e-13)) << "Π̃ᵀz";
      // Π̃ diag(w) Π̃ᵀ (packed lower triangle), and Π̃Π̃ᵀ = I.
      std::vector<double> gram(sz(rows * (rows + 1) / 2), 0.0), ones(global.size(), 1.0), identity = gram;
      srht.gram(local_w, gram);
      srht.gram(ones, identity);
      comm.allreduce_sum(gram);
      comm.allreduce_sum(identity);
      std::vector<double> gram_want(gram.size(), 0.0), identity_want(gram.size(), 0.0);
      std::size_t e = 0;
      for (index_t a = 0; a < rows; ++a)
        for (index_t b = 0; b <= a; ++b, ++e) {
          for (index_t j = 0; j < n; ++j) gram_want[e] += pi[sz(a * n + j)] * w[sz(j)] * pi[sz(b * n + j)];
          identity_want[e] = a == b ? 1.0 : 0.0;
        }
      EXPECT_LE(test::relative_max_diff(gram, gram_want), 1e-13) << "Π̃ diag(w) Π̃ᵀ";
      EXPECT_LE(test::relative_max_diff(identity, identity_want), 1e-13) << "Π̃Π̃ᵀ = I";
    }
}

TEST(CompAdaGradSrht, RowsAreASeededSubset) {
  const detail::CoordinateRange all{0, 1024};
  const detail::Srht a(1024, 40, 3, {&all, 1}), b(1024, 40, 3, {&all, 1}), c(1024, 40, 4, {&all, 1});
  const auto rows = a.row_indices();
  ASSERT_EQ(rows.size(), 40u);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(std::adjacent_find(rows.begin(), rows.end()), rows.end()) << "rows repeat";
  EXPECT_LT(rows.back(), 1024u);
  EXPECT_TRUE(std::equal(rows.begin(), rows.end(), b.row_indices().begin())) << "same seed, other rows";
  EXPECT_FALSE(std::equal(rows.begin(), rows.end(), c.row_indices().begin())) << "other seed, same rows";
  int minus = 0;
  for (index_t j = 0; j < 1024; ++j) minus += a.sign(j) < 0 ? 1 : 0;
  EXPECT_GT(minus, 400);  // Rademacher: 512 ± 16 expected
  EXPECT_LT(minus, 624);
  const detail::Srht full(16, 16, 9, {&all, 0});  // k = n takes every row
  for (std::uint64_t r = 0; r < 16; ++r) EXPECT_EQ(full.row_indices()[r], r);
}

TEST(CompAdaGradSrht, FastTransformIsTheSylvesterMatrix) {
  for (const index_t n : {index_t{1}, index_t{2}, index_t{8}, index_t{32}}) {
    const auto h = test::sylvester_hadamard(n);
    std::vector<double> v(sz(n));
    for (index_t j = 0; j < n; ++j) v[sz(j)] = std::sin(1.0 + static_cast<double>(j));
    std::vector<double> got = v, want(sz(n), 0.0);
    detail::fast_walsh_hadamard(got);
    for (index_t c = 0; c < n; ++c)
      for (index_t j = 0; j < n; ++j) {
        want[sz(c)] += h[sz(c * n + j)] * v[sz(j)];
        EXPECT_EQ(detail::walsh_sign(static_cast<std::uint64_t>(c), static_cast<std::uint64_t>(j)), h[sz(c * n + j)]);
      }
    EXPECT_LE(test::relative_max_diff(got, want), 1e-14) << "n = " << n;
  }
}

// ---- data -------------------------------------------------------------------------------------

/// n examples of dimension d (row-major, the same on every rank): correlated features (a rank-2 mix
/// plus noise), about half of them zero when sparse; labels ±1, or 0..K−1 for softmax.
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
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unif;
  const int K = loss == LossKind::softmax ? classes : 1;
  std::vector<double> mix(sz(2 * d)), theta(sz(d * K));
  for (auto& v : mix) v = normal(gen);
  for (auto& v : theta) v = normal(gen);
  for (index_t t = 0; t < n; ++t) {
    const double z0 = normal(gen), z1 = normal(gen);
    for (index_t j = 0; j < d; ++j) {
      double v = mix[sz(2 * j)] * z0 + mix[sz(2 * j + 1)] * z1 + 0.3 * normal(gen);
      if (sparse && unif(gen) < 0.5) v = 0.0;
      p.x.push_back(v);
    }
    int best = 0;
    double best_score = -1e300;
    for (int k = 0; k < K; ++k) {
      double s = 0.5 * normal(gen);
      for (index_t j = 0; j < d; ++j) s += theta[sz(j * K + k)] * p.row(t)[j];
      if (s > best_score) best_score = s, best = k;
    }
    p.y.push_back(K > 1 ? best : (best_score >= 0 ? 1.0 : -1.0));
  }
  return p;
}

/// The rank's part of example t as a LocalRow (sparse: only the nonzeros).
struct LocalExample {
  std::vector<index_t> idx;
  std::vector<double> val;
  LocalRow row(bool sparse) const { return sparse ? LocalRow::sparse(idx, val) : LocalRow::dense(val); }
};

LocalExample local_example(const Problem& p, index_t t, const BlockPartition& part, int rank) {
  LocalExample e;
  for (index_t j = part.begin(rank); j < part.end(rank); ++j) {
    const double v = p.row(t)[j];
    if (!p.sparse) {
      e.val.push_back(v);
    } else if (v != 0.0) {
      e.idx.push_back(j - part.begin(rank));
      e.val.push_back(v);
    }
  }
  return e;
}

struct RunResult {
  std::vector<double> weights;  ///< all d·K, on every rank
  double loss = 0.0;
};

RunResult run(Learner& learner, const Problem& p, index_t from, index_t to) {
  RunResult r;
  for (index_t t = from; t < to; ++t)
    r.loss += learner.step(local_example(p, t, learner.partition(), learner.comm().rank()).row(p.sparse), p.y[sz(t)]).loss;
  r.weights = test::global_weights(learner);
  return r;
}

// ---- the two limits ---------------------------------------------------------------------------

/// Dense AdaGrad in N = dK dimensions on every rank: diagonal (H = δ + √G entry-wise) or full
/// (H = δI + G^{1/2}, G = Σ ggᵀ by dsyev, eigenvalues ≤ 1e-12·λ_max taken as 0); mirror descent
/// w ← w − ηH⁻¹g or dual averaging w = −ηH⁻¹ḡ.
struct DenseAdaGrad {
  bool full, dual;
  index_t d, K, N;
  double eta, delta;
  Loss loss;
  std::vector<double> w, G, gbar;
  double total = 0.0;

  DenseAdaGrad(bool full_matrix, bool dual_averaging, index_t dim, const Loss& l, double eta_, double delta_)
      : full(full_matrix), dual(dual_averaging), d(dim), K(l.outputs()), N(dim * l.outputs()), eta(eta_),
        delta(delta_), loss(l), w(sz(N), 0.0), G(sz(full_matrix ? N * N : N), 0.0), gbar(sz(N), 0.0) {}

  void step(const double* x, double y) {
    std::vector<double> p(sz(K), 0.0), dp(sz(K)), g(sz(N));
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K; ++k) p[sz(k)] += x[j] * w[sz(j * K + k)];
    total += loss.value(p, y);
    loss.derivative(p, y, dp);
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K; ++k) g[sz(j * K + k)] = x[j] * dp[sz(k)];
    if (std::all_of(g.begin(), g.end(), [](double v) { return v == 0.0; })) return;
    for (index_t e = 0; e < N; ++e) gbar[sz(e)] += g[sz(e)];
    const std::vector<double>& v = dual ? gbar : g;
    if (!full) {
      for (index_t e = 0; e < N; ++e) {
        G[sz(e)] += g[sz(e)] * g[sz(e)];
        const double step = eta * v[sz(e)] / (delta + std::sqrt(G[sz(e)]));
        w[sz(e)] = dual ? -step : w[sz(e)] - step;
      }
      return;
    }
    if (dual) std::fill(w.begin(), w.end(), 0.0);
    for (index_t a = 0; a < N; ++a)
      for (index_t b = 0; b < N; ++b) G[sz(a * N + b)] += g[sz(a)] * g[sz(b)];
    std::vector<double> q = G, mu(sz(N));
    ASSERT_EQ(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', static_cast<lapack_int>(N), q.data(), static_cast<lapack_int>(N),
                            mu.data()), 0);
    const double top = *std::max_element(mu.begin(), mu.end());
    for (index_t i = 0; i < N; ++i) {  // eigenvector i is column i of q
      const double m = mu[sz(i)] > 1e-12 * top ? mu[sz(i)] : 0.0;
      double c = 0.0;
      for (index_t r = 0; r < N; ++r) c += q[sz(r * N + i)] * v[sz(r)];
      c *= eta / (delta + std::sqrt(m));
      for (index_t r = 0; r < N; ++r) w[sz(r)] -= c * q[sz(r * N + i)];
    }
  }
};

struct LimitCase {
  const char* what;
  LossKind loss;
  int classes;
  index_t d;
};
const LimitCase kLimitCases[] = {{"logistic d=7", LossKind::logistic, 2, 7},
                                 {"logistic d=8", LossKind::logistic, 2, 8},
                                 {"squared d=6", LossKind::squared, 2, 6},
                                 {"softmax d=5 K=3", LossKind::softmax, 3, 5}};

using Update = CompAdaGradOptions::Update;

// k = 0 with τ = 1 is ADA-DIAG: against DiagonalAdaGrad and a dense loop, without φ and with
// φ = λ₁‖w‖₁ + λ₂/2‖w‖², λ₁, λ₂ > 0, where CompAdaGrad's ℓ1 step (its LASSO, by active-set Newton) with
// A_t = diag(√G_t) + δI must be ADA-DIAG's per-entry closed form (mirror descent with the shrink of
// untouched entries applied lazily; dual averaging with tηφ) and the dense composite reference that
// takes every entry's prox at every step (composite_reference.hpp).
TEST(CompAdaGrad, WithoutSubspaceAndTauOneIsDiagonalAdaGrad) {
  const auto comm = test::world();
  const double regularizers[][2] = {{0.0, 0.0}, {0.02, 0.05}, {0.1, 0.01}};  // the last zeroes some weights
  index_t zeros = 0;
  for (const auto& c : kLimitCases)
    for (const bool sparse : {false, true})
      for (const Update form : {Update::mirror_descent, Update::dual_averaging})
        for (const auto& [lambda1, lambda2] : regularizers) {
          const bool dual = form == Update::dual_averaging;
          SCOPED_TRACE(std::string(c.what) + (sparse ? " sparse" : " dense") + (dual ? " DA" : " CMD") + ", λ₁ " +
                       std::to_string(lambda1) + ", λ₂ " + std::to_string(lambda2));
          const auto p = make_problem(200, c.d, c.loss, c.classes, sparse, 3);
          const Loss loss(c.loss, c.classes);
          const double eta = 0.4, delta = 0.7;
          CompAdaGradOptions o;
          o.ell = 0;
          o.tau = 1.0;
          o.eta = eta;
          o.delta = delta;
          o.scale = ScaleRule::none;  // η, δ as the reference takes them
          o.lambda1 = lambda1;
          o.lambda2 = lambda2;
          o.update = form;
          CompAdaGrad comp(comm, c.d, loss, o);
          using DiagonalUpdate = DiagonalAdaGradOptions::Update;
          DiagonalAdaGrad diag(comm, c.d, loss,
                               {.eta = eta, .delta = delta, .lambda1 = lambda1, .lambda2 = lambda2, .scale = ScaleRule::none,
                                .update = dual ? DiagonalUpdate::dual_averaging : DiagonalUpdate::mirror_descent});
          std::vector<double> dense_w;
          double dense_loss = 0.0;
          if (lambda1 == 0.0 && lambda2 == 0.0) {
            DenseAdaGrad dense(false, dual, c.d, loss, eta, delta);
            for (index_t t = 0; t < p.n; ++t) dense.step(p.row(t), p.y[sz(t)]);
            dense_w = dense.w, dense_loss = dense.total;
          } else {
            using Reference = test::CompositeReference;
            Reference dense({.kind = Reference::Kind::diagonal, .dual_averaging = dual, .eta = eta, .delta = delta,
                             .lambda1 = lambda1, .lambda2 = lambda2},
                            c.d, loss);
            for (index_t t = 0; t < p.n; ++t) dense.step(p.row(t), p.y[sz(t)]);
            dense_w = dense.weights(), dense_loss = dense.cumulative_loss();
          }
          const RunResult a = run(comp, p, 0, p.n), b = run(diag, p, 0, p.n);
          EXPECT_LE(test::relative_max_diff(a.weights, b.weights), 1e-10) << "against DiagonalAdaGrad";
          EXPECT_LE(test::relative_max_diff(a.weights, dense_w), 1e-10) << "against the dense loop";
          EXPECT_NEAR(a.loss, dense_loss, 1e-10 * dense_loss);
          zeros += std::count(a.weights.begin(), a.weights.end(), 0.0);
        }
  EXPECT_GT(zeros, 0) << "λ₁ never zeroed a weight: the ℓ1 step was not exercised";
}

TEST(CompAdaGrad, FullSubspaceIsFullMatrixAdaGrad) {
  const auto comm = test::world();
  for (const auto& c : kLimitCases)
    for (const bool sparse : {false, true})
      for (const Update form : {Update::mirror_descent, Update::dual_averaging}) {
        const bool dual = form == Update::dual_averaging;
        const Loss loss(c.loss, c.classes);
        const index_t n = detail::next_power_of_two(c.d * loss.outputs());
        SCOPED_TRACE(std::string(c.what) + (sparse ? " sparse" : " dense") + (dual ? " DA" : " CMD") + ", k = n = " +
                     std::to_string(n));
        const auto p = make_problem(150, c.d, c.loss, c.classes, sparse, 4);
        const double eta = 0.3, delta = 0.5;
        CompAdaGradOptions o;
        o.ell = n;
        o.eta = eta;
        o.delta = delta;
        o.scale = ScaleRule::none;  // η, δ as the reference takes them
        o.tau = 0.7;  // the complement is empty: τ must not matter
        o.rank_tolerance = 1e-12;
        o.update = form;
        CompAdaGrad comp(comm, c.d, loss, o);
        EXPECT_EQ(comp.padded_dim(), n);
        DenseAdaGrad dense(true, dual, c.d, loss, eta, delta);
        for (index_t t = 0; t < p.n; ++t) dense.step(p.row(t), p.y[sz(t)]);
        const RunResult a = run(comp, p, 0, p.n);
        EXPECT_LE(test::relative_max_diff(a.weights, dense.w), 1e-10);
        EXPECT_NEAR(a.loss, dense.total, 1e-10 * dense.total);
      }
}

// ---- rank counts, checkpoints, make_learner -----------------------------------------------------

LearnerSpec spec_of(index_t ell, double lambda1, double lambda2, double tau, bool softmax, bool dual = false) {
  LearnerSpec s;
  s.algorithm = dual ? "comp-adagrad-da" : "comp-adagrad";
  s.loss = softmax ? LossKind::softmax : LossKind::logistic;
  s.classes = 3;
  s.ell = ell;
  s.eta = 0.3;
  s.delta = 0.6;
  s.lambda1 = lambda1;
  s.lambda2 = lambda2;
  s.tau = tau;
  s.seed = 21;
  s.scale = ScaleRule::none;  // η, δ, λ as the reference takes them
  return s;
}

const LearnerSpec kSpecs[] = {spec_of(3, 0.0, 0.0, 1.0, false), spec_of(5, 0.0, 0.05, 0.5, false),
                              spec_of(4, 0.02, 0.01, 1.0, false), spec_of(6, 0.0, 0.0, 1.0, true),
                              spec_of(7, 0.01, 0.0, 2.0, true), spec_of(3, 0.0, 0.0, 1.0, false, true),
                              spec_of(5, 0.001, 0.002, 0.7, false, true), spec_of(4, 0.0, 0.001, 1.0, true, true)};

TEST(CompAdaGrad, AgreesAcrossRankCounts) {
  const auto world = test::world();
  const Communicator self(MPI_COMM_SELF);
  for (const auto& spec : kSpecs)
    for (const bool sparse : {false, true}) {
      SCOPED_TRACE(spec.algorithm + " ell " + std::to_string(spec.ell) + ", λ₁ " + std::to_string(spec.lambda1) + ", λ₂ " +
                   std::to_string(spec.lambda2) + ", τ " + std::to_string(spec.tau) + (spec.classes == 3 ? " softmax" : "") +
                   (sparse ? " sparse" : " dense"));
      const auto p = make_problem(120, 13, spec.loss, spec.classes, sparse, 8);
      auto a = make_learner(world, p.d, spec);
      auto b = make_learner(self, p.d, spec);
      const RunResult ra = run(*a, p, 0, p.n), rb = run(*b, p, 0, p.n);
      EXPECT_TRUE(test::everywhere(world, test::relative_max_diff(ra.weights, rb.weights) <= 1e-10));
      EXPECT_NEAR(ra.loss, rb.loss, 1e-10 * rb.loss);
      // and the model moved: not a run that stayed at w = 0
      EXPECT_GT(*std::max_element(ra.weights.begin(), ra.weights.end()), 1e-3);
    }
}

TEST(CompAdaGrad, CheckpointResumesExactly) {
  const std::string dir = test::shared_checkpoint_dir();
  const auto world = test::world();
  const Communicator self(MPI_COMM_SELF);
  for (const auto& spec : kSpecs)
    for (const bool sparse : {false, true}) {
      SCOPED_TRACE(spec.algorithm + " ell " + std::to_string(spec.ell) + ", λ₁ " + std::to_string(spec.lambda1) +
                   (sparse ? " sparse" : " dense"));
      const auto p = make_problem(40, 11, spec.loss, spec.classes, sparse, 9);
      const std::string path = dir + "/comp.ckpt";
      auto a = make_learner(world, p.d, spec);
      run(*a, p, 0, 15);
      save_checkpoint(path, *a);
      const RunResult ra = run(*a, p, 15, p.n);
      auto b = make_learner(world, p.d, spec);
      load_checkpoint(path, *b);
      EXPECT_EQ(b->steps(), 15);
      const RunResult rb = run(*b, p, 15, p.n);
      EXPECT_TRUE(test::bitwise_equal(ra.weights, rb.weights)) << "resumed at the same rank count";
      EXPECT_TRUE(test::bitwise_equal({ra.loss}, {rb.loss}));
      auto fresh = make_learner(world, p.d, spec);  // the restored state mattered
      EXPECT_FALSE(test::bitwise_equal(run(*fresh, p, 15, p.n).weights, ra.weights));
      // Read on one rank (another split of the features and of the padding).
      auto c = make_learner(self, p.d, spec);
      load_checkpoint(path, *c);
      auto uninterrupted = make_learner(self, p.d, spec);
      run(*uninterrupted, p, 0, 15);
      EXPECT_LE(test::relative_max_diff(run(*c, p, 15, p.n).weights, run(*uninterrupted, p, 15, p.n).weights), 1e-10);
      world.barrier();  // everyone has read the file before the next case rewrites it
    }
}

TEST(CompAdaGrad, MakeLearnerAndSpec) {
  const auto world = test::world();
  const LearnerSpec s = spec_of(4, 0.02, 0.01, 0.8, true);
  auto learner = make_learner(world, 9, s);
  EXPECT_EQ(learner->name(), "comp-adagrad");
  const LearnerSpec back = learner->spec();
  EXPECT_EQ(back.algorithm, s.algorithm);
  EXPECT_EQ(back.loss, s.loss);
  EXPECT_EQ(back.classes, 3);
  EXPECT_EQ(back.ell, 4);
  EXPECT_EQ(back.eta, s.eta);
  EXPECT_EQ(back.delta, s.delta);
  EXPECT_EQ(back.tau, s.tau);
  EXPECT_EQ(back.lambda1, s.lambda1);
  EXPECT_EQ(back.lambda2, s.lambda2);
  EXPECT_EQ(back.seed, s.seed);
  EXPECT_EQ(make_learner(world, 9, spec_of(4, 0.0, 0.0, 1.0, false, true))->name(), "comp-adagrad-da");
  auto& comp = dynamic_cast<CompAdaGrad&>(*learner);
  EXPECT_EQ(comp.padded_dim(), 32);  // d·K = 27
  EXPECT_EQ(world.allreduce_sum(comp.local_padding()), 5);

  const auto refused = [&](LearnerSpec bad, index_t dim, const std::string& what) {
    EXPECT_THROW(make_learner(world, dim, bad), InvalidArgument) << what;
  };
  LearnerSpec bad = s;
  bad.ell = 33;
  refused(bad, 9, "k > n");
  bad = spec_of(3, 0.0, 0.0, 0.0, false);
  refused(bad, 9, "τ = 0 and λ₂ = 0");
  bad.lambda2 = 0.1;
  EXPECT_NO_THROW(make_learner(world, 9, bad)) << "τ = 0 with λ₂ > 0";
  bad = s;
  bad.lambda1 = -1e-3;
  refused(bad, 9, "λ₁ < 0");
  bad = s;
  bad.lambda2 = NAN;
  refused(bad, 9, "λ₂ NaN");
  bad = s;
  bad.tau = -1.0;
  refused(bad, 9, "τ < 0");
  bad = s;
  bad.delta = 0.0;
  refused(bad, 9, "δ = 0");
  bad = s;
  bad.ell = -1;
  refused(bad, 9, "k < 0");
  CompAdaGradOptions o;
  o.lasso_tolerance = 0.0;
  EXPECT_THROW(CompAdaGrad(world, 9, Loss(LossKind::logistic, 2), o), InvalidArgument);
  o = {};
  o.ell = 2;
  o.rank_tolerance = 1.0;
  EXPECT_THROW(CompAdaGrad(world, 9, Loss(LossKind::logistic, 2), o), InvalidArgument);
}

}  // namespace
