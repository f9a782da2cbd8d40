#include "son_test_support.hpp"

#include "adasketch/learners/sketched_newton.hpp"

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
  // SON §5.2: D = 0.1·I + Σ diag(g gᵀ) in the original coordinates; the algorithm sees D^{-1/2}x.
  std::vector<double> diag(d, spec.diag_rescale ? 0.1 : 1.0);
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
    for (std::size_t j = 0; j < d; ++j) g[j] = dl * fed[j];
    const auto a_after = son_matrix(learner, son.alpha());
    const auto z = pinv ? matvec(pseudo_inverse(a_after, x.d, rank_tolerance), g) : spd_solve(a_after, g, x.d);
    std::vector<double> expected(d);
    for (std::size_t j = 0; j < d; ++j) {
      u[j] = w[j] - z[j];
      if (spec.diag_rescale) diag[j] += (dl * xi[j]) * (dl * xi[j]);
      expected[j] = u[j] / std::sqrt(diag[j]);  // the weights score original examples
    }
    const auto lazy = gather_weights(learner);
    EXPECT_LT(relative_max_diff(lazy, expected), tolerance) << "t = " << i;
    if (relative_max_diff(lazy, expected) >= tolerance) break;
    for (std::size_t j = 0; j < d; ++j) u[j] = lazy[j] * std::sqrt(diag[j]);  // step by step, not accumulated round-off
  }
  return counts;
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
