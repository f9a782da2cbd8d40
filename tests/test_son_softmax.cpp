// Multiclass (softmax) SON (sketched_newton.hpp) and its projection (box_projection.hpp), against
// independent computations written here:
//   - the box-constrained QP's multiplier against brute-force enumeration of all 3^K active sets
//     (free, at +C, at −C) with LAPACK solves, and K = 1 against Lemma 1's τ_C(z0)/M;
//   - the softmax learner of every SON variant (and m = 0, and diagonal rescaling) against the dense
//     dK algorithm: K_t = {W : |W_kᵀx| ≤ C ∀k}, the A-norm projection by the enumerated QP, the
//     Newton step with A from FULL-ON (FD family, ℓ > dK) or from the learner's own sketch;
//   - the same run at one rank and in the other sketch form; predict = the weights' scores;
//     checkpoint resume bit for bit; no allocation per example.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/sketched_newton.hpp"
#include "checkpoint_support.hpp"
#include "learners/box_projection.hpp"
#include "son_test_support.hpp"

// ---- Allocation counter (global operator new replacement; counts only while enabled). -----------------
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
namespace {
std::atomic<long> g_allocations{0};
std::atomic<bool> g_counting{false};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace adasketch;
using namespace adasketch::test;

namespace {

// The KKT point of min ½(z − z0)ᵀM⁻¹(z − z0) over |z_k| ≤ C by enumeration: for each assignment of
// every k to free (λ_k = 0), upper (z_k = C) or lower (z_k = −C), solve M_AA λ_A = z0_A − b_A and
// keep the assignments whose λ signs and free scores satisfy the KKT conditions. Returns every KKT
// multiplier found (a strictly convex QP has exactly one).
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

// A random symmetric positive definite K×K matrix LLᵀ + 0.05 I, entries of L ~ N(0, 1).
std::vector<double> random_spd(std::size_t K, std::mt19937_64& gen) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> l(K * K), m(K * K, 0.0);
  for (double& v : l) v = normal(gen);
  for (std::size_t i = 0; i < K; ++i)
    for (std::size_t j = 0; j < K; ++j) {
      for (std::size_t q = 0; q < K; ++q) m[i * K + j] += l[i * K + q] * l[j * K + q];
      if (i == j) m[i * K + j] += 0.05;
    }
  return m;
}

}  // namespace

// ---- The projection's QP ---------------------------------------------------------------------------------

TEST(BoxProjection, EqualsBruteForceEnumerationOfActiveSets) {
  std::mt19937_64 gen(2024);
  std::normal_distribution<double> normal(0.0, 1.0);
  int constrained = 0, partial_steps = 0;
  for (std::size_t K = 1; K <= 6; ++K) {
    detail::BoxProjection box(static_cast<index_t>(K));
    for (int trial = 0; trial < 150; ++trial) {
      const auto M = random_spd(K, gen);
      std::vector<double> z0(K);
      for (double& v : z0) v = 3.0 * normal(gen);
      const double C = trial % 3 == 0 ? 0.3 : (trial % 3 == 1 ? 1.0 : 2.5);
      std::vector<double> lambda(K);
      box.solve(M, z0, C, lambda);
      const auto kkt = enumerate_box_kkt(M, z0, C);
      ASSERT_EQ(kkt.size(), 1u) << "K = " << K << ", trial " << trial << ": a strictly convex QP has one KKT point";
      EXPECT_LT(relative_max_diff(lambda, kkt[0]), 1e-10) << "K = " << K << ", trial " << trial;
      constrained += std::any_of(lambda.begin(), lambda.end(), [](double v) { return v != 0.0; });
      partial_steps += box.steps() > static_cast<index_t>(std::count_if(lambda.begin(), lambda.end(), [](double v) { return v != 0.0; }));
    }
  }
  EXPECT_GT(constrained, 500);
  EXPECT_GT(partial_steps, 10);  // the drop of an active bound (a partial step) was exercised
}

TEST(BoxProjection, OneScoreIsLemma1AndDegenerateInputsAreHandled) {
  detail::BoxProjection one(1);
  for (const double z0 : {-3.5, -1.0, 0.2, 0.7, 2.25}) {
    const double M[1] = {0.8}, z[1] = {z0};
    double lambda[1];
    one.solve(M, z, 0.7, lambda);
    EXPECT_EQ(lambda[0], tau_c(z0, 0.7) / 0.8);  // τ_C(z0)/M, bit for bit
  }
  detail::BoxProjection box(3);
  const std::vector<double> M = {2.0, 0.3, 0.1, 0.3, 1.0, 0.2, 0.1, 0.2, 1.5}, z0 = {5.0, -4.0, 0.1};
  std::vector<double> lambda(3);
  box.solve(M, z0, std::numeric_limits<double>::infinity(), lambda);  // C = ∞: no projection
  EXPECT_EQ(lambda, std::vector<double>(3, 0.0));
  box.solve(M, std::vector<double>{0.5, -0.5, 0.0}, 1.0, lambda);  // feasible already
  EXPECT_EQ(lambda, std::vector<double>(3, 0.0));
  const std::vector<double> indefinite = {1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  EXPECT_THROW(box.solve(indefinite, std::vector<double>{5.0, 5.0, 0.0}, 1.0, lambda), NumericError);
  EXPECT_THROW(detail::BoxProjection(0), InvalidArgument);
}
