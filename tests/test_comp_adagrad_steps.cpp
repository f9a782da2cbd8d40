// CompAdaGrad's composite mirror-descent step (Mehta et al. 2016, eq. (2) with ψ_t of eq. (19) or
// eq. (5)) from a given state, against dense solves written here. The learner's state — c = Π̃x,
// Π̃GΠ̃ᵀ, x⊥ = P⊥x (features and padding) and diag(G⊥) — is set through its StateFields to random
// values (x⊥ projected onto ker Π̃, Π̃GΠ̃ᵀ positive definite); after one step the new state must be
//   ℓ2 (λ₁ = 0): the solution of eq. (9), (A + ηλ₂I)x = Ax_t − ηg, with the n × n matrix
//       A = Π̃ᵀKΠ̃ + τP⊥D_tP⊥ assembled from Π̃ = RHΣ/√n (Sylvester's recursion), K from LAPACK dsyev,
//       solved by dposv;
//   ℓ1 (λ₁ > 0): the solution of the LASSO (16), min ½xᵀ(A + ηλ₂I)x + (ηg − Ax_t)ᵀx + ηλ₁‖x‖₁, by
//       cyclic coordinate descent until its optimality residual is below 1e-12;
// and Π̃GΠ̃ᵀ and diag(G⊥) their updates by Π̃g and (P⊥g)². Dual averaging the same with x_t = 0, ηḡ
// for ηg and tφ for φ (ḡ and the step count t − 1 set in the state too). Binary and softmax, dense and
// sparse examples, k from 0 to n, both placements of δ.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/state_fields.hpp"
#include "adasketch/learners/comp_adagrad.hpp"
#include "hadamard_reference.hpp"
#include "learners/comp_lasso.hpp"
#include "test_support.hpp"

using namespace adasketch;
using Placement = CompAdaGradOptions::Placement;

namespace {

std::size_t sz(index_t n) { return static_cast<std::size_t>(n); }

/// The learner's state as global vectors (on every rank).
struct State {
  std::vector<double> coef, block, perp, perp_sq;  ///< c (k), Π̃GΠ̃ᵀ (k × k), x⊥ (n), diag(G⊥) (n)
  std::vector<double> sum_proj, sum_perp;          ///< dual averaging: Π̃ḡ (k), P⊥ḡ (n)
  std::int64_t steps = 0;
};

// The state vector a field of the learner's StateFields belongs to (nullptr: the step count).
template <class S>
auto* target_of(S& s, const std::string& name) {
  return name == "comp.coef"                               ? &s.coef
         : name == "comp.block"                            ? &s.block
         : name == "comp.perp" || name == "comp.pad"       ? &s.perp
         : name == "comp.perp_sq" || name == "comp.pad_sq" ? &s.perp_sq
         : name == "comp.sum_proj"                         ? &s.sum_proj
         : name == "comp.sum_perp" || name == "comp.pad_sum" ? &s.sum_perp
                                                             : nullptr;
}

// Visits each local entry of the learner's distributed fields with its global coordinate in [0, n).
template <class F>
void for_each_field(Learner& learner, index_t N, F&& f) {
  StateFields fields;
  learner.state_fields(fields);
  for (const auto& field : fields.fields()) f(field, field.name.starts_with("comp.pad") ? N + field.first : field.first * field.width);
}

void write_state(Learner& learner, index_t N, const State& s) {
  for_each_field(learner, N, [&](const StateFields::Field& field, index_t base) {
    if (field.kind == StateFields::Kind::integer) {
      *field.integer = s.steps;
      return;
    }
    const std::vector<double>& source = *target_of(s, field.name);
    const index_t offset = field.kind == StateFields::Kind::block ? base : 0;
    for (std::size_t e = 0; e < field.values.size(); ++e) field.values[e] = source[sz(offset) + e];
  });
}

State read_state(Learner& learner, index_t N, index_t n, index_t k) {
  State s{std::vector<double>(sz(k)), std::vector<double>(sz(k * k)), std::vector<double>(sz(n), 0.0),
          std::vector<double>(sz(n), 0.0), std::vector<double>(sz(k)), std::vector<double>(sz(n), 0.0)};
  for_each_field(learner, N, [&](const StateFields::Field& field, index_t base) {
    if (field.kind == StateFields::Kind::integer) {
      s.steps = *field.integer;
      return;
    }
    std::vector<double>& target = *target_of(s, field.name);
    const index_t offset = field.kind == StateFields::Kind::block ? base : 0;
    for (std::size_t e = 0; e < field.values.size(); ++e) target[sz(offset) + e] = field.values[e];
  });
  for (auto* v : {&s.perp, &s.perp_sq, &s.sum_perp}) learner.comm().allreduce_sum(*v);
  return s;
}

// ---- dense linear algebra ---------------------------------------------------------------------

/// U f(λ) Uᵀ for a symmetric m × m matrix (dsyev).
template <class F>
std::vector<double> spectral(std::vector<double> a, index_t m, F&& f) {
  std::vector<double> lambda(sz(m)), out(sz(m * m), 0.0);
  if (m == 0) return out;
  EXPECT_EQ(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', static_cast<lapack_int>(m), a.data(), static_cast<lapack_int>(m),
                          lambda.data()), 0);
  for (index_t i = 0; i < m; ++i) {
    const double fi = f(std::max(lambda[sz(i)], 0.0));
    for (index_t r = 0; r < m; ++r)
      for (index_t c = 0; c < m; ++c) out[sz(r * m + c)] += a[sz(r * m + i)] * fi * a[sz(c * m + i)];
  }
  return out;
}

/// Bᵀ S B for B (m × n) and S (m × m).
std::vector<double> congruence(const std::vector<double>& b, const std::vector<double>& s, index_t m, index_t n) {
  std::vector<double> sb(sz(m * n), 0.0), out(sz(n * n), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t l = 0; l < m; ++l)
      for (index_t j = 0; j < n; ++j) sb[sz(i * n + j)] += s[sz(i * m + l)] * b[sz(l * n + j)];
  for (index_t i = 0; i < m; ++i)
    for (index_t r = 0; r < n; ++r)
      for (index_t c = 0; c < n; ++c) out[sz(r * n + c)] += b[sz(i * n + r)] * sb[sz(i * n + c)];
  return out;
}

std::vector<double> multiply(const std::vector<double>& a, const std::vector<double>& x, index_t n) {
  std::vector<double> y(sz(n), 0.0);
  for (index_t r = 0; r < n; ++r)
    for (index_t c = 0; c < n; ++c) y[sz(r)] += a[sz(r * n + c)] * x[sz(c)];
  return y;
}

/// min ½xᵀQx + uᵀx + μ‖x‖₁ by cyclic coordinate descent; stops when the optimality residual
/// max_j dist(0, ∂_j f) is below 1e-12·max(1, max|u|).
std::vector<double> coordinate_descent(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n) {
  std::vector<double> x(sz(n), 0.0);
  const double target = 1e-14 * std::max(1.0, std::abs(*std::max_element(u.begin(), u.end(), [](double a, double b) {
    return std::abs(a) < std::abs(b);
  })));
  for (int sweep = 0; sweep < 2000000; ++sweep) {
    for (index_t j = 0; j < n; ++j) {
      double r = u[sz(j)];
      for (index_t i = 0; i < n; ++i)
        if (i != j) r += q[sz(j * n + i)] * x[sz(i)];
      const double qjj = q[sz(j * n + j)];
      x[sz(j)] = r < -mu ? (-r - mu) / qjj : r > mu ? (-r + mu) / qjj : 0.0;
    }
    double residual = 0.0;
    const std::vector<double> grad = multiply(q, x, n);
    for (index_t j = 0; j < n; ++j) {
      const double r = grad[sz(j)] + u[sz(j)];
      residual = std::max(residual, x[sz(j)] != 0.0 ? std::abs(r + std::copysign(mu, x[sz(j)])) : std::max(std::abs(r) - mu, 0.0));
    }
    if (residual <= target) return x;
  }
  ADD_FAILURE() << "coordinate descent did not converge";
  return x;
}

/// max_j dist(0, ∂_j f(x)) for f(x) = ½xᵀQx + uᵀx + μ‖x‖₁, relative to max_j(|u_j| + Σ_i|Q_ji x_i| + μ).
double kkt_residual(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n,
                    const std::vector<double>& x) {
  double worst = 0.0, scale = 0.0;
  for (index_t j = 0; j < n; ++j) {
    double r = u[sz(j)], size = std::abs(u[sz(j)]) + mu;
    for (index_t i = 0; i < n; ++i) {
      r += q[sz(j * n + i)] * x[sz(i)];
      size += std::abs(q[sz(j * n + i)] * x[sz(i)]);
    }
    const double xj = x[sz(j)];
    worst = std::max(worst, xj != 0.0 ? std::abs(r + std::copysign(mu, xj)) : std::max(std::abs(r) - mu, 0.0));
    scale = std::max(scale, size);
  }
  return worst / scale;
}

/// min ½xᵀQx + uᵀx + μ‖x‖₁ for an ill-conditioned Q: rounds of `sweeps` cyclic coordinate-descent
/// sweeps find the support J and signs s, then x_J = −Q_JJ⁻¹(u_J + μs_J) by dposv, x = 0 off J (the
/// next round starting there, clipped to the orthant of s), until
/// the KKT conditions — sign(x_J) = s and |(Qx + u)_j| ≤ μ off J — certify the unique minimizer to
/// a relative residual of 1e-13 (*residual: kkt_residual of the result).
std::vector<double> certified_lasso(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n,
                                    int sweeps, double* residual) {
  std::vector<double> x(sz(n), 0.0), polished(sz(n));
  for (int round = 0; round < 20; ++round) {
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      for (index_t j = 0; j < n; ++j) {
        double r = u[sz(j)];
        for (index_t i = 0; i < n; ++i)
          if (i != j) r += q[sz(j * n + i)] * x[sz(i)];
        const double qjj = q[sz(j * n + j)];
        x[sz(j)] = r < -mu ? (-r - mu) / qjj : r > mu ? (-r + mu) / qjj : 0.0;
      }
    }
    std::vector<index_t> support;
    for (index_t j = 0; j < n; ++j)
      if (x[sz(j)] != 0.0) support.push_back(j);
    const auto m = static_cast<index_t>(support.size());
    std::vector<double> qjj(sz(m * m)), rhs(sz(m)), sign(sz(m));
    for (index_t a = 0; a < m; ++a) {
      sign[sz(a)] = x[sz(support[sz(a)])] > 0.0 ? 1.0 : -1.0;
      rhs[sz(a)] = -(u[sz(support[sz(a)])] + mu * sign[sz(a)]);
      for (index_t b = 0; b < m; ++b) qjj[sz(a * m + b)] = q[sz(support[sz(a)] * n + support[sz(b)])];
    }
    if (m > 0) {
      EXPECT_EQ(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(m), 1, qjj.data(),
                              static_cast<lapack_int>(m), rhs.data(), 1),
                0);
    }
    std::fill(polished.begin(), polished.end(), 0.0);
    bool signs_agree = true;
    for (index_t a = 0; a < m; ++a) {
      polished[sz(support[sz(a)])] = rhs[sz(a)];
      signs_agree = signs_agree && rhs[sz(a)] * sign[sz(a)] > 0.0;
    }
    *residual = kkt_residual(q, u, mu, n, polished);
    if (signs_agree && *residual <= 1e-13) break;
    for (index_t j = 0; j < n; ++j)  // the next round starts from the solve, clipped to its orthant
      x[sz(j)] = polished[sz(j)] * x[sz(j)] > 0.0 ? polished[sz(j)] : 0.0;
  }
  return polished;
}

// ---- the case -----------------------------------------------------------------------------------

struct StepCase {
  LossKind loss;
  int classes;
  index_t d, k;  ///< k < 0: k = n
  double tau, lambda1, lambda2;
  Placement placement;
  bool sparse;
  bool dual = false;  ///< dual averaging: x_{t+1} = argmin η⟨ḡ, x⟩ + ηtφ(x) + ½‖x‖²_A
  /// δ = 1e-3 and Π̃GΠ̃ᵀ with eigenvalues down to about 1e-8 (the curvature on Im P spans about δ to
  /// ‖K‖, on Im P⊥ δτ to τ max D), reference by certified_lasso
  bool ill = false;
};

std::string describe(const StepCase& c) {
  return std::string(c.loss == LossKind::softmax ? "softmax" : "logistic") + " d=" + std::to_string(c.d) +
         " k=" + std::to_string(c.k) + " τ=" + std::to_string(c.tau) + " λ₁=" + std::to_string(c.lambda1) +
         " λ₂=" + std::to_string(c.lambda2) + (c.placement == Placement::outside_root ? " eq19" : " eq5") +
         (c.sparse ? " sparse" : " dense") + (c.dual ? " DA" : " CMD") + (c.ill ? " ill-conditioned" : "");
}

/// Runs one step of the learner from a random state and returns (learner's new x, dense reference
/// x, and the learner's and the reference's Π̃GΠ̃ᵀ and diag(G⊥)); the fraction of zero entries of
/// the reference solution in `zeros`.
void check_step(const StepCase& c, unsigned seed, double* zeros = nullptr) {
  SCOPED_TRACE(describe(c) + " seed " + std::to_string(seed));
  const auto comm = test::world();
  const Loss loss(c.loss, c.classes);
  const index_t K = loss.outputs(), N = c.d * K, n = detail::next_power_of_two(N), k = c.k < 0 ? n : c.k;
  const double eta = 0.7, delta = c.ill ? 1e-3 : 0.4;
  CompAdaGradOptions o;
  o.k = k;
  o.eta = eta;
  o.delta = delta;
  o.tau = c.tau;
  o.lambda1 = c.lambda1;
  o.lambda2 = c.lambda2;
  o.placement = c.placement;
  o.form = c.dual ? CompAdaGradOptions::Form::dual_averaging : CompAdaGradOptions::Form::mirror_descent;
  o.seed = 30 + seed;
  CompAdaGrad learner(comm, c.d, loss, o);
  const detail::Srht srht(n, k, o.seed, {});
  const std::vector<double> pi = test::dense_srht(srht);  // Π̃, k × n

  // A random state, the same on every rank.
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  State s{std::vector<double>(sz(k)), std::vector<double>(sz(k * k), 0.0), std::vector<double>(sz(n)),
          std::vector<double>(sz(n)),   std::vector<double>(sz(k), 0.0),      std::vector<double>(sz(n), 0.0),
          c.dual ? 4 : 0};
  for (auto& v : s.coef) v = normal(gen);
  for (index_t col = 0; col < k + 3; ++col) {  // Π̃GΠ̃ᵀ = ZZᵀ, positive definite
    std::vector<double> z(sz(k));
    // ill: column scales from 1 to 1e-4, eigenvalues down to about 1e-8 (√ about δ)
    const double column_scale = c.ill ? std::pow(1e-4, static_cast<double>(col) / static_cast<double>(k + 2)) : 1.0;
    for (auto& v : z) v = column_scale * normal(gen);
    for (index_t a = 0; a < k; ++a)
      for (index_t b = 0; b < k; ++b) s.block[sz(a * k + b)] += z[sz(a)] * z[sz(b)];
  }
  std::vector<double> v(sz(n)), pv(sz(k), 0.0);
  for (auto& e : v) e = normal(gen);
  for (index_t a = 0; a < k; ++a)
    for (index_t j = 0; j < n; ++j) pv[sz(a)] += pi[sz(a * n + j)] * v[sz(j)];
  for (index_t j = 0; j < n; ++j) {  // x⊥ = P⊥v
    double p = 0.0;
    for (index_t a = 0; a < k; ++a) p += pi[sz(a * n + j)] * pv[sz(a)];
    s.perp[sz(j)] = v[sz(j)] - p;
    s.perp_sq[sz(j)] = std::exp(normal(gen));
  }
  // Dual averaging: ḡ on the features (zero on the padding), kept as Π̃ḡ and P⊥ḡ.
  std::vector<double> gbar(sz(n), 0.0);
  if (c.dual) {
    for (index_t j = 0; j < N; ++j) gbar[sz(j)] = normal(gen);
    for (index_t b = 0; b < k; ++b)
      for (index_t j = 0; j < n; ++j) s.sum_proj[sz(b)] += pi[sz(b * n + j)] * gbar[sz(j)];
    for (index_t j = 0; j < n; ++j) {
      s.sum_perp[sz(j)] = gbar[sz(j)];
      for (index_t b = 0; b < k; ++b) s.sum_perp[sz(j)] -= pi[sz(b * n + j)] * s.sum_proj[sz(b)];
    }
  }
  write_state(learner, N, s);
  std::vector<double> x_t = s.perp;  // x_t = Π̃ᵀc + x⊥
  for (index_t j = 0; j < n; ++j)
    for (index_t a = 0; a < k; ++a) x_t[sz(j)] += pi[sz(a * n + j)] * s.coef[sz(a)];

  // One example; its label makes the gradient nonzero.
  std::vector<double> a(sz(c.d));
  for (auto& e : a) e = normal(gen);
  if (c.sparse)
    for (index_t j = 0; j < c.d; j += 2) a[sz(j)] = 0.0;
  const double label = c.loss == LossKind::softmax ? 1.0 : -1.0;
  const BlockPartition& part = learner.partition();
  std::vector<index_t> idx;
  std::vector<double> val;
  for (index_t j = part.begin(comm.rank()); j < part.end(comm.rank()); ++j)
    if (!c.sparse || a[sz(j)] != 0.0) {
      if (c.sparse) idx.push_back(j - part.begin(comm.rank()));
      val.push_back(a[sz(j)]);
    }
  learner.step(c.sparse ? LocalRow::sparse(idx, val) : LocalRow::dense(val), label);
  const State got = read_state(learner, N, n, k);
  std::vector<double> x_got = got.perp;
  for (index_t j = 0; j < n; ++j)
    for (index_t b = 0; b < k; ++b) x_got[sz(j)] += pi[sz(b * n + j)] * got.coef[sz(b)];

  // The dense step: g, Π̃G_tΠ̃ᵀ, diag(G⊥_t), D, K, A.
  std::vector<double> scores(sz(K), 0.0), dscores(sz(K)), g(sz(n), 0.0), pg(sz(k), 0.0);
  for (index_t j = 0; j < c.d; ++j)
    for (index_t kk = 0; kk < K; ++kk) scores[sz(kk)] += a[sz(j)] * x_t[sz(j * K + kk)];
  loss.derivative(scores, label, dscores);
  for (index_t j = 0; j < c.d; ++j)
    for (index_t kk = 0; kk < K; ++kk) g[sz(j * K + kk)] = a[sz(j)] * dscores[sz(kk)];
  for (index_t b = 0; b < k; ++b)
    for (index_t j = 0; j < n; ++j) pg[sz(b)] += pi[sz(b * n + j)] * g[sz(j)];
  std::vector<double> block = s.block, perp_sq = s.perp_sq, perp_proj(sz(n * n), 0.0);
  for (index_t b = 0; b < k; ++b)
    for (index_t e = 0; e < k; ++e) block[sz(b * k + e)] += pg[sz(b)] * pg[sz(e)];
  for (index_t r = 0; r < n; ++r)  // P⊥ = I − Π̃ᵀΠ̃
    for (index_t col = 0; col < n; ++col) {
      double p = r == col ? 1.0 : 0.0;
      for (index_t b = 0; b < k; ++b) p -= pi[sz(b * n + r)] * pi[sz(b * n + col)];
      perp_proj[sz(r * n + col)] = p;
    }
  const std::vector<double> h = multiply(perp_proj, g, n);
  std::vector<double> D(sz(n * n), 0.0);
  for (index_t j = 0; j < n; ++j) {
    perp_sq[sz(j)] += h[sz(j)] * h[sz(j)];
    D[sz(j * n + j)] = c.tau * (std::sqrt(perp_sq[sz(j)]) + delta);
  }
  std::vector<double> A = congruence(perp_proj, D, n, n);  // P⊥DP⊥
  std::vector<double> range_part, kmat;  ///< kmat: K (outside_root)
  if (c.placement == Placement::outside_root) {  // Π̃ᵀ((Π̃GΠ̃ᵀ)^{1/2} + δI)Π̃
    kmat = spectral(block, k, [&](double l) { return std::sqrt(l) + delta; });
    range_part = congruence(pi, kmat, k, n);
  } else {  // Πᵀ(ΠGΠᵀ + δI)^{1/2}Π with Π = √(n/k)Π̃, ΠGΠᵀ = (n/k)Π̃GΠ̃ᵀ
    const double ratio = static_cast<double>(n) / static_cast<double>(std::max<index_t>(k, 1));
    std::vector<double> scaled_pi = pi, scaled_block = block;
    for (auto& e : scaled_pi) e *= std::sqrt(ratio);
    for (auto& e : scaled_block) e *= ratio;
    range_part = congruence(scaled_pi, spectral(scaled_block, k, [&](double l) { return std::sqrt(l + delta); }), k, n);
  }
  for (std::size_t e = 0; e < A.size(); ++e) A[e] += range_part[e];
  // Mirror descent: the linear term ηg measured from x_t; dual averaging: ηḡ from 0, and tφ.
  const double t = c.dual ? static_cast<double>(s.steps + 1) : 1.0;
  for (index_t j = 0; j < n; ++j) gbar[sz(j)] += g[sz(j)];
  const std::vector<double>& linear = c.dual ? gbar : g;
  const std::vector<double> x_0 = c.dual ? std::vector<double>(sz(n), 0.0) : x_t;
  std::vector<double> Q = A;
  for (index_t j = 0; j < n; ++j) Q[sz(j * n + j)] += eta * t * c.lambda2;
  std::vector<double> ax = multiply(A, x_0, n), want(sz(n));
  if (c.lambda1 == 0.0) {
    for (index_t j = 0; j < n; ++j) want[sz(j)] = ax[sz(j)] - eta * linear[sz(j)];
    std::vector<double> q = Q;
    ASSERT_EQ(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(n), 1, q.data(), static_cast<lapack_int>(n),
                            want.data(), 1), 0);
  } else {
    std::vector<double> u(sz(n));
    for (index_t j = 0; j < n; ++j) u[sz(j)] = eta * linear[sz(j)] - ax[sz(j)];
    if (c.ill) {
      double residual = 1.0;
      want = certified_lasso(Q, u, eta * t * c.lambda1, n, 5000, &residual);
      ASSERT_LE(residual, 1e-13) << "the reference is not the minimizer";
      // x_{t+1} must meet the solver's stated tolerance (comp_lasso.hpp): ‖ω‖₂ ≤ 1e-12‖s‖₂, ω the
      // minimum-norm subgradient (here from the dense Q), s_j = |E_jx_j| + |(Π̃ᵀ((K + M)a − b))_j| +
      // |D_j(Π̃ᵀa)_j| + |u_j| + μ with a = Π̃x, b = Π̃Dx, M = Π̃DΠ̃ᵀ, E = D + ηtλ₂: the sizes of the terms
      // it computes the gradient from.
      const double mu = eta * t * c.lambda1;
      const auto omega_norm = [&](const std::vector<double>& x) {
        const std::vector<double> r = multiply(Q, x, n);
        double sum = 0.0;
        for (index_t j = 0; j < n; ++j) {
          const double rj = r[sz(j)] + u[sz(j)], xj = x[sz(j)];
          const double w = xj != 0.0 ? std::abs(rj + std::copysign(mu, xj)) : std::max(std::abs(rj) - mu, 0.0);
          sum += w * w;
        }
        return std::sqrt(sum);
      };
      std::vector<double> pa(sz(k), 0.0), pb(sz(k), 0.0), s1(sz(k), 0.0), t1(sz(n), 0.0), back(sz(n), 0.0);
      for (index_t b = 0; b < k; ++b)
        for (index_t j = 0; j < n; ++j) {
          pa[sz(b)] += pi[sz(b * n + j)] * x_got[sz(j)];
          pb[sz(b)] += pi[sz(b * n + j)] * D[sz(j * n + j)] * x_got[sz(j)];
        }
      for (index_t b = 0; b < k; ++b) {
        s1[sz(b)] = -pb[sz(b)];
        for (index_t e = 0; e < k; ++e) {
          double m = kmat[sz(b * k + e)];
          for (index_t j = 0; j < n; ++j) m += pi[sz(b * n + j)] * D[sz(j * n + j)] * pi[sz(e * n + j)];
          s1[sz(b)] += m * pa[sz(e)];
        }
      }
      for (index_t j = 0; j < n; ++j)
        for (index_t b = 0; b < k; ++b) {
          t1[sz(j)] += pi[sz(b * n + j)] * s1[sz(b)];
          back[sz(j)] += pi[sz(b * n + j)] * pa[sz(b)];
        }
      double size2 = 0.0;
      for (index_t j = 0; j < n; ++j) {
        const double dj = D[sz(j * n + j)], ej = dj + eta * t * c.lambda2;
        const double size = std::abs(ej * x_got[sz(j)]) + std::abs(t1[sz(j)]) + std::abs(dj * back[sz(j)]) +
                            std::abs(u[sz(j)]) + mu;
        size2 += size * size;
      }
      const double omega_got = omega_norm(x_got), omega_want = omega_norm(want);
      EXPECT_LE(omega_got, 2e-12 * std::sqrt(size2)) << "x_{t+1} does not meet the solver's tolerance";
      // f is λ_min(Q)-strongly convex: ‖x − x*‖₂ ≤ ‖ω(x)‖₂/λ_min(Q), for x_{t+1} and for want.
      std::vector<double> copy = Q, eig(sz(n));
      ASSERT_EQ(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', static_cast<lapack_int>(n), copy.data(),
                              static_cast<lapack_int>(n), eig.data()),
                0);
      double distance = 0.0, norm = 0.0;
      for (index_t j = 0; j < n; ++j) {
        distance += (x_got[sz(j)] - want[sz(j)]) * (x_got[sz(j)] - want[sz(j)]);
        norm += want[sz(j)] * want[sz(j)];
      }
      EXPECT_LE(std::sqrt(distance), 1.01 * (omega_got + omega_want) / eig[0] + 1e-13 * std::sqrt(norm))
          << "‖x_{t+1} − x*‖";
    } else {
      want = coordinate_descent(Q, u, eta * t * c.lambda1, n);
    }
    if (zeros) *zeros = static_cast<double>(std::count(want.begin(), want.end(), 0.0)) / static_cast<double>(n);
  }
  if (!c.ill) {
    EXPECT_LE(test::relative_max_diff(x_got, want), c.lambda1 > 0.0 ? 1e-10 : 1e-12) << "x_{t+1}";
  }
  EXPECT_LE(test::relative_max_diff(got.block, block), 1e-13) << "Π̃G_tΠ̃ᵀ";
  EXPECT_LE(test::relative_max_diff(got.perp_sq, perp_sq), 1e-13) << "diag(G⊥_t)";
  EXPECT_EQ(got.steps, s.steps + 1);
  if (c.dual) {  // Π̃ḡ and P⊥ḡ with g added
    std::vector<double> proj(sz(k), 0.0);
    for (index_t b = 0; b < k; ++b)
      for (index_t j = 0; j < n; ++j) proj[sz(b)] += pi[sz(b * n + j)] * gbar[sz(j)];
    EXPECT_LE(test::relative_max_diff(got.sum_proj, proj), 1e-13) << "Π̃ḡ";
    EXPECT_LE(test::relative_max_diff(got.sum_perp, multiply(perp_proj, gbar, n)), 1e-13) << "P⊥ḡ";
  }
  if (c.lambda1 > 0.0)
    for (index_t j = 0; j < n; ++j)
      if (want[sz(j)] == 0.0) {
        EXPECT_LE(std::abs(x_got[sz(j)]), 1e-12) << "a zero of the LASSO solution, j = " << j;
      }
}

TEST(CompAdaGradStep, L2StepSolvesEquation9) {
  int cases = 0;
  for (const Placement placement : {Placement::outside_root, Placement::inside_root})
    for (const bool sparse : {false, true}) {
      for (const index_t k : {index_t{0}, index_t{1}, index_t{5}, index_t{-1}})
        for (const double lambda2 : {0.0, 0.3}) {
          check_step({LossKind::logistic, 2, 11, k, 1.0, 0.0, lambda2, placement, sparse}, 1);
          check_step({LossKind::logistic, 2, 11, k, 0.4, 0.0, lambda2, placement, sparse}, 2);
          cases += 2;
        }
      check_step({LossKind::logistic, 2, 16, 6, 1.3, 0.0, 0.1, placement, sparse}, 3);  // d = n, no padding
      check_step({LossKind::softmax, 3, 7, 9, 0.8, 0.0, 0.2, placement, sparse}, 4);     // dK = 21, n = 32
      check_step({LossKind::logistic, 2, 9, 4, 0.0, 0.0, 0.5, placement, sparse}, 5);    // τ = 0: λ₂ alone
      for (const index_t k : {index_t{0}, index_t{5}, index_t{-1}})                    // dual averaging
        check_step({LossKind::logistic, 2, 11, k, 0.7, 0.0, 0.3, placement, sparse, true}, 6);
      check_step({LossKind::softmax, 3, 5, 6, 1.0, 0.0, 0.0, placement, sparse, true}, 7);
      cases += 7;
    }
  EXPECT_EQ(cases, 2 * 2 * (16 + 7));
}

TEST(CompAdaGradStep, L1StepSolvesTheLasso) {
  double smallest = 1.0, largest = 0.0;
  for (const Placement placement : {Placement::outside_root, Placement::inside_root})
    for (const bool sparse : {false, true})
      for (unsigned seed = 1; seed <= 3; ++seed) {
        for (const index_t k : {index_t{0}, index_t{1}, index_t{6}, index_t{-1}})
          for (const double lambda2 : {0.0, 0.2}) {
            double zeros = 0.0;
            check_step({LossKind::logistic, 2, 13, k, 1.0, 0.8, lambda2, placement, sparse}, seed, &zeros);
            smallest = std::min(smallest, zeros);
            largest = std::max(largest, zeros);
          }
        check_step({LossKind::softmax, 3, 6, 7, 0.6, 0.5, 0.1, placement, sparse}, 10 + seed);
        for (const index_t k : {index_t{0}, index_t{6}, index_t{-1}})  // dual averaging: μ = ηtλ₁
          check_step({LossKind::logistic, 2, 13, k, 1.0, 0.2, 0.05, placement, sparse, true}, 20 + seed);
      }
  // The cases have solutions with zeros and nonzeros: the active set matters.
  EXPECT_GT(largest, 0.2);
  EXPECT_LT(smallest, 0.8);
}

// The ℓ1 step of the learner where the first solver gave up: δ = 1e-3, τ up to 100, an
// ill-conditioned Π̃GΠ̃ᵀ.
TEST(CompAdaGradStep, L1StepOnIllConditionedStates) {
  for (const index_t k : {index_t{4}, index_t{12}})
    for (const double tau : {10.0, 100.0})
      for (unsigned seed = 1; seed <= 2; ++seed) {
        check_step({LossKind::logistic, 2, 30, k, tau, 1e-3, 0.0, Placement::outside_root, false, false, true}, seed);
        check_step({LossKind::logistic, 2, 30, k, tau, 1e-3, 0.0, Placement::outside_root, false, true, true}, 50 + seed);
      }
}

// The solver alone (lib/src/learners/comp_lasso.hpp), from far-off starting points: its results,
// that its safeguard (feature-sign or proximal-gradient steps) is used and keeps the right answer, and
// its step limit.
TEST(CompAdaGradStep, LassoSolverFromFarStarts) {
  const auto comm = test::world();
  const index_t n = 32;
  const BlockPartition part(n, comm.size());
  const detail::CoordinateRange mine{part.begin(comm.rank()), part.size(comm.rank())};
  int rejected = 0, limits = 0;
  for (const index_t k : {index_t{0}, index_t{2}, index_t{7}, index_t{32}})
    for (unsigned seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE("k = " + std::to_string(k) + ", seed " + std::to_string(seed));
      const detail::Srht srht(n, k, seed, {&mine, 1});
      const std::vector<double> pi = test::dense_srht(srht);
      std::mt19937_64 gen(seed);
      std::normal_distribution<double> normal;
      std::vector<double> khat(sz(k * k), 0.0), d(sz(n)), u(sz(n)), start(sz(n));
      for (index_t col = 0; col < k + 2; ++col) {  // K̂ = ZZᵀ/k + 0.2I, spread eigenvalues
        std::vector<double> z(sz(k));
        for (auto& e : z) e = normal(gen) * std::exp(normal(gen));
        for (index_t a = 0; a < k; ++a)
          for (index_t b = 0; b < k; ++b) khat[sz(a * k + b)] += z[sz(a)] * z[sz(b)] / static_cast<double>(k);
      }
      for (index_t a = 0; a < k; ++a) khat[sz(a * k + a)] += 0.2;
      for (index_t j = 0; j < n; ++j) {
        d[sz(j)] = std::exp(normal(gen));
        u[sz(j)] = 3.0 * normal(gen);
        start[sz(j)] = 20.0 * normal(gen);
      }
      const double lambda = seed % 2 ? 0.0 : 0.3, mu = 1.5;
      // Dense Q = Π̃ᵀK̂Π̃ + P⊥DP⊥ + λI, and M = Π̃DΠ̃ᵀ for the solver's K̂ + M.
      std::vector<double> perp_proj(sz(n * n)), D(sz(n * n), 0.0), dk(sz(k * k), 0.0);
      for (index_t r = 0; r < n; ++r) {
        D[sz(r * n + r)] = d[sz(r)];
        for (index_t c = 0; c < n; ++c) {
          double p = r == c ? 1.0 : 0.0;
          for (index_t b = 0; b < k; ++b) p -= pi[sz(b * n + r)] * pi[sz(b * n + c)];
          perp_proj[sz(r * n + c)] = p;
        }
      }
      std::vector<double> q = congruence(perp_proj, D, n, n);
      const std::vector<double> range_part = congruence(pi, khat, k, n);
      for (index_t e = 0; e < n * n; ++e) q[sz(e)] += range_part[sz(e)];
      for (index_t j = 0; j < n; ++j) q[sz(j * n + j)] += lambda;
      const std::vector<double> want = coordinate_descent(q, u, mu, n);
      for (index_t a = 0; a < k; ++a)
        for (index_t b = 0; b < k; ++b) {
          double m = khat[sz(a * k + b)];
          for (index_t j = 0; j < n; ++j) m += pi[sz(a * n + j)] * d[sz(j)] * pi[sz(b * n + j)];
          dk[sz(a * k + b)] = m;
        }
      double norm = 0.0;  // ‖K̂‖₂ ≤ its largest absolute row sum
      for (index_t a = 0; a < k; ++a) {
        double row = 0.0;
        for (index_t b = 0; b < k; ++b) row += std::abs(khat[sz(a * k + b)]);
        norm = std::max(norm, row);
      }
      const auto local = [&](const std::vector<double>& v) {
        return std::vector<double>(v.begin() + mine.begin, v.begin() + mine.begin + mine.size);
      };
      const std::vector<double> d_local = local(d), u_local = local(u);
      const detail::CompositeLasso::Problem problem{dk, norm, d_local, lambda, u_local, mu};
      detail::CompositeLasso solver(comm, srht, 1e-12, 100);
      std::vector<double> x = local(start), a(sz(k));
      const auto done = solver.solve(problem, x, a);
      rejected += done.face + done.proximal;
      std::vector<double> got(sz(n), 0.0);
      std::copy(x.begin(), x.end(), got.begin() + mine.begin);
      comm.allreduce_sum(got);
      EXPECT_LE(test::relative_max_diff(got, want), 1e-10);
      std::vector<double> a_want(sz(k), 0.0);
      for (index_t b = 0; b < k; ++b)
        for (index_t j = 0; j < n; ++j) a_want[sz(b)] += pi[sz(b * n + j)] * want[sz(j)];
      EXPECT_LE(test::relative_max_diff(a, a_want), 1e-10) << "Π̃x";
      const int steps = done.newton + done.face + done.proximal;
      if (steps >= 2) {  // one step fewer than it needs: refused, on every rank
        detail::CompositeLasso short_solver(comm, srht, 1e-12, steps - 1);
        x = local(start);
        EXPECT_THROW(short_solver.solve(problem, x, a), NumericError);
        ++limits;
      }
    }
  EXPECT_GT(rejected, 0) << "the safeguard was never needed: make the starts harder";
  EXPECT_GT(limits, 0);
}

// The instances that made the first solver (a Newton method with a single proximal-gradient step as
// its safeguard) give up: CompAdaGrad's ℓ1 step at its first examples on dense, correlated
// kernel features (Gaussian kernel to random prototypes), with τ = 100 and δ = 1e-3, so that Q has
// curvature from about δ to τ·max D. The state is built as the learner builds it: G from T logistic
// gradients at x = 0, K̂ = (Π̃GΠ̃ᵀ)^{1/2} + δI (eq. (19)), D = τ(diag(P⊥GP⊥)^{1/2} + δ), u = ηg − Ax_t
// for x_t = 0 or a nonzero x_t. Against certified_lasso, solved to a KKT residual of 1e-12.
TEST(CompAdaGradStep, LassoSolverOnIllConditionedKernelFeatures) {
  const auto comm = test::world();
  const index_t n = 32, prototypes_dim = 4;
  const BlockPartition part(n, comm.size());
  const detail::CoordinateRange mine{part.begin(comm.rank()), part.size(comm.rank())};
  int rejected = 0, cases = 0;
  for (const index_t k : {index_t{4}, index_t{12}, index_t{25}})
    for (const double tau : {10.0, 100.0})
      for (unsigned seed = 1; seed <= 3; ++seed) {
        SCOPED_TRACE("k = " + std::to_string(k) + ", τ = " + std::to_string(tau) + ", seed " + std::to_string(seed));
        const double delta = 1e-3, eta = 1.0, mu = eta * 1e-3;
        const detail::Srht srht(n, k, 40 + seed, {&mine, 1});
        const std::vector<double> pi = test::dense_srht(srht);
        std::mt19937_64 gen(seed);
        std::normal_distribution<double> normal;
        std::uniform_real_distribution<double> uniform;
        std::vector<double> protos(sz(n * prototypes_dim));
        for (auto& e : protos) e = uniform(gen);
        const auto kernel_row = [&](std::vector<double>& row) {  // exp(−‖z − p_j‖²/(2·0.3²)), z near a prototype
          const auto p = static_cast<index_t>(uniform(gen) * static_cast<double>(n)) % n;
          std::vector<double> z(sz(prototypes_dim));
          for (index_t c = 0; c < prototypes_dim; ++c) z[sz(c)] = protos[sz(p * prototypes_dim + c)] + 0.1 * normal(gen);
          for (index_t j = 0; j < n; ++j) {
            double dist = 0.0;
            for (index_t c = 0; c < prototypes_dim; ++c) {
              const double e = z[sz(c)] - protos[sz(j * prototypes_dim + c)];
              dist += e * e;
            }
            row[sz(j)] = std::exp(-dist / 0.18);
          }
        };
        // G = Σ g gᵀ over T gradients g = ℓ'·a (ℓ' = ±½ at x = 0); the last one is the step's g.
        std::vector<double> G(sz(n * n), 0.0), g(sz(n));
        for (int t = 0; t < 3 + static_cast<int>(seed); ++t) {
          kernel_row(g);
          const double dloss = uniform(gen) < 0.5 ? -0.5 : 0.5;
          for (auto& e : g) e *= dloss;
          for (index_t r = 0; r < n; ++r)
            for (index_t c = 0; c < n; ++c) G[sz(r * n + c)] += g[sz(r)] * g[sz(c)];
        }
        std::vector<double> perp_proj(sz(n * n));
        for (index_t r = 0; r < n; ++r)
          for (index_t c = 0; c < n; ++c) {
            double p = r == c ? 1.0 : 0.0;
            for (index_t b = 0; b < k; ++b) p -= pi[sz(b * n + r)] * pi[sz(b * n + c)];
            perp_proj[sz(r * n + c)] = p;
          }
        const std::vector<double> g_perp = congruence(perp_proj, G, n, n);
        std::vector<double> block(sz(k * k), 0.0), d(sz(n)), D(sz(n * n), 0.0);
        for (index_t a = 0; a < k; ++a)  // Π̃GΠ̃ᵀ
          for (index_t b = 0; b < k; ++b)
            for (index_t r = 0; r < n; ++r)
              for (index_t c = 0; c < n; ++c)
                block[sz(a * k + b)] += pi[sz(a * n + r)] * G[sz(r * n + c)] * pi[sz(b * n + c)];
        const std::vector<double> khat = spectral(block, k, [&](double l) { return std::sqrt(l) + delta; });
        for (index_t j = 0; j < n; ++j) {
          d[sz(j)] = tau * (std::sqrt(std::max(g_perp[sz(j * n + j)], 0.0)) + delta);
          D[sz(j * n + j)] = d[sz(j)];
        }
        std::vector<double> q = congruence(perp_proj, D, n, n);
        const std::vector<double> range_part = congruence(pi, khat, k, n);
        for (index_t e = 0; e < n * n; ++e) q[sz(e)] += range_part[sz(e)];
        std::vector<double> x_t(sz(n), 0.0);
        if (seed == 3)
          for (auto& e : x_t) e = 0.05 * normal(gen);
        const std::vector<double> qx = multiply(q, x_t, n);
        std::vector<double> u(sz(n));
        for (index_t j = 0; j < n; ++j) u[sz(j)] = eta * g[sz(j)] - qx[sz(j)];
        double residual = 1.0;
        const std::vector<double> want = certified_lasso(q, u, mu, n, 5000, &residual);
        ASSERT_LE(residual, 1e-13) << "the reference is not the minimizer";
        // The solver's K̂ + M, ‖K̂‖ = max eigenvalue + δ.
        std::vector<double> dk(sz(k * k));
        for (index_t a = 0; a < k; ++a)
          for (index_t b = 0; b < k; ++b) {
            double m = khat[sz(a * k + b)];
            for (index_t j = 0; j < n; ++j) m += pi[sz(a * n + j)] * d[sz(j)] * pi[sz(b * n + j)];
            dk[sz(a * k + b)] = m;
          }
        std::vector<double> eig(sz(k)), copy = khat;
        ASSERT_EQ(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'L', static_cast<lapack_int>(k), copy.data(),
                                static_cast<lapack_int>(k), eig.data()),
                  0);
        const auto local = [&](const std::vector<double>& v) {
          return std::vector<double>(v.begin() + mine.begin, v.begin() + mine.begin + mine.size);
        };
        const std::vector<double> d_local = local(d), u_local = local(u);
        const detail::CompositeLasso::Problem problem{dk, eig.back(), d_local, 0.0, u_local, mu};
        detail::CompositeLasso solver(comm, srht, 1e-12, 100 + 4 * static_cast<int>(n));
        std::vector<double> x = local(x_t), a(sz(k));
        const auto done = solver.solve(problem, x, a);
        rejected += done.face + done.proximal;
        std::vector<double> got(sz(n), 0.0);
        std::copy(x.begin(), x.end(), got.begin() + mine.begin);
        comm.allreduce_sum(got);
        EXPECT_LE(test::relative_max_diff(got, want), 1e-9);
        ++cases;
      }
  EXPECT_EQ(cases, 18);
  EXPECT_GT(rejected, 0) << "no Newton point was rejected: the instances are not the hard ones";
}

}  // namespace
