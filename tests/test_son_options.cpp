// SON's options (sketched_newton.hpp) against dense references written here, at any rank count
// (the same run on MPI_COMM_SELF must agree to round-off), dense and sparse examples:
//   - m = 0 (ell = 0): projected online gradient descent with step 1/α (SON Fig. 1's m = 0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/sketched_newton.hpp"
#include "son_test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

const char* const kSonNames[] = {"fd-son", "fast-fd-son", "rp-son", "oja-son", "rfd-son", "fast-rfd-son"};

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

// Steps `learner` through the examples, each rank its slice; returns the step losses.
std::vector<double> run(Learner& learner, const DenseMatrix& x, const std::vector<double>& labels, bool dense) {
  std::vector<double> losses;
  for (index_t i = 0; i < x.n; ++i) {
    const auto e = slice_row(row_of(x, i), learner.partition(), learner.comm().rank(), dense);
    losses.push_back(learner.step(e.row(), labels[i]).loss);
  }
  return losses;
}

}  // namespace

// ---- m = 0 ------------------------------------------------------------------------------------------

TEST(SonOptions, NoSketchIsProjectedOnlineGradientDescent) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 17, n = 150;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.3, 41, 0.8);
    for (const LossKind loss_kind : {LossKind::squared, LossKind::logistic}) {
      const Loss loss(loss_kind);
      for (const char* name : kSonNames) {
        SCOPED_TRACE(std::string(name) + " " + to_string(loss_kind) + (dense ? " dense" : " sparse"));
        const LearnerSpec spec = son_spec(name, loss_kind, 0);
        auto learner = make_learner(comm, d, spec);
        EXPECT_EQ(learner->sketch(), nullptr);
        EXPECT_EQ(learner->spec().ell, 0);
        // Dense reference: w = u − τ_C(uᵀx)x/‖x‖², u ← w − ℓ'(wᵀx)x/α.
        std::vector<double> u(static_cast<std::size_t>(d), 0.0);
        int projections = 0;
        for (index_t i = 0; i < n; ++i) {
          const auto x = row_of(data.x, i);
          const double xx = dot(x, x), tau = xx > 0.0 ? tau_c(dot(u, x), spec.C) : 0.0;
          projections += tau != 0.0;
          for (index_t j = 0; j < d; ++j) u[j] -= tau / xx * x[j];
          const double p[1] = {dot(u, x)};
          double dl = 0.0;
          loss.derivative(p, data.binary[i], std::span<double>(&dl, 1));
          for (index_t j = 0; j < d; ++j) u[j] -= dl / spec.alpha0 * x[j];
          const auto e = slice_row(x, learner->partition(), comm.rank(), dense);
          const double step_loss = learner->step(e.row(), data.binary[i]).loss;
          ASSERT_NEAR(step_loss, loss.value(p, data.binary[i]), 1e-12 * std::max(1.0, step_loss)) << "t = " << i;
          ASSERT_LT(relative_max_diff(gather_weights(*learner), u), 1e-12) << "t = " << i;
        }
        const auto& son = dynamic_cast<const SketchedNewton&>(*learner);
        EXPECT_EQ(son.projections(), projections);
        EXPECT_GT(projections, 0);
        EXPECT_EQ(son.alpha(), spec.alpha0);  // RFD-SON: α_t stays α₀
        // Same run on one rank.
        auto serial = make_learner(self, d, spec);
        run(*serial, data.x, data.binary, dense);
        EXPECT_LT(relative_max_diff(gather_weights(*learner), gather_weights(*serial)), 1e-12);
        // σ and η_t only scale the to-sketch vector: no effect without a sketch.
        LearnerSpec other = spec;
        other.sigma = 3.0;
        other.eta = 0.01;
        other.eta_schedule = EtaSchedule::constant;
        auto unscaled = make_learner(comm, d, other);
        run(*unscaled, data.x, data.binary, dense);
        EXPECT_EQ(gather_weights(*unscaled), gather_weights(*learner));
        // predict() scores with u.
        const auto x = row_of(data.x, 3);
        EXPECT_NEAR(predict_row(*learner, x, dense)[0], dot(gather_weights(*learner), x), 1e-12);
      }
    }
  }
}

TEST(SonOptions, NoSketchChecksItsOptions) {
  const auto comm = world();
  LearnerSpec spec = son_spec("fd-son", LossKind::squared, -1);
  EXPECT_THROW(make_learner(comm, 5, spec), InvalidArgument);
  spec.ell = 0;
  spec.alpha0 = 0.0;  // A = 0: the learner would never move
  EXPECT_THROW(make_learner(comm, 5, spec), InvalidArgument);
}
