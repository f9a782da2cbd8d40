// FULL-ON's SON options (full_newton.hpp) against independent computations, on the grids 1×P and P×1
// and on MPI_COMM_SELF, dense and sparse examples:
//   - diagonal rescaling (SON §5.2): dense FULL-ON fed D_t^{-1/2}x_t (son_test_support's dense SON with
//     FULL-ON's A), and FD-SON rescaled with ℓ ≥ r + 1 (the FD identity of test_full_matrix.cpp: FD
//     keeps every gradient when ℓ exceeds their rank r); predict and the weights score original
//     examples; a checkpoint resumes bit for bit, D included;
//   - softmax (K = 3, with and without rescaling): the dense dK algorithm (son_test_support: the
//     A-norm projection onto |W_kᵀx| ≤ C for every class by enumerating the QP's active sets, the
//     Newton step by dense solves with A = αI + Σ(σ + η_s)g_sg_sᵀ), and FD-SON softmax with ℓ ≥ r + 1,
//     r = d(K − 1) the rank of the gradients x ⊗ ∂ℓ/∂p (Σ_k ∂ℓ/∂p_k = 0; dK once D rescales each
//     class row); the mistakes (ties at the bound +C) the same at every rank count; a checkpoint
//     resumes bit for bit; α = 0 is refused with its reason;
//   - no allocation per example, rescaled and softmax.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/exact/full_newton.hpp"
#include "checkpoint_support.hpp"
#include "son_test_support.hpp"
#include "allocation_counter.hpp"  // g_allocations, g_counting: steps that must not allocate

using namespace adasketch;
using namespace adasketch::test;

namespace {

/// The process-grid rows to try at P ranks: 1×P and P×1 (both not square for P = 2, 3).
std::vector<int> grid_rows_cases(int P) { return P == 1 ? std::vector<int>{1} : std::vector<int>{1, P}; }

/// FULL-ON with the softmax loss, K = 3: α = 0.5, C = 0.6, σ = 0.1, η_t = 0.5/√t.
LearnerSpec softmax_spec(bool rescale, int grid_rows) {
  LearnerSpec s = son_spec("full-on", LossKind::softmax, 0);
  s.classes = 3;
  s.C = 0.6;
  s.diag_rescale = rescale;
  s.grid_rows = grid_rows;
  return s;
}

/// Features of very different scales (what the rescaling is for): column j times 3^{(j mod 4) − 1}.
SonData scaled_data(index_t n, index_t d, bool dense, unsigned seed) {
  auto data = make_son_data(n, d, dense ? 1.0 : 0.45, seed, 0.7);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < d; ++j) data.x(i, j) *= std::pow(3.0, static_cast<double>(j % 4) - 1.0);
  return data;
}

}  // namespace

// ---- Diagonal rescaling (SON §5.2) -------------------------------------------------------------------

TEST(FullOnOptions, RescaledIsDenseFullOnFedRescaledExamples) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 8, n = 100;
  for (const bool dense : {true, false}) {
    const auto data = scaled_data(n, d, dense, 3);
    for (const LossKind loss : {LossKind::squared, LossKind::logistic})
      for (const int rows : grid_rows_cases(comm.size())) {
        SCOPED_TRACE(to_string(loss) + (dense ? " dense" : " sparse") + ", grid rows " + std::to_string(rows));
        LearnerSpec spec = son_spec("full-on", loss, 0);
        spec.diag_rescale = true;
        spec.C = 0.3;
        spec.grid_rows = rows;
        auto learner = make_learner(comm, d, spec);
        EXPECT_TRUE(learner->spec().diag_rescale);
        expect_dense_son_dk(*learner, data.x, data.binary, dense, false, 1e-8);
        EXPECT_GT(dynamic_cast<const FullNewton&>(*learner).projections(), 0);
        // The weights and predict() score original examples: predict(x) = wᵀx.
        const auto w = gather_weights(*learner);
        for (index_t i = 0; i < 5; ++i) {
          const auto x = row_of(data.x, i);
          EXPECT_NEAR(predict_row(*learner, x, dense)[0], dot(w, x), 1e-10 * std::max(1.0, std::abs(dot(w, x))));
        }
        LearnerSpec one = spec;
        one.grid_rows = 0;
        auto serial = make_learner(self, d, one);
        run_rows(*serial, data.x, data.binary, dense);
        EXPECT_LT(relative_max_diff(w, gather_weights(*serial)), 1e-10);
        // Without the rescaling the run differs.
        spec.diag_rescale = false;
        auto unscaled = make_learner(comm, d, spec);
        run_rows(*unscaled, data.x, data.binary, dense);
        EXPECT_GT(relative_max_diff(w, gather_weights(*unscaled)), 1e-3);
      }
  }
}

// FD-SON rescaled sees the same x̃_t and keeps Σĝĝᵀ exactly when ℓ ≥ r + 1 (r = d): then its A_t is
// FULL-ON's and D_t, which depends only on the predictions, is the same. With ℓ = r the first shrink
// after r independent gradients drops mass and the two part.
TEST(FullOnOptions, RescaledEqualsFdSonWithEllAboveTheGradientRank) {
  const auto comm = world();
  const index_t d = 6, n = 60;
  for (const bool dense : {true, false}) {
    const auto data = scaled_data(n, d, dense, 7);
    LearnerSpec spec = son_spec("full-on", LossKind::squared, 0);
    spec.diag_rescale = true;
    spec.C = 0.5;
    auto exact = make_learner(comm, d, spec);
    const auto losses_exact = run_rows(*exact, data.x, data.binary, dense);
    const auto w_exact = gather_weights(*exact);
    for (const char* name : {"fd-son", "fast-fd-son"})
      for (const index_t ell : {d + 1, d}) {
        SCOPED_TRACE(std::string(name) + ", ell = " + std::to_string(ell) + (dense ? ", dense" : ", sparse"));
        LearnerSpec sketched = spec;
        sketched.algorithm = name;
        sketched.ell = ell;
        auto son = make_learner(comm, d, sketched);
        const auto losses = run_rows(*son, data.x, data.binary, dense);
        const double diff = relative_max_diff(gather_weights(*son), w_exact);
        if (ell == d + 1) {
          EXPECT_LT(diff, 1e-8);
          EXPECT_LT(relative_max_diff(losses, losses_exact), 1e-8);
        } else {
          EXPECT_GT(diff, 1e-6) << "with ℓ = r FD drops mass: the runs should part";
        }
      }
  }
}

TEST(FullOnOptions, RescaledResumesFromACheckpointBitForBit) {
  const auto comm = world();
  const std::string path = shared_checkpoint_dir() + "/full-on-rescaled.ckpt";
  const index_t d = 9, n = 40, split = 17;
  for (const bool dense : {true, false}) {
    const auto data = scaled_data(n, d, dense, 19);
    const DenseMatrix first{split, d, std::vector<double>(data.x.a.begin(), data.x.a.begin() + split * d)};
    const DenseMatrix second{n - split, d, std::vector<double>(data.x.a.begin() + split * d, data.x.a.end())};
    const std::vector<double> y1(data.binary.begin(), data.binary.begin() + split),
        y2(data.binary.begin() + split, data.binary.end());
    for (const int rows : grid_rows_cases(comm.size())) {
      SCOPED_TRACE(std::string(dense ? "dense" : "sparse") + ", grid rows " + std::to_string(rows));
      LearnerSpec spec = son_spec("full-on", LossKind::squared, 0);
      spec.diag_rescale = true;
      spec.grid_rows = rows;
      auto a = make_learner(comm, d, spec);
      run_rows(*a, first, y1, dense);
      save_checkpoint(path, *a);
      const auto losses_a = run_rows(*a, second, y2, dense);
      auto b = make_learner(comm, d, spec);
      const CheckpointHeader header = load_checkpoint(path, *b);
      EXPECT_TRUE(header.spec.diag_rescale);
      const auto losses_b = run_rows(*b, second, y2, dense);
      EXPECT_TRUE(everywhere(comm, bitwise_equal(local_weights(*a), local_weights(*b))));
      EXPECT_TRUE(bitwise_equal(losses_a, losses_b));
      // D is state: the learner restored from the same file but with D reset to 0.1·I continues differently.
      auto c = make_learner(comm, d, spec);
      load_checkpoint(path, *c);
      StateFields fields;
      c->state_fields(fields);
      for (const auto& f : fields.fields())
        if (f.name == "full.diag") std::fill(f.values.begin(), f.values.end(), 0.1);
      run_rows(*c, second, y2, dense);
      EXPECT_FALSE(bitwise_equal(gather_weights(*c), gather_weights(*a)));
    }
  }
}

// ---- Softmax ----------------------------------------------------------------------------------------------

TEST(FullOnOptions, SoftmaxIsDenseMulticlassFullOn) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 5, n = 70, K = 3;
  std::vector<int> active(K + 1, 0);
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.5, 13, 1.5);
    for (const bool rescale : {false, true})
      for (const int rows : grid_rows_cases(comm.size())) {
        SCOPED_TRACE(std::string(rescale ? "rescaled" : "plain") + (dense ? ", dense" : ", sparse") + ", grid rows " +
                     std::to_string(rows));
        const LearnerSpec spec = softmax_spec(rescale, rows);
        auto learner = make_learner(comm, d, spec);
        ASSERT_EQ(learner->outputs(), K);
        EXPECT_EQ(learner->spec().classes, K);
        const auto counts = expect_dense_son_dk(*learner, data.x, data.classes, dense, false, 1e-8);
        for (std::size_t i = 0; i < counts.size(); ++i) active[i] += counts[i];
        EXPECT_EQ(dynamic_cast<const FullNewton&>(*learner).projections(), counts[1] + counts[2] + counts[3]);
        // predict() scores original examples with the weights W: p_k = W_kᵀx.
        const auto w = gather_weights(*learner);
        for (index_t i = 0; i < 4; ++i) {
          const auto x = row_of(data.x, i);
          const auto scores = predict_row(*learner, x, dense);
          for (index_t k = 0; k < K; ++k) {
            double s = 0.0;
            for (index_t j = 0; j < d; ++j) s += w[j * K + k] * x[j];
            EXPECT_NEAR(scores[k], s, 1e-10 * std::max(1.0, std::abs(s)));
          }
        }
        auto serial = make_learner(self, d, softmax_spec(rescale, 0));
        run_rows(*serial, data.x, data.classes, dense);
        EXPECT_LT(relative_max_diff(w, gather_weights(*serial)), 1e-10);
      }
  }
  EXPECT_GT(active[1], 0);
  EXPECT_GT(active[2], 0);  // two classes' bounds active at once: the QP is not K separate clips
}

// With a small C several classes often sit at the bound +C after the projection: a tie that the
// predictions must keep exact (p_k = C on every active bound), or the first-maximum rule of the
// mistake count would follow round-off and differ between rank counts.
TEST(FullOnOptions, SoftmaxMistakesAgreeAcrossRankCounts) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 12, n = 150;
  const auto data = make_son_data(n, d, 1.0, 43, 1.0, 5);
  for (const bool rescale : {false, true}) {
    SCOPED_TRACE(rescale ? "rescaled" : "plain");
    LearnerSpec spec = softmax_spec(rescale, 0);
    spec.classes = 5;
    spec.C = 0.2;
    auto parallel = make_learner(comm, d, spec);
    auto serial = make_learner(self, d, spec);
    std::vector<int> mistakes_parallel, mistakes_serial;
    for (index_t i = 0; i < n; ++i) {
      const auto x = row_of(data.x, i);
      const auto e = slice_row(x, parallel->partition(), comm.rank(), true);
      mistakes_parallel.push_back(parallel->step(e.row(), data.classes[i]).mistake);
      const auto all = slice_row(x, serial->partition(), 0, true);
      mistakes_serial.push_back(serial->step(all.row(), data.classes[i]).mistake);
    }
    EXPECT_EQ(mistakes_parallel, mistakes_serial);
    EXPECT_LT(relative_max_diff(gather_weights(*parallel), gather_weights(*serial)), 1e-10);
  }
}

// The FD identity for softmax: g = x ⊗ ∂ℓ/∂p lies in x ⊗ 1^⊥, so the gradients span at most
// r = d(K − 1) dimensions, and FD-SON softmax with ℓ ≥ r + 1 keeps them all: its A is FULL-ON's. With
// diag_rescale the class rows are scaled by different D_{jK+k}, so only r = dK is guaranteed.
TEST(FullOnOptions, SoftmaxEqualsFdSonWithEllAboveTheGradientRank) {
  const auto comm = world();
  const index_t d = 5, n = 60, K = 3;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.6, 41, 1.5);
    for (const bool rescale : {false, true}) {
      const index_t r = rescale ? d * K : d * (K - 1);
      auto exact = make_learner(comm, d, softmax_spec(rescale, 0));
      const auto losses_exact = run_rows(*exact, data.x, data.classes, dense);
      const auto w_exact = gather_weights(*exact);
      for (const char* name : {"fd-son", "fast-fd-son"})
        for (const index_t ell : {r + 1, r}) {
          if (rescale && ell == r) continue;  // r = dK is a bound, not the rank: nothing to expect
          SCOPED_TRACE(std::string(name) + ", ell = " + std::to_string(ell) + (rescale ? ", rescaled" : "") +
                       (dense ? ", dense" : ", sparse"));
          LearnerSpec spec = softmax_spec(rescale, 0);
          spec.algorithm = name;
          spec.ell = ell;
          auto son = make_learner(comm, d, spec);
          const auto losses = run_rows(*son, data.x, data.classes, dense);
          const double diff = relative_max_diff(gather_weights(*son), w_exact);
          if (ell == r + 1) {
            EXPECT_LT(diff, 1e-8);
            EXPECT_LT(relative_max_diff(losses, losses_exact), 1e-8);
          } else {
            EXPECT_GT(diff, 1e-6) << "with ℓ = r FD drops mass: the runs should part";
          }
        }
    }
  }
}

TEST(FullOnOptions, SoftmaxResumesFromACheckpointBitForBit) {
  const auto comm = world();
  const std::string path = shared_checkpoint_dir() + "/full-on-softmax.ckpt";
  const index_t d = 7, n = 36, split = 15;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.45, 29, 1.5);
    const DenseMatrix first{split, d, std::vector<double>(data.x.a.begin(), data.x.a.begin() + split * d)};
    const DenseMatrix second{n - split, d, std::vector<double>(data.x.a.begin() + split * d, data.x.a.end())};
    const std::vector<double> y1(data.classes.begin(), data.classes.begin() + split),
        y2(data.classes.begin() + split, data.classes.end());
    for (const bool rescale : {false, true})
      for (const int rows : grid_rows_cases(comm.size())) {
        SCOPED_TRACE(std::string(rescale ? "rescaled" : "plain") + (dense ? ", dense" : ", sparse") + ", grid rows " +
                     std::to_string(rows));
        const LearnerSpec spec = softmax_spec(rescale, rows);
        auto a = make_learner(comm, d, spec);
        run_rows(*a, first, y1, dense);
        save_checkpoint(path, *a);
        const auto losses_a = run_rows(*a, second, y2, dense);
        auto b = make_learner(comm, d, spec);
        const CheckpointHeader header = load_checkpoint(path, *b);
        EXPECT_EQ(header.spec.classes, 3);
        EXPECT_EQ(header.spec.diag_rescale, rescale);
        const auto losses_b = run_rows(*b, second, y2, dense);
        EXPECT_TRUE(everywhere(comm, bitwise_equal(local_weights(*a), local_weights(*b))));
        EXPECT_TRUE(bitwise_equal(losses_a, losses_b));
        auto fresh = make_learner(comm, d, spec);  // without the state the same steps differ
        run_rows(*fresh, second, y2, dense);
        EXPECT_FALSE(bitwise_equal(gather_weights(*fresh), gather_weights(*a)));
      }
  }
}

TEST(FullOnOptions, AlphaZeroIsRefusedWithItsReason) {
  const auto comm = world();
  for (const bool softmax : {false, true}) {
    LearnerSpec spec = softmax ? softmax_spec(false, 0) : son_spec("full-on", LossKind::squared, 0);
    spec.alpha0 = 0.0;
    try {
      make_learner(comm, 6, spec);
      ADD_FAILURE() << "alpha = 0 accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("use fd-son with alpha = 0"), std::string::npos) << e.what();
    }
  }
}

TEST(FullOnOptions, StepsDoNotAllocate) {
  const auto comm = world();
  {  // the counter counts (an allocation that escapes cannot be elided)
    static std::vector<std::vector<double>> sink;
    sink.reserve(4);
    g_allocations = 0;
    g_counting = true;
    sink.emplace_back(100, 1.0);
    g_counting = false;
    ASSERT_GT(g_allocations.load(), 0);
  }
  const index_t d = 11, n = 40;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.4, 21);
    for (const bool softmax : {false, true})
      for (const bool rescale : {false, true}) {
        LearnerSpec spec = softmax ? softmax_spec(rescale, 0) : son_spec("full-on", LossKind::squared, 0);
        spec.diag_rescale = rescale;
        spec.C = 0.5;  // the projection active now and then
        auto learner = make_learner(comm, d, spec);
        std::vector<LocalExample> rows;
        for (index_t i = 0; i < n; ++i) rows.push_back(slice_row(row_of(data.x, i), learner->partition(), comm.rank(), dense));
        const auto& labels = softmax ? data.classes : data.binary;
        double scores[3];
        g_allocations = 0;
        g_counting = true;
        for (index_t i = 0; i < n; ++i) {
          learner->step(rows[static_cast<std::size_t>(i)].row(), labels[i]);
          learner->predict(rows[static_cast<std::size_t>(i)].row(), scores);
        }
        g_counting = false;
        EXPECT_EQ(g_allocations.load(), 0) << (softmax ? "softmax" : "squared") << (rescale ? " rescaled" : "")
                                           << (dense ? " dense" : " sparse");
        EXPECT_GT(dynamic_cast<const FullNewton&>(*learner).projections(), 0);
      }
  }
}
