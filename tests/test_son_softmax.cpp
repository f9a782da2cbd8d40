// Multiclass (softmax) SON (sketched_newton.hpp) and its projection (box_projection.hpp), against
// independent computations (the enumeration and the dense dK algorithm are in son_test_support.cpp):
//   - the box-constrained QP's multiplier against brute-force enumeration of all 3^K active sets
//     (free, at +C, at −C) with LAPACK solves, and K = 1 against Lemma 1's τ_C(z0)/M;
//   - the softmax learner of every SON variant (and m = 0, and diagonal rescaling) against the dense
//     dK algorithm: K_t = {W : |W_kᵀx| ≤ C ∀k}, the A-norm projection by the enumerated QP, the
//     Newton step with A from FULL-ON (FD family, ℓ > dK) or from the learner's own sketch;
//   - the same run at one rank and in the other sketch form; predict = the weights' scores;
//     checkpoint resume bit for bit; no allocation per example.
#include <gtest/gtest.h>

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
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"
#include "checkpoint_support.hpp"
#include "learners/box_projection.hpp"
#include "son_test_support.hpp"
#include "allocation_counter.hpp"  // g_allocations, g_counting: steps that must not allocate

using namespace adasketch;
using namespace adasketch::test;

namespace {

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

// ---- The softmax learner against the dense dK algorithm ---------------------------------------------------

namespace {

LearnerSpec softmax_spec(const std::string& algorithm, index_t ell, bool rescale) {
  LearnerSpec s;
  s.algorithm = algorithm;
  s.loss = LossKind::softmax;
  s.classes = 3;
  s.ell = ell;
  s.alpha0 = 0.5;
  s.C = 0.6;
  s.sigma = 0.1;
  s.eta = 0.5;
  s.eta_schedule = EtaSchedule::inv_sqrt_t;
  s.scale = ScaleRule::none;  // α as given: the dense references take it so
  s.seed = 7;
  s.diag_rescale = rescale;
  return s;
}

}  // namespace

TEST(SonSoftmax, FdFamilyWithEllAboveDkIsDenseMulticlassFullOn) {
  const auto comm = world();
  const index_t d = 5, n = 90;
  std::vector<int> active(4, 0);
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.5, 13, 1.5);
    for (const bool rescale : {false, true})
      for (const char* name : {"fd-son", "fast-fd-son", "rfd-son", "fast-rfd-son"}) {
        SCOPED_TRACE(std::string(name) + (rescale ? " rescaled" : "") + (dense ? " dense" : " sparse"));
        auto learner = make_learner(comm, d, softmax_spec(name, 16, rescale));  // ℓ > dK = 15
        EXPECT_EQ(learner->outputs(), 3);
        const auto counts = expect_dense_son_dk(*learner, data.x, data.classes, dense, false, 1e-8);
        for (std::size_t i = 0; i < counts.size(); ++i) active[i] += counts[i];
      }
  }
  EXPECT_GT(active[1], 0);
  EXPECT_GT(active[2], 0);  // two classes' bounds active at once: the QP is not K separate clips
}

TEST(SonSoftmax, EveryVariantIsDenseMulticlassSonOnItsOwnSketch) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 6, n = 60;
  struct Case {
    const char* name;
    index_t ell;
    bool rescale;
  };
  const Case cases[] = {{"fd-son", 4, false},  {"fast-fd-son", 4, false}, {"rp-son", 4, false},
                        {"oja-son", 4, false}, {"rfd-son", 4, false},     {"fast-rfd-son", 4, false},
                        {"fd-son", 0, false},  {"rp-son", 0, true},       {"oja-son", 4, true},
                        {"fast-rfd-son", 4, true}};
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.5, 17, 1.5);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + ", ell = " + std::to_string(c.ell) + (c.rescale ? ", rescaled" : "") +
                   (dense ? ", dense" : ", sparse"));
      const LearnerSpec spec = softmax_spec(c.name, c.ell, c.rescale);
      auto learner = make_learner(comm, d, spec);
      const auto counts = expect_dense_son_dk(*learner, data.x, data.classes, dense, true, 1e-8);
      EXPECT_GT(counts[1] + counts[2] + counts[3], 0);
      // predict() scores original examples with the weights W: p_k = W_kᵀx.
      const auto w = gather_weights(*learner);
      for (index_t i = 0; i < 4; ++i) {
        const auto x = row_of(data.x, i);
        const auto scores = predict_row(*learner, x, dense);
        for (index_t k = 0; k < 3; ++k) {
          double s = 0.0;
          for (index_t j = 0; j < d; ++j) s += w[j * 3 + k] * x[j];
          EXPECT_NEAR(scores[k], s, 1e-10 * std::max(1.0, std::abs(s)));
        }
      }
      auto serial = make_learner(self, d, spec);
      run_rows(*serial, data.x, data.classes, dense);
      EXPECT_LT(relative_max_diff(w, gather_weights(*serial)), 1e-9);
      if (c.ell > 0) {
        LearnerSpec other = spec;
        other.form = dense ? FormChoice::sparse : FormChoice::dense;
        auto other_form = make_learner(comm, d, other);
        run_rows(*other_form, data.x, data.classes, dense);
        EXPECT_LT(relative_max_diff(w, gather_weights(*other_form)), 1e-9);
      }
    }
  }
}

// With a small C several classes often sit at the bound +C after the projection: the predictions must
// keep that tie exact (p_k = C on every active bound), or the first-maximum rule of the mistake count
// follows round-off and differs between rank counts.
TEST(SonSoftmax, MistakesAgreeAcrossRankCounts) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 12, n = 150;
  const auto data = make_son_data(n, d, 1.0, 43, 1.0, 5);
  for (const char* name : {"fd-son", "rp-son", "oja-son", "fast-rfd-son"}) {
    SCOPED_TRACE(name);
    LearnerSpec spec = softmax_spec(name, 4, true);
    spec.classes = 5;
    spec.C = 0.2;
    auto parallel = make_learner(comm, d, spec);
    auto serial = make_learner(self, d, spec);
    std::vector<int> mistakes_parallel, mistakes_serial;
    for (index_t i = 0; i < n; ++i) {
      const auto x = row_of(data.x, i);
      mistakes_parallel.push_back(parallel->step(slice_row(x, parallel->partition(), comm.rank(), true).row(), data.classes[i]).mistake);
      mistakes_serial.push_back(serial->step(slice_row(x, serial->partition(), 0, true).row(), data.classes[i]).mistake);
    }
    EXPECT_EQ(mistakes_parallel, mistakes_serial);
    EXPECT_LT(relative_max_diff(gather_weights(*parallel), gather_weights(*serial)), 1e-9);
  }
}

TEST(SonSoftmax, ProjectedWeightsAreTheBoxConstrainedProjection) {
  const auto comm = world();
  const index_t d = 6, K = 3, D = d * K;
  const auto data = make_son_data(40, d, 1.0, 23, 1.5);
  std::mt19937_64 gen(5);  // the same stream on every rank
  std::normal_distribution<double> normal(0.0, 1.0);
  int active = 0;
  for (const bool rescale : {false, true})
    for (const char* name : {"fd-son", "rp-son", "oja-son"}) {
      SCOPED_TRACE(std::string(name) + (rescale ? " rescaled" : ""));
      LearnerSpec spec = softmax_spec(name, 4, rescale);
      spec.C = 0.4;
      auto learner = make_learner(comm, d, spec);
      run_rows(*learner, data.x, data.classes, true);
      const auto& son = dynamic_cast<const SketchedNewton&>(*learner);
      const auto a = son_matrix(*learner, son.alpha());
      const auto weights = gather_weights(*learner);
      for (int trial = 0; trial < 5; ++trial) {
        std::vector<double> x(static_cast<std::size_t>(d));
        for (double& v : x) v = 2.0 * normal(gen);
        std::vector<double> local(static_cast<std::size_t>(learner->local_dim() * K));
        son.projected_weights(slice_row(x, learner->partition(), comm.rank(), true).row(), local);
        std::vector<double> w(static_cast<std::size_t>(D), 0.0);
        std::copy(local.begin(), local.end(), w.begin() + learner->partition().begin(comm.rank()) * K);
        comm.allreduce_sum(w);
        // Feasible: |W_kᵀx| ≤ C for every class.
        bool projected = false;
        for (index_t k = 0; k < K; ++k) {
          double s = 0.0, s0 = 0.0;
          for (index_t j = 0; j < d; ++j) s += w[j * K + k] * x[j], s0 += weights[j * K + k] * x[j];
          EXPECT_LE(std::abs(s), spec.C * (1 + 1e-10));
          projected = projected || std::abs(s0) > spec.C;
        }
        active += projected;
        if (rescale) continue;  // feasibility only: the dense comparison is in the original coordinates
        std::vector<std::vector<double>> rows(static_cast<std::size_t>(K), std::vector<double>(static_cast<std::size_t>(D), 0.0)), solved;
        std::vector<double> z0(static_cast<std::size_t>(K)), m(static_cast<std::size_t>(K * K)), expected = weights;
        for (index_t k = 0; k < K; ++k) {
          for (index_t j = 0; j < d; ++j) rows[k][j * K + k] = x[j];
          z0[k] = dot(weights, rows[k]);
          solved.push_back(spd_solve(a, rows[k], D));
        }
        for (index_t k = 0; k < K; ++k)
          for (index_t l = 0; l < K; ++l) m[k * K + l] = dot(rows[k], solved[l]);
        const auto kkt = enumerate_box_kkt(m, z0, spec.C);
        ASSERT_EQ(kkt.size(), 1u);
        for (index_t k = 0; k < K; ++k)
          for (index_t j = 0; j < D; ++j) expected[j] -= kkt[0][k] * solved[k][j];
        EXPECT_LT(relative_max_diff(w, expected), 1e-9);
      }
    }
  EXPECT_GT(active, 10);
}

TEST(SonSoftmax, ResumesFromACheckpointBitForBit) {
  const auto comm = world();
  const std::string path = shared_checkpoint_dir() + "/softmax.ckpt";
  const index_t d = 7, n = 36, split = 15;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.45, 29, 1.5);
    const DenseMatrix first{split, d, std::vector<double>(data.x.a.begin(), data.x.a.begin() + split * d)};
    const DenseMatrix second{n - split, d, std::vector<double>(data.x.a.begin() + split * d, data.x.a.end())};
    const std::vector<double> y1(data.classes.begin(), data.classes.begin() + split),
        y2(data.classes.begin() + split, data.classes.end());
    for (const bool rescale : {false, true})
      for (const char* name : {"fd-son", "fast-fd-son", "rp-son", "oja-son", "rfd-son", "fast-rfd-son"})
        for (const index_t ell : {index_t{0}, index_t{3}}) {
          if (ell == 0 && std::string(name) != "fd-son") continue;  // m = 0 is the same learner for every name
          SCOPED_TRACE(std::string(name) + ", ell = " + std::to_string(ell) + (rescale ? ", rescaled" : "") +
                       (dense ? ", dense" : ", sparse"));
          const LearnerSpec spec = softmax_spec(name, ell, rescale);
          auto a = make_learner(comm, d, spec);
          run_rows(*a, first, y1, dense);
          if (ell > 0) {  // the checkpoint header's ell is ≥ 1 (checkpoint_format.cpp): m = 0 restores by its fields
            save_checkpoint(path, *a);
          }
          StateFields saved;
          a->state_fields(saved);
          std::vector<std::vector<double>> values;
          for (const auto& f : saved.fields()) values.emplace_back(f.values.begin(), f.values.end());
          std::vector<std::int64_t> integers;
          for (const auto& f : saved.fields()) integers.push_back(f.integer ? *f.integer : 0);
          const auto losses_a = run_rows(*a, second, y2, dense);
          auto b = make_learner(comm, d, spec);
          if (ell > 0) {
            const CheckpointHeader header = load_checkpoint(path, *b);
            EXPECT_EQ(header.spec.classes, 3);
          } else {  // the StateFields round trip that a checkpoint performs
            StateFields restored;
            b->state_fields(restored);
            ASSERT_EQ(restored.fields().size(), saved.fields().size());
            for (std::size_t i = 0; i < values.size(); ++i) {
              const auto& f = restored.fields()[i];
              std::copy(values[i].begin(), values[i].end(), f.values.begin());
              if (f.integer) *f.integer = integers[i];
            }
          }
          const auto losses_b = run_rows(*b, second, y2, dense);
          EXPECT_TRUE(everywhere(comm, bitwise_equal(local_weights(*a), local_weights(*b))));
          EXPECT_TRUE(bitwise_equal(losses_a, losses_b));
          auto fresh = make_learner(comm, d, spec);  // without the state the same steps differ
          run_rows(*fresh, second, y2, dense);
          EXPECT_FALSE(bitwise_equal(gather_weights(*fresh), gather_weights(*a)));
        }
  }
}

TEST(SonSoftmax, StepsDoNotAllocate) {
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
  const index_t d = 30, n = 120;
  struct Case {
    const char* name;
    bool softmax, rescale;
    index_t ell;
    double alpha;
    std::vector<double> oja_gamma;
  };
  const std::vector<Case> cases = {
      {"fd-son", true, false, 4, 0.5, {}},   {"fast-fd-son", true, true, 4, 0.5, {}}, {"rp-son", true, false, 4, 0.5, {}},
      {"oja-son", true, true, 4, 0.5, {}},   {"rfd-son", true, false, 4, 0.5, {}},   {"fast-rfd-son", true, true, 4, 0.5, {}},
      {"fd-son", true, true, 0, 0.5, {}},    {"fd-son", false, true, 4, 0.5, {}},    {"rp-son", false, false, 0, 0.5, {}},
      {"fd-son", false, false, 4, 0.0, {}},  {"rp-son", false, true, 4, 0.0, {}},    {"oja-son", false, false, 4, 0.5, {0.2, 1, 0.5, 0.7}},
  };
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.2, 31);
    std::vector<LocalExample> rows;
    const BlockPartition p(d, comm.size());
    for (index_t i = 0; i < n; ++i) rows.push_back(slice_row(row_of(data.x, i), p, comm.rank(), dense));
    for (const Case& c : cases) {
      LearnerSpec spec = softmax_spec(c.name, c.ell, c.rescale);
      if (!c.softmax) spec.loss = LossKind::logistic;
      spec.alpha0 = c.alpha;
      spec.oja_gamma = c.oja_gamma;
      auto learner = make_learner(comm, d, spec);
      const auto& labels = c.softmax ? data.classes : data.binary;
      std::vector<LocalRow> views;
      for (const auto& r : rows) views.push_back(r.row());
      double scores[3];
      learner->step(views[0], labels[0]);  // the first step chooses the form (FormChoice::automatic)
      g_allocations = 0;
      g_counting = true;
      for (index_t i = 1; i < n; ++i) {
        learner->step(views[static_cast<std::size_t>(i)], labels[i]);
        learner->predict(views[static_cast<std::size_t>(i)], scores);
      }
      g_counting = false;
      EXPECT_EQ(g_allocations.load(), 0) << c.name << (c.softmax ? " softmax" : " binary") << (c.rescale ? " rescaled" : "")
                                         << ", ell = " << c.ell << ", alpha = " << c.alpha << (dense ? " dense" : " sparse");
    }
  }
}
