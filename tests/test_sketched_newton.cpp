// Sketched Online Newton (sketched_newton.hpp) against independent dense computations written here:
//   - FULL-ON (SON eq. (1)–(2)): A_t = αI + Σ_s (σ + η_s) g_s g_sᵀ with Lemma 1's projection and dense
//     LAPACK solves. FD-SON, fast FD-SON, RFD-SON and fast RFD-SON with ℓ > d equal it (FD then keeps
//     BᵀB = Σ ĝĝᵀ exactly: the shrinking eigenvalue is 0).
//   - Dense SON (Alg. 1 line 5 and 9 with d×d matrices) on the learner's own sketch B_t, read after
//     every step: checks the lazy weights u = ū + Yᵀc of every sketch (fd, fast-fd, rp, oja, rfd,
//     fast-rfd) through shrinks, random projections and Oja re-orthonormalizations.
//   - Lemma 1: the projection is the dense closed form, satisfies |wᵀx| ≤ C and beats random feasible
//     perturbations in ‖·‖_A.
//   - The same run on MPI_COMM_SELF (rank-count independence), for every sketch.
//   - Zero gradients, option checks, make_learner names, and no allocation per example.
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
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"
#include "adasketch/sketch/sketch.hpp"
#include "test_support.hpp"
#include "allocation_counter.hpp"  // g_allocations, g_counting: steps that must not allocate

using namespace adasketch;
using namespace adasketch::test;

namespace {

using Schedule = EtaSchedule;

const SketchKind kAllSketches[] = {SketchKind::fd, SketchKind::fast_fd, SketchKind::rp,
                                   SketchKind::oja, SketchKind::rfd, SketchKind::fast_rfd};

bool regularized(SketchKind sketch) { return sketch == SketchKind::rfd || sketch == SketchKind::fast_rfd; }

struct Dataset {
  DenseMatrix x;
  std::vector<double> y;
};

// n examples of dimension d with about `density` nonzeros, labels ±1 from a random linear rule.
Dataset make_data(index_t n, index_t d, double density, unsigned seed, double scale = 1.0) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Dataset data{DenseMatrix{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)}, {}};
  std::vector<double> truth(static_cast<std::size_t>(d));
  for (double& v : truth) v = normal(gen);
  for (index_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (index_t j = 0; j < d; ++j) {
      if (unit(gen) >= density) continue;
      data.x(i, j) = scale * normal(gen);
      s += truth[j] * data.x(i, j);
    }
    data.y.push_back(s + 0.3 * normal(gen) >= 0.0 ? 1.0 : -1.0);
  }
  return data;
}

// The calling rank's part of row i, dense or sparse (local indices of the nonzeros).
struct LocalExample {
  std::vector<index_t> idx;
  std::vector<double> val;
  bool dense = true;
  LocalRow row() const { return dense ? LocalRow::dense(val) : LocalRow::sparse(idx, val); }
};

LocalExample slice(const DenseMatrix& m, index_t i, const BlockPartition& p, int rank, bool dense) {
  LocalExample e;
  e.dense = dense;
  for (index_t j = p.begin(rank); j < p.end(rank); ++j) {
    if (dense) {
      e.val.push_back(m(i, j));
    } else if (m(i, j) != 0.0) {
      e.idx.push_back(j - p.begin(rank));
      e.val.push_back(m(i, j));
    }
  }
  return e;
}

// The full weight vector on every rank (collective).
std::vector<double> gather_weights(const SketchedNewton& learner) {
  const auto& p = learner.partition();
  const int rank = learner.comm().rank();
  std::vector<double> local(static_cast<std::size_t>(learner.local_dim()));
  learner.weights(local);
  std::vector<double> w(static_cast<std::size_t>(p.dim()), 0.0);
  std::copy(local.begin(), local.end(), w.begin() + p.begin(rank));
  learner.comm().allreduce_sum(w);
  return w;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

std::vector<double> row_of(const DenseMatrix& m, index_t i) {
  return std::vector<double>(m.a.begin() + i * m.d, m.a.begin() + (i + 1) * m.d);
}

// Solves the symmetric positive definite system A z = b (d×d row-major), LAPACK dposv.
std::vector<double> spd_solve(std::vector<double> a, std::vector<double> b, index_t d) {
  const lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(d), 1, a.data(),
                                        static_cast<lapack_int>(d), b.data(), 1);
  EXPECT_EQ(info, 0) << "dposv";
  return b;
}

double tau_c(double z, double C) { return z > C ? z - C : (z < -C ? z + C : 0.0); }

double eta_at(const SketchedNewtonOptions& o, index_t t) {
  switch (o.eta_schedule) {
    case Schedule::constant: return o.eta;
    case Schedule::inv_t: return o.eta / static_cast<double>(t);
    case Schedule::inv_sqrt_t: return o.eta / std::sqrt(static_cast<double>(t));
  }
  return o.eta;
}

// Lemma 1: argmin_{|wᵀx| ≤ C} ‖w − u‖_A = u − τ_C(uᵀx)/(xᵀA⁻¹x) A⁻¹x.
std::vector<double> lemma1(const std::vector<double>& u, const std::vector<double>& a, const std::vector<double>& x,
                           double C, index_t d) {
  std::vector<double> w = u;
  const double tau = tau_c(dot(u, x), C);
  if (tau == 0.0) return w;
  const auto z = spd_solve(a, x, d);
  const double q = dot(x, z);
  for (index_t j = 0; j < d; ++j) w[j] -= tau / q * z[j];
  return w;
}

// FULL-ON (SON eq. (1)–(2)), dense.
class FullOn {
 public:
  FullOn(index_t d, const Loss& loss, const SketchedNewtonOptions& o)
      : d_(d), loss_(loss), o_(o), u_(static_cast<std::size_t>(d), 0.0), a_(static_cast<std::size_t>(d * d), 0.0) {
    for (index_t j = 0; j < d; ++j) a_[j * d + j] = o.alpha0;
  }
  double step(const std::vector<double>& x, double y) {
    ++t_;
    const auto w = lemma1(u_, a_, x, o_.C, d_);
    const double p[1] = {dot(w, x)};
    double dl = 0.0;
    loss_.derivative(p, y, std::span<double>(&dl, 1));
    const double s = o_.sigma + eta_at(o_, t_);
    std::vector<double> g(x.size());
    for (index_t j = 0; j < d_; ++j) g[j] = dl * x[j];
    for (index_t i = 0; i < d_; ++i)
      for (index_t j = 0; j < d_; ++j) a_[i * d_ + j] += s * g[i] * g[j];
    u_ = w;
    if (dl != 0.0) {
      const auto z = spd_solve(a_, g, d_);
      for (index_t j = 0; j < d_; ++j) u_[j] -= z[j];
    }
    return loss_.value(p, y);
  }
  const std::vector<double>& u() const { return u_; }

 private:
  index_t d_;
  Loss loss_;
  SketchedNewtonOptions o_;
  index_t t_ = 0;
  std::vector<double> u_, a_;
};

// A = αI + BᵀB from the learner's sketch (collective).
std::vector<double> dense_a(const SketchedNewton& learner) {
  const auto b = gather_sketch(*learner.sketch());
  const index_t d = b.d;
  std::vector<double> a(static_cast<std::size_t>(d * d), 0.0);
  for (index_t i = 0; i < d; ++i) a[i * d + i] = learner.alpha();
  for (index_t r = 0; r < b.n; ++r)
    for (index_t i = 0; i < d; ++i)
      for (index_t j = 0; j < d; ++j) a[i * d + j] += b(r, i) * b(r, j);
  return a;
}

SketchedNewtonOptions options_for(SketchKind sketch, index_t ell) {
  SketchedNewtonOptions o;
  o.sketch = sketch;
  o.ell = ell;
  o.scale = ScaleRule::none;  // α as the dense reference takes it
  o.alpha0 = 0.5;
  o.C = 1.0;
  o.sigma = 0.1;
  o.eta = 0.5;
  o.eta_schedule = Schedule::inv_sqrt_t;
  o.seed = 7;
  return o;
}

}  // namespace

// ---- FULL-ON equality with ℓ > d ---------------------------------------------------------------------

TEST(SketchedNewton, FdFamilyWithEllAboveDimEqualsFullOnlineNewton) {
  const auto comm = world();
  const index_t d = 7, n = 300;
  for (const LossKind loss_name : {LossKind::squared, LossKind::logistic}) {
    for (const bool dense : {true, false}) {
      const auto data = make_data(n, d, dense ? 1.0 : 0.45, 11);
      for (const SketchKind sketch : {SketchKind::fd, SketchKind::fast_fd, SketchKind::rfd, SketchKind::fast_rfd}) {
        auto o = options_for(sketch, 9);
        if (loss_name == LossKind::logistic) o.eta_schedule = Schedule::inv_t;
        const Loss loss(loss_name);
        SketchedNewton learner(comm, d, loss, o);
        FullOn reference(d, loss, o);
        for (index_t i = 0; i < n; ++i) {
          const auto e = slice(data.x, i, learner.partition(), comm.rank(), dense);
          const auto r = learner.step(e.row(), data.y[i]);
          const double ref_loss = reference.step(row_of(data.x, i), data.y[i]);
          ASSERT_NEAR(r.loss, ref_loss, 1e-8 * std::max(1.0, ref_loss)) << sketch << " " << loss_name << " t=" << i;
        }
        const auto w = gather_weights(learner);
        EXPECT_LT(relative_max_diff(w, reference.u()), 1e-8) << sketch << " " << loss_name << (dense ? " dense" : " sparse");
        EXPECT_GT(learner.projections(), 0) << sketch << " " << loss_name << ": the projection was never active";
        if (regularized(sketch)) {  // nothing shrunk: α stayed α₀ (up to round-off)
          EXPECT_NEAR(learner.alpha(), o.alpha0, 1e-8 * o.alpha0);
        }
      }
    }
  }
}

// ---- The lazy weights of every sketch against dense SON on the same sketch ---------------------------

TEST(SketchedNewton, LazyWeightsEqualDenseSonOnTheLearnersOwnSketch) {
  const auto comm = world();
  const index_t d = 12, n = 120;
  for (const LossKind loss_name : {LossKind::squared, LossKind::logistic}) {
    for (const bool dense : {true, false}) {
      const auto data = make_data(n, d, dense ? 1.0 : 0.5, 21);
      for (const SketchKind sketch : kAllSketches) {
        const auto o = options_for(sketch, 3);
        const Loss loss(loss_name);
        SketchedNewton learner(comm, d, loss, o);
        std::vector<double> u(static_cast<std::size_t>(d), 0.0);
        for (index_t i = 0; i < n; ++i) {
          const auto x = row_of(data.x, i);
          // Alg. 1 line 5 with A_{t−1} = α_{t−1}I + B_{t−1}ᵀB_{t−1}: Lemma 1 with dense solves.
          const auto w = lemma1(u, dense_a(learner), x, o.C, d);
          const double p[1] = {dot(w, x)};
          double dl = 0.0;
          loss.derivative(p, data.y[i], std::span<double>(&dl, 1));
          const auto e = slice(data.x, i, learner.partition(), comm.rank(), dense);
          const auto r = learner.step(e.row(), data.y[i]);
          ASSERT_NEAR(r.loss, loss.value(p, data.y[i]), 1e-8 * std::max(1.0, r.loss)) << sketch << " t=" << i;
          // Line 9 with A_t from the sketch after the insertion: u = w − A_t⁻¹g.
          std::vector<double> g(x.size());
          for (index_t j = 0; j < d; ++j) g[j] = dl * x[j];
          const auto z = spd_solve(dense_a(learner), g, d);
          for (index_t j = 0; j < d; ++j) u[j] = w[j] - z[j];
          const auto lazy = gather_weights(learner);
          ASSERT_LT(relative_max_diff(lazy, u), 1e-8) << sketch << " " << loss_name << (dense ? " dense" : " sparse")
                                                      << " t=" << i;
          u = lazy;  // compare step by step, not accumulated round-off
        }
        EXPECT_GT(learner.sketch()->inserted(), 0) << sketch;
      }
    }
  }
}

// ---- Lemma 1 -----------------------------------------------------------------------------------------

TEST(SketchedNewton, ProjectionIsLemma1AndMinimizesTheAnormOverTheSlab) {
  const auto comm = world();
  const index_t d = 10;
  const auto data = make_data(60, d, 1.0, 5);
  std::mt19937_64 gen(99);  // the same stream on every rank
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const SketchKind sketch : kAllSketches) {
    auto o = options_for(sketch, 4);
    o.C = 0.5;
    SketchedNewton learner(comm, d, Loss(LossKind::squared), o);
    for (index_t i = 0; i < data.x.n; ++i)
      learner.step(slice(data.x, i, learner.partition(), comm.rank(), true).row(), data.y[i]);
    const auto u = gather_weights(learner);
    const auto a = dense_a(learner);
    int active = 0;
    for (int trial = 0; trial < 6; ++trial) {
      DenseMatrix xm{1, d, std::vector<double>(static_cast<std::size_t>(d))};
      for (auto& v : xm.a) v = 3.0 * normal(gen);
      const auto x = xm.a;
      const auto e = slice(xm, 0, learner.partition(), comm.rank(), trial % 2 == 0);
      std::vector<double> local(static_cast<std::size_t>(learner.local_dim()));
      learner.projected_weights(e.row(), local);
      std::vector<double> w(static_cast<std::size_t>(d), 0.0);
      std::copy(local.begin(), local.end(), w.begin() + learner.partition().begin(comm.rank()));
      comm.allreduce_sum(w);
      const double ux = dot(u, x), wx = dot(w, x);
      EXPECT_LE(std::abs(wx), o.C * (1 + 1e-10)) << sketch;
      if (std::abs(ux) > o.C) {
        ++active;
        EXPECT_NEAR(std::abs(wx), o.C, 1e-10) << sketch;
      }
      EXPECT_LT(relative_max_diff(w, lemma1(u, a, x, o.C, d)), 1e-9) << sketch;
      // ‖w − u‖_A is minimal: random feasible points (perturb, then move along x back into the slab).
      auto anorm2 = [&](const std::vector<double>& v) {
        double s = 0.0;
        for (index_t i = 0; i < d; ++i)
          for (index_t j = 0; j < d; ++j) s += (v[i] - u[i]) * a[i * d + j] * (v[j] - u[j]);
        return s;
      };
      const double best = anorm2(w);
      for (int k = 0; k < 200; ++k) {
        auto v = w;
        const double size = std::pow(10.0, -3.0 + 3.0 * (k % 4) / 3.0);
        for (auto& vi : v) vi += size * normal(gen);
        const double vx = dot(v, x);
        const double excess = vx - std::clamp(vx, -o.C, o.C);
        for (index_t j = 0; j < d; ++j) v[j] -= excess / dot(x, x) * x[j];
        ASSERT_LE(std::abs(dot(v, x)), o.C * (1 + 1e-12));
        EXPECT_GE(anorm2(v), best * (1 - 1e-12)) << sketch;
      }
    }
    EXPECT_GT(active, 0) << sketch;
    // step()'s loss is the loss of the projected prediction clip_C(uᵀx).
    DenseMatrix xm{1, d, std::vector<double>(static_cast<std::size_t>(d))};
    for (auto& v : xm.a) v = 3.0 * normal(gen);
    const double clipped[1] = {std::clamp(dot(gather_weights(learner), xm.a), -o.C, o.C)};
    const auto r = learner.step(slice(xm, 0, learner.partition(), comm.rank(), true).row(), 1.0);
    EXPECT_NEAR(r.loss, Loss(LossKind::squared).value(clipped, 1.0), 1e-10) << sketch;
  }
}

// ---- Rank-count independence -------------------------------------------------------------------------

TEST(SketchedNewton, SameWeightsOnEveryRankCount) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 40, n = 250;
  for (const bool dense : {true, false}) {
    // ‖x‖ ≈ 1: with ‖x‖² ≫ α the off-sketch step 1/α overshoots, plain FD-SON (ℓ − 1 directions
    // kept) is then chaotic and amplifies round-off differences; a well-posed run is compared here.
    const double density = dense ? 1.0 : 0.2;
    const auto data = make_data(n, d, density, 3, 1.0 / std::sqrt(density * static_cast<double>(d)));
    for (const LossKind loss_name : {LossKind::squared, LossKind::logistic}) {
      for (const SketchKind sketch : kAllSketches) {
        auto o = options_for(sketch, 6);
        o.alpha0 = 1.0;
        SketchedNewton parallel(comm, d, Loss(loss_name), o);
        SketchedNewton serial(self, d, Loss(loss_name), o);
        double loss_parallel = 0.0, loss_serial = 0.0;
        for (index_t i = 0; i < n; ++i) {
          loss_parallel += parallel.step(slice(data.x, i, parallel.partition(), comm.rank(), dense).row(), data.y[i]).loss;
          loss_serial += serial.step(slice(data.x, i, serial.partition(), 0, dense).row(), data.y[i]).loss;
        }
        const auto wp = gather_weights(parallel);
        const auto ws = gather_weights(serial);
        EXPECT_LT(relative_max_diff(wp, ws), 1e-9) << sketch << " " << loss_name << (dense ? " dense" : " sparse");
        EXPECT_NEAR(loss_parallel, loss_serial, 1e-9 * loss_serial) << sketch;
        EXPECT_EQ(parallel.sketch()->inserted(), serial.sketch()->inserted()) << sketch;
      }
    }
  }
}

TEST(SketchedNewton, MoreRanksThanFeatures) {
  // d = 2 at 3 ranks leaves rank 2 without features (an empty block): same weights as one rank.
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 2;
  const auto data = make_data(60, d, 1.0, 29);
  for (const SketchKind sketch : kAllSketches) {
    auto o = options_for(sketch, 1);
    SketchedNewton parallel(comm, d, Loss(LossKind::logistic), o);
    SketchedNewton serial(self, d, Loss(LossKind::logistic), o);
    for (index_t k = 0; k < data.x.n; ++k) {
      const bool dense = k % 2 == 0;  // alternate dense and sparse rows
      parallel.step(slice(data.x, k, parallel.partition(), comm.rank(), dense).row(), data.y[k]);
      serial.step(slice(data.x, k, serial.partition(), 0, dense).row(), data.y[k]);
    }
    EXPECT_LT(relative_max_diff(gather_weights(parallel), gather_weights(serial)), 1e-12) << sketch;
  }
}

// ---- Zero gradients, tiny α₀, options ------------------------------------------------------------------

TEST(SketchedNewton, ZeroGradientLeavesSketchAndWeightsAlone) {
  const auto comm = world();
  const index_t d = 6;
  const auto data = make_data(40, d, 1.0, 8);
  for (const SketchKind sketch : kAllSketches) {
    auto o = options_for(sketch, 3);
    o.C = std::numeric_limits<double>::infinity();  // no projection: a step with ℓ' = 0 changes nothing
    SketchedNewton learner(comm, d, Loss(LossKind::hinge), o);
    for (index_t i = 0; i < data.x.n; ++i)
      learner.step(slice(data.x, i, learner.partition(), comm.rank(), true).row(), data.y[i]);
    // An example on the right side of the margin: ℓ' = 0.
    const auto u = gather_weights(learner);
    DenseMatrix xm{1, d, u};
    const double ux = dot(u, u);
    ASSERT_GT(ux, 0.0);
    for (auto& v : xm.a) v *= 2.0 / ux;  // uᵀx = 2
    const index_t inserted = learner.sketch()->inserted();
    const auto r = learner.step(slice(xm, 0, learner.partition(), comm.rank(), false).row(), 1.0);
    EXPECT_EQ(r.loss, 0.0);
    EXPECT_EQ(learner.sketch()->inserted(), inserted) << sketch;
    EXPECT_LT(relative_max_diff(gather_weights(learner), u), 1e-14) << sketch;
    // x = 0 (an empty sparse row): nothing to insert either.
    const LocalRow empty = LocalRow::sparse({}, {});
    learner.step(empty, -1.0);
    EXPECT_EQ(learner.sketch()->inserted(), inserted) << sketch;
    EXPECT_EQ(learner.projections(), 0) << sketch;
  }
}

TEST(SketchedNewton, TinyAlpha0RfdSonStaysFiniteAndRankIndependent) {
  // RFD-SON with α₀ = 1e-10 (the RFD paper's robustness claim): before the first shrink A = α₀I + BᵀB
  // is nearly singular; the push-through form of the Newton step keeps the weights accurate.
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 30, n = 300;
  const auto data = make_data(n, d, 0.3, 17);
  for (const SketchKind sketch : {SketchKind::rfd, SketchKind::fast_rfd, SketchKind::fd, SketchKind::fast_fd}) {
    auto o = options_for(sketch, 5);
    o.alpha0 = 1e-10;
    o.eta_schedule = Schedule::inv_t;
    SketchedNewton parallel(comm, d, Loss(LossKind::squared), o);
    SketchedNewton serial(self, d, Loss(LossKind::squared), o);
    for (index_t i = 0; i < n; ++i) {
      parallel.step(slice(data.x, i, parallel.partition(), comm.rank(), false).row(), data.y[i]);
      serial.step(slice(data.x, i, serial.partition(), 0, false).row(), data.y[i]);
    }
    const auto w = gather_weights(parallel);
    for (double v : w) ASSERT_TRUE(std::isfinite(v)) << sketch;
    if (regularized(sketch)) {
      EXPECT_GT(parallel.alpha(), 1e-3) << sketch;  // α grew at the shrinks
      EXPECT_LT(relative_max_diff(w, gather_weights(serial)), 1e-8) << sketch;
    }
  }
}

TEST(SketchedNewton, TinyAlpha0BeforeAnyShrinkMatchesFullOn) {
  // Before the first shrink FD keeps the ĝ exactly, so RFD-SON is FULL-ON with α₀ = 1e-6: the
  // ill-conditioned A (κ ≈ 1e7) is handled without the 1/α cancellation.
  const auto comm = world();
  const index_t d = 40, n = 12;
  const auto data = make_data(n, d, 0.3, 23);
  auto o = options_for(SketchKind::fast_rfd, 10);  // 20 buffer rows: no shrink in 12 steps
  o.alpha0 = 1e-6;
  SketchedNewton learner(comm, d, Loss(LossKind::squared), o);
  FullOn reference(d, Loss(LossKind::squared), o);
  for (index_t i = 0; i < n; ++i) {
    learner.step(slice(data.x, i, learner.partition(), comm.rank(), false).row(), data.y[i]);
    reference.step(row_of(data.x, i), data.y[i]);
  }
  EXPECT_LT(relative_max_diff(gather_weights(learner), reference.u()), 1e-6);
}

TEST(SketchedNewton, RejectsBadOptions) {
  const auto comm = world();
  auto bad = [&](auto change) {
    SketchedNewtonOptions o;
    change(o);
    return o;
  };
  const Loss squared(LossKind::squared);
  // Softmax takes α > 0 only (test_son_softmax.cpp has the softmax learner).
  EXPECT_THROW(SketchedNewton(comm, 5, Loss(LossKind::softmax, 3), bad([](auto& o) { o.sketch = SketchKind::fd; o.alpha0 = 0.0; })),
               InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.alpha0 = 0.0; })), InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.sketch = SketchKind::rfd; o.alpha0 = 0.0; })),
               InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.alpha0 = -1.0; })), InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.C = 0.0; })), InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.sigma = -0.1; })), InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.eta = std::nan(""); })), InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.ell = -1; })), InvalidArgument);
  EXPECT_THROW(SketchedNewton(comm, 5, squared, bad([](auto& o) { o.sketch = SketchKind::oja; o.ell = 6; })),
               InvalidArgument);
  EXPECT_THROW(from_string<EtaSchedule>("1/t"), InvalidArgument);
  SketchedNewton learner(comm, 5, Loss(LossKind::logistic), bad([](auto& o) { o.ell = 2; }));
  EXPECT_THROW(learner.step(LocalRow::sparse({}, {}), 0.5), InvalidArgument);  // binary label
}

TEST(SketchedNewton, MakeLearnerBuildsEverySonVariant) {
  const auto comm = world();
  for (const SketchKind sketch : kAllSketches) {
    LearnerSpec spec;
    spec.algorithm = to_string(sketch) + "-son";
    spec.loss = LossKind::squared;
    spec.ell = 3;
    spec.alpha0 = 2.0;
    spec.C = 0.7;
    spec.sigma = 0.2;
    spec.eta = 0.3;
    spec.eta_schedule = EtaSchedule::inv_sqrt_t;
    spec.seed = 4;
    const auto learner = make_learner(comm, 10, spec);
    ASSERT_NE(learner, nullptr);
    EXPECT_EQ(learner->name(), spec.algorithm);
    const auto* son = dynamic_cast<const SketchedNewton*>(learner.get());
    ASSERT_NE(son, nullptr);
    EXPECT_EQ(son->options().sketch, sketch);
    EXPECT_EQ(son->options().ell, 3);
    EXPECT_EQ(son->options().alpha0, 2.0);
    EXPECT_EQ(son->options().C, 0.7);
    EXPECT_EQ(son->options().sigma, 0.2);
    EXPECT_EQ(son->options().eta, 0.3);
    EXPECT_EQ(son->options().eta_schedule, Schedule::inv_sqrt_t);
    EXPECT_EQ(son->options().seed, 4u);
    EXPECT_DOUBLE_EQ(son->eta(4), 0.15);
  }
  LearnerSpec spec;
  spec.algorithm = "srht-son";
  EXPECT_THROW(make_learner(comm, 10, spec), InvalidArgument);
  spec.algorithm = "fd-son";
  spec.loss = LossKind::softmax;
  spec.classes = 3;
  EXPECT_EQ(make_learner(comm, 10, spec)->outputs(), 3);
  EXPECT_EQ(make_learner(comm, 10, spec)->spec().classes, 3);
}

// ---- No allocation per example -----------------------------------------------------------------------

TEST(SketchedNewton, StepsDoNotAllocate) {
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
  const index_t d = 50, n = 200;
  for (const bool dense : {true, false}) {
    const auto data = make_data(n, d, dense ? 1.0 : 0.2, 13);
    std::vector<LocalExample> rows;
    const BlockPartition p(d, comm.size());
    for (index_t i = 0; i < n; ++i) rows.push_back(slice(data.x, i, p, comm.rank(), dense));
    for (const SketchKind sketch : kAllSketches) {
      SketchedNewton learner(comm, d, Loss(LossKind::logistic), options_for(sketch, 5));
      std::vector<LocalRow> views;
      for (const auto& r : rows) views.push_back(r.row());
      double score[1];
      learner.step(views[0], data.y[0]);  // the first step chooses the form (FormChoice::automatic)
      g_allocations = 0;
      g_counting = true;
      for (index_t i = 1; i < n; ++i) {
        learner.step(views[static_cast<std::size_t>(i)], data.y[i]);
        learner.predict(views[static_cast<std::size_t>(i)], score);
      }
      g_counting = false;
      EXPECT_EQ(g_allocations.load(), 0) << sketch << (dense ? " dense" : " sparse");
    }
  }
}
