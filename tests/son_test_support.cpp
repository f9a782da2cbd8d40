#include "son_test_support.hpp"

#include "adasketch/learners/sketched_newton/sketched_newton.hpp"

#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace adasketch::test {

SonData make_son_data(index_t n, index_t d, double density, unsigned seed, double scale, int classes) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  SonData data{DenseMatrix{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)}, {}, {}};
  std::vector<double> truth(static_cast<std::size_t>(d * (classes + 1)));
  for (double& v : truth) v = normal(gen);
  for (index_t i = 0; i < n; ++i) {
    for (index_t j = 0; j < d; ++j)
      if (unit(gen) < density) data.x(i, j) = scale * normal(gen);
    std::vector<double> s(static_cast<std::size_t>(classes + 1), 0.0);
    for (int k = 0; k <= classes; ++k)
      for (index_t j = 0; j < d; ++j) s[k] += truth[k * d + j] * data.x(i, j);
    data.binary.push_back(s[0] + 0.3 * scale * normal(gen) >= 0.0 ? 1.0 : -1.0);
    data.classes.push_back(static_cast<double>(std::max_element(s.begin() + 1, s.end()) - s.begin() - 1));
  }
  return data;
}

LocalExample slice_row(const std::vector<double>& row, const BlockPartition& p, int rank, bool dense) {
  LocalExample e;
  e.dense = dense;
  for (index_t j = p.begin(rank); j < p.end(rank); ++j) {
    if (dense) {
      e.val.push_back(row[j]);
    } else if (row[j] != 0.0) {
      e.idx.push_back(j - p.begin(rank));
      e.val.push_back(row[j]);
    }
  }
  return e;
}

std::vector<double> row_of(const DenseMatrix& m, index_t i) {
  return std::vector<double>(m.a.begin() + i * m.d, m.a.begin() + (i + 1) * m.d);
}

LearnerSpec son_spec(const std::string& algorithm, LossKind loss, index_t ell) {
  LearnerSpec s;
  s.algorithm = algorithm;
  s.loss = loss;
  s.ell = ell;
  s.alpha0 = 0.5;
  s.C = 1.0;
  s.sigma = 0.1;
  s.eta = 0.5;
  s.eta_schedule = EtaSchedule::inv_sqrt_t;
  s.seed = 7;
  s.scale = ScaleRule::none;  // α as given: the dense references take it so
  return s;
}

std::vector<double> run_rows(Learner& learner, const DenseMatrix& x, const std::vector<double>& labels, bool dense) {
  std::vector<double> losses;
  for (index_t i = 0; i < x.n; ++i) {
    const auto e = slice_row(row_of(x, i), learner.partition(), learner.comm().rank(), dense);
    losses.push_back(learner.step(e.row(), labels[i]).loss);
  }
  return losses;
}

std::vector<double> gather_weights(const Learner& learner) {
  const auto& p = learner.partition();
  const auto K = static_cast<index_t>(learner.outputs());
  std::vector<double> local(static_cast<std::size_t>(learner.local_dim() * K));
  learner.weights(local);
  std::vector<double> w(static_cast<std::size_t>(p.dim() * K), 0.0);
  std::copy(local.begin(), local.end(), w.begin() + p.begin(learner.comm().rank()) * K);
  learner.comm().allreduce_sum(w);
  return w;
}

std::vector<double> predict_row(const Learner& learner, const std::vector<double>& row, bool dense) {
  const auto e = slice_row(row, learner.partition(), learner.comm().rank(), dense);
  std::vector<double> scores(static_cast<std::size_t>(learner.outputs()));
  learner.predict(e.row(), scores);
  return scores;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

double tau_c(double z, double C) { return z > C ? z - C : (z < -C ? z + C : 0.0); }

double eta_at(const LearnerSpec& spec, index_t t) {
  switch (spec.eta_schedule) {
    case EtaSchedule::constant: return spec.eta;
    case EtaSchedule::inv_t: return spec.eta / static_cast<double>(t);
    case EtaSchedule::inv_sqrt_t: return spec.eta / std::sqrt(static_cast<double>(t));
  }
  return spec.eta;
}

std::vector<double> spd_solve(std::vector<double> a, std::vector<double> b, index_t n) {
  const lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(n), 1, a.data(),
                                        static_cast<lapack_int>(n), b.data(), 1);
  EXPECT_EQ(info, 0) << "dposv";
  return b;
}

std::vector<double> matvec(const std::vector<double>& a, const std::vector<double>& x) {
  const std::size_t n = x.size();
  std::vector<double> y(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
  return y;
}

std::vector<double> pseudo_inverse(std::vector<double> a, index_t n, double tolerance) {
  std::vector<double> w(static_cast<std::size_t>(n));
  const lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', static_cast<lapack_int>(n), a.data(),
                                        static_cast<lapack_int>(n), w.data());
  EXPECT_EQ(info, 0) << "dsyev";
  const double top = n > 0 ? w[static_cast<std::size_t>(n - 1)] : 0.0;
  std::vector<double> p(static_cast<std::size_t>(n * n), 0.0);
  for (index_t e = 0; e < n; ++e) {
    if (!(top > 0.0) || w[e] <= tolerance * top) continue;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < n; ++j) p[i * n + j] += a[i * n + e] * a[j * n + e] / w[e];
  }
  return p;
}

std::vector<double> lemma1(const std::vector<double>& u, const std::vector<double>& a, const std::vector<double>& x,
                           double C) {
  std::vector<double> w = u;
  const double tau = tau_c(dot(u, x), C);
  if (tau == 0.0) return w;
  const auto z = spd_solve(a, x, static_cast<index_t>(x.size()));
  const double q = dot(x, z);
  for (std::size_t j = 0; j < w.size(); ++j) w[j] -= tau / q * z[j];
  return w;
}

std::vector<double> lemma2(const std::vector<double>& u, const std::vector<double>& a, const std::vector<double>& pinv,
                           const std::vector<double>& x, double C, double range_tolerance, bool* in_range) {
  std::vector<double> w = u;
  *in_range = false;
  const double tau = tau_c(dot(u, x), C);
  if (tau == 0.0) return w;
  auto residual = x;  // (I − A⁺A)x
  const auto px = matvec(pinv, matvec(a, x));
  for (std::size_t j = 0; j < x.size(); ++j) residual[j] -= px[j];
  const double r = dot(residual, x);
  // The test data keep clear of the range test's threshold: r/‖x‖² is round-off or O(1).
  const double ratio = r / dot(x, x);
  EXPECT_TRUE(ratio < 1e-3 * range_tolerance || ratio > 1e3 * range_tolerance) << "r/‖x‖² = " << ratio;
  if (r > range_tolerance * dot(x, x)) {
    for (std::size_t j = 0; j < w.size(); ++j) w[j] -= tau / r * residual[j];
    return w;
  }
  *in_range = true;
  const auto z = matvec(pinv, x);
  const double q = dot(x, z);
  for (std::size_t j = 0; j < w.size(); ++j) w[j] -= tau / q * z[j];
  return w;
}

ProjectionCounts expect_dense_son_on_own_sketch(Learner& learner, const DenseMatrix& x, const std::vector<double>& labels,
                                                bool dense, double tolerance) {
  const LearnerSpec spec = learner.spec();
  const Loss& loss = learner.loss();
  const auto& son = dynamic_cast<const SketchedNewton&>(learner);
  const bool pinv = son.alpha() == 0.0;
  const double rank_tolerance = son.options().rank_tolerance;
  const auto d = static_cast<std::size_t>(x.d);
  // SON §5.2 (as Vowpal Wabbit's OjaNewton): D_t = D₁ + Σ_{s<t} diag(g_s g_sᵀ) in the original
  // coordinates; the projection and prediction see D_t^{-1/2}x, the step D_{t+1}^{-1/2}x.
  std::vector<double> diag(d, spec.diag_rescale ? spec.rescale_d1 : 1.0);
  ProjectionCounts counts;
  std::vector<double> u = gather_weights(learner);  // in the rescaled coordinates: D^{1/2}·weights
  for (std::size_t j = 0; j < d; ++j) u[j] *= std::sqrt(diag[j]);
  for (index_t i = 0; i < x.n; ++i) {
    const auto xi = row_of(x, i);
    auto fed = xi;
    for (std::size_t j = 0; j < d; ++j) fed[j] /= std::sqrt(diag[j]);
    std::vector<double> w;
    const auto a_before = son_matrix(learner, son.alpha());
    if (pinv) {
      bool in_range = false;
      w = lemma2(u, a_before, pseudo_inverse(a_before, x.d, rank_tolerance), fed, spec.C, std::sqrt(rank_tolerance),
                 &in_range);
      if (w != u) ++(in_range ? counts.in_range : counts.off_range);
    } else {
      w = lemma1(u, a_before, fed, spec.C);
    }
    const double p[1] = {dot(w, fed)};
    double dl = 0.0;
    loss.derivative(p, labels[i], std::span<double>(&dl, 1));
    const auto e = slice_row(xi, learner.partition(), learner.comm().rank(), dense);
    const double step_loss = learner.step(e.row(), labels[i]).loss;
    EXPECT_NEAR(step_loss, loss.value(p, labels[i]), tolerance * std::max(1.0, step_loss)) << "t = " << i;
    std::vector<double> g(d);
    for (std::size_t j = 0; j < d; ++j) {
      if (spec.diag_rescale) diag[j] += (dl * xi[j]) * (dl * xi[j]);
      g[j] = dl * xi[j] / std::sqrt(diag[j]);
    }
    const auto a_after = son_matrix(learner, son.alpha());
    const auto z = pinv ? matvec(pseudo_inverse(a_after, x.d, rank_tolerance), g) : spd_solve(a_after, g, x.d);
    std::vector<double> expected(d);
    for (std::size_t j = 0; j < d; ++j) {
      u[j] = w[j] - z[j];
      expected[j] = u[j] / std::sqrt(diag[j]);  // the weights score original examples
    }
    const auto lazy = gather_weights(learner);
    EXPECT_LT(relative_max_diff(lazy, expected), tolerance) << "t = " << i;
    if (relative_max_diff(lazy, expected) >= tolerance) break;
    for (std::size_t j = 0; j < d; ++j) u[j] = lazy[j] * std::sqrt(diag[j]);  // step by step, not accumulated round-off
  }
  return counts;
}

std::vector<std::vector<double>> enumerate_box_kkt(const std::vector<double>& M, const std::vector<double>& z0, double C) {
  const std::size_t K = z0.size();
  std::size_t patterns = 1;
  for (std::size_t k = 0; k < K; ++k) patterns *= 3;
  std::vector<std::vector<double>> found;
  for (std::size_t code = 0; code < patterns; ++code) {
    std::vector<int> state(K);  // 0 free, 1 upper, 2 lower
    for (std::size_t k = 0, c = code; k < K; ++k, c /= 3) state[k] = static_cast<int>(c % 3);
    std::vector<std::size_t> act;
    for (std::size_t k = 0; k < K; ++k)
      if (state[k] != 0) act.push_back(k);
    std::vector<double> lambda(K, 0.0);
    if (!act.empty()) {
      const auto n = act.size();
      std::vector<double> a(n * n), b(n);
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) a[i * n + j] = M[act[i] * K + act[j]];
        b[i] = z0[act[i]] - (state[act[i]] == 1 ? C : -C);
      }
      if (LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(n), 1, a.data(), static_cast<lapack_int>(n),
                        b.data(), 1) != 0)
        continue;
      for (std::size_t i = 0; i < n; ++i) lambda[act[i]] = b[i];
    }
    const double tol = 1e-10 * std::max(1.0, C);
    bool kkt = true;
    for (std::size_t k = 0; k < K && kkt; ++k) {
      double z = z0[k];
      for (std::size_t j = 0; j < K; ++j) z -= M[k * K + j] * lambda[j];
      if (state[k] == 0) kkt = std::abs(z) <= C + tol;
      if (state[k] == 1) kkt = lambda[k] >= -tol;
      if (state[k] == 2) kkt = lambda[k] <= tol;
    }
    if (kkt) found.push_back(lambda);
  }
  return found;
}

std::vector<int> expect_dense_son_dk(Learner& learner, const DenseMatrix& x, const std::vector<double>& labels, bool dense,
                                     bool own_sketch, double tolerance) {
  const LearnerSpec spec = learner.spec();
  // α of the learner's own A = αI + BᵀB (the RFD sketch's α_t), or FULL-ON's α.
  const auto alpha = [&] { return own_sketch ? dynamic_cast<const SketchedNewton&>(learner).alpha() : spec.alpha0; };
  const index_t d = x.d, K = learner.outputs(), D = d * K;
  const Loss& loss = learner.loss();
  std::vector<double> u(static_cast<std::size_t>(D), 0.0), diag(static_cast<std::size_t>(D), spec.diag_rescale ? spec.rescale_d1 : 1.0);
  std::vector<double> a(static_cast<std::size_t>(D * D), 0.0);
  for (index_t j = 0; j < D; ++j) a[j * D + j] = spec.alpha0;
  std::vector<int> active_counts(static_cast<std::size_t>(K + 1), 0);
  for (index_t t = 1; t <= x.n; ++t) {
    const auto xt = row_of(x, t - 1);
    std::vector<std::vector<double>> rows(static_cast<std::size_t>(K), std::vector<double>(static_cast<std::size_t>(D), 0.0));
    for (index_t k = 0; k < K; ++k)
      for (index_t j = 0; j < d; ++j) rows[k][j * K + k] = xt[j] / std::sqrt(diag[j * K + k]);  // D^{-1/2}(x ⊗ e_k)
    const auto a_before = own_sketch ? son_matrix(learner, alpha()) : a;
    std::vector<double> z0(static_cast<std::size_t>(K)), w = u;
    for (index_t k = 0; k < K; ++k) z0[k] = dot(u, rows[k]);
    if (std::any_of(z0.begin(), z0.end(), [&](double z) { return std::abs(z) > spec.C; })) {
      // M = X A⁻¹Xᵀ, λ by enumeration, w = u − A⁻¹Xᵀλ.
      std::vector<std::vector<double>> solved;
      for (const auto& r : rows) solved.push_back(spd_solve(a_before, r, D));
      std::vector<double> m(static_cast<std::size_t>(K * K));
      for (index_t k = 0; k < K; ++k)
        for (index_t l = 0; l < K; ++l) m[k * K + l] = dot(rows[k], solved[l]);
      const auto kkt = enumerate_box_kkt(m, z0, spec.C);
      EXPECT_EQ(kkt.size(), 1u);
      if (kkt.size() != 1) return active_counts;
      int active = 0;
      for (index_t k = 0; k < K; ++k) {
        active += kkt[0][k] != 0.0;
        for (index_t j = 0; j < D; ++j) w[j] -= kkt[0][k] * solved[k][j];
      }
      ++active_counts[static_cast<std::size_t>(active)];
    }
    std::vector<double> p(static_cast<std::size_t>(K)), dl(static_cast<std::size_t>(K));
    for (index_t k = 0; k < K; ++k) p[k] = dot(w, rows[k]);
    loss.derivative(p, labels[t - 1], dl);
    // SON §5.2 as in Vowpal Wabbit's OjaNewton: D_{t+1} = D_t + diag(g gᵀ) (original coordinates), and the
    // step's rows are D_{t+1}^{-1/2}(x ⊗ e_k).
    if (spec.diag_rescale)
      for (index_t k = 0; k < K; ++k)
        for (index_t j = 0; j < d; ++j) {
          diag[j * K + k] += (dl[k] * xt[j]) * (dl[k] * xt[j]);
          rows[k][j * K + k] = xt[j] / std::sqrt(diag[j * K + k]);
        }
    std::vector<double> g(static_cast<std::size_t>(D), 0.0);
    for (index_t k = 0; k < K; ++k)
      for (index_t j = 0; j < D; ++j) g[j] += dl[k] * rows[k][j];
    const double s = spec.sigma + eta_at(spec, t);
    for (index_t i = 0; i < D; ++i)
      for (index_t j = 0; j < D; ++j) a[i * D + j] += s * g[i] * g[j];
    const auto e = slice_row(xt, learner.partition(), learner.comm().rank(), dense);
    const double step_loss = learner.step(e.row(), labels[t - 1]).loss;
    EXPECT_NEAR(step_loss, loss.value(p, labels[t - 1]), tolerance * std::max(1.0, step_loss)) << "t = " << t;
    const auto z = spd_solve(own_sketch ? son_matrix(learner, alpha()) : a, g, D);
    std::vector<double> expected(static_cast<std::size_t>(D));
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K; ++k) {
        const index_t i = j * K + k;
        u[i] = w[i] - z[i];
        expected[i] = u[i] / std::sqrt(diag[i]);
      }
    const auto lazy = gather_weights(learner);
    EXPECT_LT(relative_max_diff(lazy, expected), tolerance) << "t = " << t;
    if (relative_max_diff(lazy, expected) >= tolerance) break;
    if (own_sketch)  // step by step, not accumulated round-off
      for (index_t i = 0; i < D; ++i) u[i] = lazy[i] * std::sqrt(diag[i]);
  }
  return active_counts;
}

DenseMatrix gather_son_sketch(const Learner& learner) {
  const Sketch* sketch = learner.sketch();
  if (sketch == nullptr) return DenseMatrix{0, learner.partition().dim() * learner.outputs(), {}};
  return gather_sketch(*sketch);
}

std::vector<double> son_matrix(const Learner& learner, double alpha) {
  const auto b = gather_son_sketch(learner);
  const index_t D = b.d;
  std::vector<double> a(static_cast<std::size_t>(D * D), 0.0);
  for (index_t i = 0; i < D; ++i) a[i * D + i] = alpha;
  for (index_t r = 0; r < b.n; ++r)
    for (index_t i = 0; i < D; ++i)
      for (index_t j = 0; j < D; ++j) a[i * D + j] += b(r, i) * b(r, j);
  return a;
}

}  // namespace adasketch::test
