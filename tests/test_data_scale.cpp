// The scale rule (LearnerSpec::scale; docs/design.md §2, "The data's scale"), for every learner:
//   - on the data multiplied by c = 2⁶ or 2⁻⁶, first-example gives the run on the data itself: the
//     same online losses and W/c, to the bound stated at the test (every learner but Oja-SON, whose
//     Oja step is not scale-free). With `none` the same pair differs (the control);
//   - first-example with η₀, δ₀, λ₁, λ₂, α₀ (D₁) is the run with η₀/r, δ₀·r, λ₁·r, λ₂·r², α₀·‖x‖² (with
//     the diagonal rescaling, D₁·r² and α₀) as given (none), r and ‖x‖² computed here from a first
//     example whose sums are exact: bit for bit;
//   - examples with a zero norm before the first nonzero one leave the scale unmeasured.
// At 1, 2 and 3 ranks, dense and sparse rows, binary and softmax.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "adasketch/learners/learner.hpp"
#include "checkpoint_support.hpp"
#include "son_test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

std::vector<std::string> algorithms() {
  std::vector<std::string> names{"ada-diag",  "ada-diag-da", "ada-fd", "ada-fd-da",   "fast-ada-fd",  "ada-gp",
                                 "ada-dp-da", "comp-adagrad", "comp-adagrad-da", "fd-son", "fast-fd-son", "rp-son",
                                 "oja-son",   "rfd-son",      "fast-rfd-son"};
  names.insert(names.end(), {"fd-son/rescaled", "rfd-son/rescaled"});  // SON §5.2's D^{-1/2}x
#ifdef ADASKETCH_TEST_SCALAPACK
  names.insert(names.end(), {"ada-full", "full-on", "full-on/rescaled"});
#endif
  return names;
}

bool rescaled(const std::string& name) { return name.ends_with("/rescaled"); }
std::string algorithm_of(const std::string& name) { return name.substr(0, name.find('/')); }
bool is_newton(const std::string& name) {
  const std::string a = algorithm_of(name);
  return a.ends_with("-son") || a == "full-on";
}

// Every hyperparameter the rule touches away from 1 (composite terms for the AdaGrad families).
LearnerSpec spec_for(const std::string& algorithm, bool softmax, ScaleRule rule) {
  LearnerSpec s;
  s.algorithm = algorithm_of(algorithm);
  s.diag_rescale = rescaled(algorithm);
  s.rescale_d1 = 0.5;
  s.loss = softmax ? LossKind::softmax : LossKind::logistic;
  s.classes = 3;
  s.ell = 4;
  s.eta = 0.3;
  s.delta = 0.7;
  s.alpha0 = 0.5;
  s.sigma = 0.1;
  s.seed = 5;
  if (!is_newton(algorithm) && algorithm != "ada-full") {
    s.lambda1 = 0.01;
    s.lambda2 = 0.02;
  }
  s.scale = rule;
  return s;
}

struct ScaleRun {
  std::vector<double> losses, weights;
  DataScale scale;
};

ScaleRun run(const Communicator& comm, const LearnerSpec& spec, const SonData& data, bool dense) {
  auto learner = make_learner(comm, data.x.d, spec);
  ScaleRun r;
  r.losses = run_rows(*learner, data.x, spec.loss == LossKind::softmax ? data.classes : data.binary, dense);
  r.weights = gather_weights(*learner);
  r.scale = learner->data_scale();
  return r;
}

}  // namespace

namespace {

double total(const std::vector<double>& losses) { return std::accumulate(losses.begin(), losses.end(), 0.0); }

// x with every value moved by one relative ulp, x·(1 ± 2u), independent signs (the same on every rank).
DenseMatrix moved_by_one_ulp(DenseMatrix x) {
  constexpr double u = 0x1p-53;
  std::mt19937_64 signs(77);
  for (double& v : x.a) v *= (signs() & 1) ? 1.0 + 2.0 * u : 1.0 - 2.0 * u;
  return x;
}

}  // namespace

// The bound. On c·x, c a power of two, every product, sum, quotient and square root of the run is the
// one on x times a power of two, exactly; what is not is a LAPACK routine that scales its matrix or
// takes a branch by absolute size (the eigensolvers of the FD shrinks and ADA-FD's factor), whose
// result then differs within its backward error, at most p(n)·u relative with p(n) ≈ n, the order
// (LAPACK Users' Guide, §4.7), here at most 2ℓK. The run amplifies such a change by its own condition
// number κ_T, measured: the run on x with every value moved by one ulp differs by Δ = κ_T·2u. So the
// two runs agree to 2·(2ℓK)·Δ (a factor 2 for the signs), on the weights at the end and on the
// cumulative loss. Oja-SON is left out: eq. (4)'s Γ_t both averages the eigenvalues (a scale-free
// weight) and steps the basis by Γ_t V ĝĝᵀ (which grows with c²), so its basis moves differently on
// c·x whatever α is (design.md §2, "The data's scale").
TEST(DataScale, RescaledDataGivesTheSameRun) {
  const auto comm = world();
  const index_t n = 60, d = 12;
  for (const bool dense : {true, false})
    for (const double c : {64.0, 1.0 / 64.0}) {
      const SonData data = make_son_data(n, d, dense ? 1.0 : 0.4, 23, 1.0);
      const SonData scaled = make_son_data(n, d, dense ? 1.0 : 0.4, 23, c);  // c·x exactly, the same labels
      ASSERT_EQ(data.binary, scaled.binary);
      ASSERT_EQ(data.classes, scaled.classes);
      SonData moved = data;
      moved.x = moved_by_one_ulp(data.x);
      for (const std::string& name : algorithms())
        for (const bool softmax : {false, true}) {
          if (name == "oja-son") continue;
          SCOPED_TRACE(name + (softmax ? " softmax" : " logistic") + (dense ? " dense" : " sparse") + " c = " +
                       std::to_string(c));
          const LearnerSpec spec = spec_for(name, softmax, ScaleRule::first_example);
          const ScaleRun a = run(comm, spec, data, dense);
          const ScaleRun b = run(comm, spec, scaled, dense);
          const ScaleRun p = run(comm, spec, moved, dense);
          const double factor = 2.0 * 2.0 * static_cast<double>(spec.ell) * (softmax ? 3.0 : 1.0);
          const double delta_w = relative_max_diff(a.weights, p.weights);
          const double delta_loss = std::max(std::abs(total(p.losses) - total(a.losses)) / total(a.losses), 0x1p-53);
          ASSERT_GT(delta_w, 0.0) << "the perturbation did not reach the weights: κ_T is not measured";
          std::vector<double> back = b.weights;
          for (double& w : back) w *= c;  // exact
          EXPECT_LE(relative_max_diff(a.weights, back), factor * delta_w) << "κ_T·u = " << delta_w / 2;
          EXPECT_LE(std::abs(total(b.losses) - total(a.losses)) / total(a.losses), factor * delta_loss);
          EXPECT_EQ(b.scale.sum_squares, c * c * a.scale.sum_squares);
          EXPECT_EQ(b.scale.nonzeros, a.scale.nonzeros);
          // The control: taken as given, the same step sizes make another run on the scaled data.
          const ScaleRun none = run(comm, spec_for(name, softmax, ScaleRule::none), scaled, dense);
          EXPECT_GT(std::abs(total(none.losses) - total(a.losses)) / total(a.losses), factor * delta_loss);
          EXPECT_EQ(none.scale.sum_squares, 0.0);
        }
    }
}

TEST(DataScale, RelativeIsTheAbsoluteSettingAtTheFirstExamplesScale) {
  const auto comm = world();
  const index_t n = 40, d = 12;
  for (const bool dense : {true, false}) {
    SonData data = make_son_data(n, d, dense ? 1.0 : 0.4, 31, 1.0);
    // A first example whose ‖x‖² and count are exact in any order of summation: 1 + ¼ + 4 over 3 values.
    for (index_t j = 0; j < d; ++j) data.x(0, j) = 0.0;
    data.x(0, 1) = 1.0;
    data.x(0, 6) = -0.5;
    data.x(0, 10) = 2.0;
    const double sum_squares = 5.25, nonzeros = 3.0, r = std::sqrt(sum_squares / nonzeros);
    for (const std::string& name : algorithms())
      for (const bool softmax : {false, true}) {
        SCOPED_TRACE(name + (softmax ? " softmax" : " logistic") + (dense ? " dense" : " sparse"));
        const LearnerSpec relative = spec_for(name, softmax, ScaleRule::first_example);
        LearnerSpec absolute = spec_for(name, softmax, ScaleRule::none);
        if (rescaled(name)) {
          absolute.rescale_d1 = relative.rescale_d1 * r * r;  // (the rescaled examples are scale-free: α as given)
        } else if (is_newton(name)) {
          absolute.alpha0 = relative.alpha0 * sum_squares;  // (SON's η and the rest are scale-free)
        } else {
          absolute.eta = relative.eta / r;
          absolute.delta = relative.delta * r;
          absolute.lambda1 = relative.lambda1 * r;
          absolute.lambda2 = relative.lambda2 * r * r;
        }
        const ScaleRun a = run(comm, relative, data, dense);
        const ScaleRun b = run(comm, absolute, data, dense);
        EXPECT_EQ(a.scale.sum_squares, sum_squares);
        EXPECT_EQ(a.scale.nonzeros, nonzeros);
        EXPECT_TRUE(bitwise_equal(a.losses, b.losses));
        EXPECT_TRUE(bitwise_equal(a.weights, b.weights));
        // The spec reports the values as given.
        const auto learner = make_learner(comm, d, relative);
        const LearnerSpec back = learner->spec();
        EXPECT_EQ(back.scale, ScaleRule::first_example);
        if (is_newton(name)) {
          EXPECT_EQ(back.alpha0, relative.alpha0);
        } else {
          EXPECT_EQ(back.eta, relative.eta);
          EXPECT_EQ(back.delta, relative.delta);
        }
      }
  }
}

TEST(DataScale, ZeroExamplesBeforeTheFirstNonzeroOneLeaveItUnmeasured) {
  const auto comm = world();
  const index_t n = 10, d = 7;
  SonData data = make_son_data(n, d, 1.0, 3, 1.0);
  for (index_t i = 0; i < 2; ++i)
    for (index_t j = 0; j < d; ++j) data.x(i, j) = 0.0;
  for (index_t j = 0; j < d; ++j) data.x(2, j) = j == 2 ? 4.0 : j == 5 ? -1.0 : 0.0;  // ‖x‖² 17, two values
  for (const std::string& name : algorithms()) {
    SCOPED_TRACE(name);
    const LearnerSpec spec = spec_for(name, false, ScaleRule::first_example);
    auto learner = make_learner(comm, d, spec);
    SonData head = data;
    head.x.n = 2;
    head.x.a.resize(static_cast<std::size_t>(2 * d));
    (void)run_rows(*learner, head.x, data.binary, true);
    EXPECT_EQ(learner->data_scale().sum_squares, 0.0);
    const ScaleRun r = run(comm, spec, data, true);
    EXPECT_EQ(r.scale.sum_squares, 17.0);
    EXPECT_EQ(r.scale.nonzeros, 2.0);
    for (const double w : r.weights) EXPECT_TRUE(std::isfinite(w));
  }
}
