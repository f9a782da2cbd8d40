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
#include "adasketch/learners/comp_adagrad/comp_adagrad.hpp"
#include "dense_lasso.hpp"
#include "hadamard_reference.hpp"
#include "learners/comp_adagrad/srht_lasso.hpp"
#include "test_support.hpp"

using namespace adasketch;
using Placement = CompAdaGradOptions::Placement;

namespace {

using namespace test::dense;

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
  for (const auto& field : fields.fields())
    if (!field.name.starts_with("learner.div.") && !field.name.starts_with("learner.scale."))  // (the base's: zero here)
      f(field, field.name.starts_with("comp.pad") ? N + field.first : field.first * field.width);
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
  o.ell = k;
  o.eta = eta;
  o.delta = delta;
  o.tau = c.tau;
  o.lambda1 = c.lambda1;
  o.lambda2 = c.lambda2;
  o.placement = c.placement;
  o.update = c.dual ? CompAdaGradOptions::Update::dual_averaging : CompAdaGradOptions::Update::mirror_descent;
  o.seed = 30 + seed;
  o.scale = ScaleRule::none;  // η, δ as the reference takes them
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
      // x_{t+1} must meet the solver's stated tolerance (srht_lasso.hpp): ‖ω‖₂ ≤ 1e-12‖s‖₂, ω the
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

}  // namespace
