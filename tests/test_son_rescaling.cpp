// SON's diagonal rescaling (SON §5.2, sketched_newton.hpp) against dense references written here,
// at any rank count (the same run on MPI_COMM_SELF must agree to round-off), dense and sparse examples:
// FD-SON and RFD-SON with ℓ > d against FULL-ON fed D_t^{-1/2}x_t, every variant (and m = 0, α = 0)
// against dense SON on its own sketch fed D_t^{-1/2}x_t; predict and the weights score original
// examples; the other sketch form agrees; a checkpoint resumes bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"
#include "checkpoint_support.hpp"
#include "son_test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

// ---- Diagonal rescaling (SON §5.2) -------------------------------------------------------------------

TEST(SonRescaling, FdFamilyWithEllAboveDimIsFullOnFedRescaledExamples) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 7, n = 120;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.45, 11, 2.0);
    for (const LossKind loss_kind : {LossKind::squared, LossKind::logistic}) {
      for (const char* name : {"fd-son", "fast-fd-son", "rfd-son", "fast-rfd-son"}) {
        SCOPED_TRACE(std::string(name) + " " + to_string(loss_kind) + (dense ? " dense" : " sparse"));
        LearnerSpec spec = son_spec(name, loss_kind, 9);  // ℓ > d: FD keeps Σĝĝᵀ exactly
        spec.diag_rescale = true;
        spec.rescale_d1 = loss_kind == LossKind::squared ? 0.1 : 0.7;
        spec.C = 0.3;
        auto learner = make_learner(comm, d, spec);
        EXPECT_TRUE(learner->spec().diag_rescale);
        // FULL-ON (SON eq. (1)–(2)) fed x̃ = D^{-1/2}x: A = αI + Σ(σ + η_s)g̃g̃ᵀ, g̃ = ℓ'x̃;
        // D = 0.1·I + Σ diag(ggᵀ), g = ℓ'x. The weights are D^{-1/2}u.
        expect_dense_son_dk(*learner, data.x, data.binary, dense, false, 1e-8);
        EXPECT_GT(dynamic_cast<const SketchedNewton&>(*learner).projections(), 0);
        auto serial = make_learner(self, d, spec);
        run_rows(*serial, data.x, data.binary, dense);
        EXPECT_LT(relative_max_diff(gather_weights(*learner), gather_weights(*serial)), 1e-10);
      }
    }
  }
}

TEST(SonRescaling, EveryVariantIsDenseSonFedRescaledExamples) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 10, n = 80;
  struct Case {
    const char* name;
    index_t ell;
    double alpha;
  };
  const Case cases[] = {{"fd-son", 3, 0.5},       {"fast-fd-son", 3, 0.5}, {"rp-son", 3, 0.5}, {"oja-son", 3, 0.5},
                        {"rfd-son", 3, 0.5},      {"fast-rfd-son", 3, 0.5}, {"fd-son", 0, 0.5}, {"fd-son", 4, 0.0},
                        {"rp-son", 4, 0.0}};
  for (const bool dense : {true, false}) {
    // Features of very different scales: what the rescaling is for.
    auto data = make_son_data(n, d, dense ? 1.0 : 0.4, 5, 0.5);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < d; ++j) data.x(i, j) *= std::pow(3.0, static_cast<double>(j % 4) - 1.0);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + ", ell = " + std::to_string(c.ell) + ", alpha = " + std::to_string(c.alpha) +
                   (dense ? ", dense" : ", sparse"));
      LearnerSpec spec = son_spec(c.name, LossKind::squared, c.ell);
      spec.alpha0 = c.alpha;
      spec.diag_rescale = true;
      spec.rescale_d1 = dense ? 0.1 : 2.5;
      auto learner = make_learner(comm, d, spec);
      expect_dense_son_on_own_sketch(*learner, data.x, data.binary, dense, 1e-7);
      // The weights and predict() score original examples: predict(x) = wᵀx.
      const auto w = gather_weights(*learner);
      for (index_t i = 0; i < 5; ++i) {
        const auto x = row_of(data.x, i);
        EXPECT_NEAR(predict_row(*learner, x, dense)[0], dot(w, x), 1e-10 * std::max(1.0, std::abs(dot(w, x))));
      }
      // Round-off: the pseudo-inverse (α = 0) amplifies it by the condition number of BBᵀ.
      const double roundoff = c.alpha == 0.0 ? 1e-7 : 1e-9;
      auto serial = make_learner(self, d, spec);
      run_rows(*serial, data.x, data.binary, dense);
      EXPECT_LT(relative_max_diff(w, gather_weights(*serial)), roundoff);
      // The other form of the sketch gives the same run to round-off.
      if (c.ell > 0) {
        LearnerSpec other = spec;
        other.form = dense ? FormChoice::sparse : FormChoice::dense;
        auto other_form = make_learner(comm, d, other);
        run_rows(*other_form, data.x, data.binary, dense);
        EXPECT_LT(relative_max_diff(w, gather_weights(*other_form)), roundoff);
      }
      // Without the rescaling the run differs.
      LearnerSpec plain = spec;
      plain.diag_rescale = false;
      auto unscaled = make_learner(comm, d, plain);
      run_rows(*unscaled, data.x, data.binary, dense);
      EXPECT_GT(relative_max_diff(w, gather_weights(*unscaled)), 1e-3);
    }
  }
}

TEST(SonRescaling, ResumesFromACheckpointBitForBit) {
  const auto comm = world();
  const std::string path = shared_checkpoint_dir() + "/rescaled.ckpt";
  const index_t d = 9, n = 40, split = 17;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.4, 19);
    for (const char* name : kSonNames) {
      SCOPED_TRACE(std::string(name) + (dense ? " dense" : " sparse"));
      LearnerSpec spec = son_spec(name, LossKind::squared, 3);
      spec.diag_rescale = true;
      DenseMatrix first{split, d, std::vector<double>(data.x.a.begin(), data.x.a.begin() + split * d)};
      DenseMatrix second{n - split, d, std::vector<double>(data.x.a.begin() + split * d, data.x.a.end())};
      const std::vector<double> y1(data.binary.begin(), data.binary.begin() + split),
          y2(data.binary.begin() + split, data.binary.end());
      auto a = make_learner(comm, d, spec);
      run_rows(*a, first, y1, dense);
      save_checkpoint(path, *a);
      const auto losses_a = run_rows(*a, second, y2, dense);
      auto b = make_learner(comm, d, spec);
      load_checkpoint(path, *b);
      const auto losses_b = run_rows(*b, second, y2, dense);
      EXPECT_TRUE(everywhere(comm, bitwise_equal(local_weights(*a), local_weights(*b))));
      EXPECT_TRUE(bitwise_equal(losses_a, losses_b));
      // D is state: a learner restored without it (a fresh one) continues differently.
      auto fresh = make_learner(comm, d, spec);
      run_rows(*fresh, second, y2, dense);
      EXPECT_FALSE(bitwise_equal(gather_weights(*fresh), gather_weights(*a)));
    }
  }
}
