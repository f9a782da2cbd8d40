// SON's options (sketched_newton.hpp) against dense references written here, at any rank count
// (the same run on MPI_COMM_SELF must agree to round-off), dense and sparse examples:
//   - m = 0 (ell = 0): projected online gradient descent with step 1/α (SON Fig. 1's m = 0).
//   - Oja's per-row step sizes Γ_t = diag(γ)/t: the sketch (dense and sparse forms) against eq. (4)
//     with Householder QR from the same V_0, and Oja-SON against dense SON on its own sketch.
//   - α = 0: FD-SON on gradients of rank < ℓ against App. D's algorithm (A_t = Σ(σ + η_s)g_sg_sᵀ, LAPACK
//     pseudo-inverse, Lemma 2), and FD-SON, fast FD-SON and RP-SON against Lemma 2 and A⁺ on their
//     own sketches.
// Diagonal rescaling: test_son_rescaling.cpp; softmax: test_son_softmax.cpp.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/error.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"
#include "adasketch/sketch/oja_sketch.hpp"
#include "son_test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

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
        run_rows(*serial, data.x, data.binary, dense);
        EXPECT_LT(relative_max_diff(gather_weights(*learner), gather_weights(*serial)), 1e-12);
        // σ and η_t only scale the to-sketch vector: no effect without a sketch.
        LearnerSpec other = spec;
        other.sigma = 3.0;
        other.eta = 0.01;
        other.eta_schedule = EtaSchedule::constant;
        auto unscaled = make_learner(comm, d, other);
        run_rows(*unscaled, data.x, data.binary, dense);
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

// ---- Oja's Γ_t = diag(γ_1, …, γ_m)/t -------------------------------------------------------------------

TEST(SonOptions, OjaPerRowStepSizesFollowEquation4) {
  const auto comm = world();
  const index_t ell = 4, d = 11;
  const std::vector<double> gamma = {1.0, 0.5, 0.25, 0.8};
  for (const SketchForm form : {SketchForm::dense, SketchForm::sparse}) {
    SCOPED_TRACE(to_string(form));
    auto a = random_low_rank(60, d, 3, 0.2, 12);
    for (index_t i = 0; i < a.n; ++i) a(i, (5 * i) % d) = 0.0;  // some zeros for the sparse rows
    OjaSketchOptions o;
    o.ell = ell;
    o.gamma = gamma;
    o.form = form;
    OjaSketch sketch(comm, d, o);
    RowSlicer slicer(sketch.partition(), comm.rank());
    for (index_t i = 0; i < a.n; ++i) {
      const auto row = row_of(a, i);
      std::vector<index_t> idx;
      std::vector<double> val;
      for (index_t j = 0; j < d; ++j)
        if (row[j] != 0.0) idx.push_back(j), val.push_back(row[j]);
      sketch.insert(form == SketchForm::dense ? slicer.dense(row) : slicer.sparse(idx, val));
    }
    const auto ref = reference_oja(a, ell, gamma, OjaSketch::kStartResidual);
    const auto b = gather_sketch(sketch);
    EXPECT_LT(relative_max_diff(gram_of_columns(b), gram_of_columns(ref.s)), 1e-9);
    for (index_t i = 0; i < ell; ++i) EXPECT_NEAR(sketch.eigenvalues()[i], ref.lambda[i], 1e-9 * (1 + ref.lambda[i]));
    // Each row's rate matters: Γ_t = I/t gives other eigenvalues.
    const auto identity = reference_oja(a, ell, std::vector<double>(ell, 1.0), OjaSketch::kStartResidual);
    EXPECT_GT(relative_max_diff(identity.lambda, ref.lambda), 1e-3);
  }
}

TEST(SonOptions, OjaSonWithPerRowStepSizesIsDenseSonOnItsSketch) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 12, n = 100;
  for (const bool dense : {true, false}) {
    const auto data = make_son_data(n, d, dense ? 1.0 : 0.5, 21);
    for (const LossKind loss_kind : {LossKind::squared, LossKind::logistic}) {
      SCOPED_TRACE(to_string(loss_kind) + (dense ? " dense" : " sparse"));
      LearnerSpec spec = son_spec("oja-son", loss_kind, 3);
      spec.oja_gamma = {0.3, 1.0, 0.6};
      auto learner = make_learner(comm, d, spec);
      EXPECT_EQ(learner->spec().oja_gamma, spec.oja_gamma);
      expect_dense_son_on_own_sketch(*learner, data.x, data.binary, dense, 1e-8);
      auto serial = make_learner(self, d, spec);
      run_rows(*serial, data.x, data.binary, dense);
      EXPECT_LT(relative_max_diff(gather_weights(*learner), gather_weights(*serial)), 1e-10);
      // One γ for every row is the same as ell copies of it, and γ = 1 the same as none, bit for bit.
      LearnerSpec one = spec, copies = spec, unit = spec, none = spec;
      one.oja_gamma = {0.5};
      copies.oja_gamma = {0.5, 0.5, 0.5};
      unit.oja_gamma = {1.0};
      none.oja_gamma = {};
      std::vector<std::vector<double>> w;
      for (const LearnerSpec* s : {&one, &copies, &unit, &none}) {
        auto l = make_learner(comm, d, *s);
        run_rows(*l, data.x, data.binary, dense);
        w.push_back(gather_weights(*l));
      }
      EXPECT_EQ(w[0], w[1]);
      EXPECT_EQ(w[2], w[3]);
      EXPECT_NE(w[0], w[2]);
    }
  }
}

// Oja-SON's dense form (V orthonormalized at every step, lazy weights folded before each insertion)
// on dense rows with column scales spanning 100 and α = 1000, where γ_t‖ĝ‖² is large: dense SON
// on the learner's own sketch at every step, and the same run on one process to round-off.
TEST(SonOptions, OjaSonDenseFormIsDenseSonOnIllConditionedRows) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 24, n = 300;
  auto data = make_son_data(n, d, 1.0, 29);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < d; ++j) data.x(i, j) *= std::pow(10.0, 2.0 * static_cast<double>(j) / static_cast<double>(d - 1));
  LearnerSpec spec = son_spec("oja-son", LossKind::squared, 5);
  spec.alpha0 = 1000.0;
  spec.sigma = 0.125;
  spec.eta = 0.0;
  spec.form = FormChoice::dense;
  auto learner = make_learner(comm, d, spec);
  expect_dense_son_on_own_sketch(*learner, data.x, data.binary, true, 1e-8);
  // The bound. Rank counts change only the order of the sums over the d features, so each step's
  // inner products differ by at most γ_d = d·u relative (Higham, Accuracy and Stability, Lemma 3.1);
  // the trajectory amplifies such a change by its own condition number κ_T(t), which grows with t
  // here (α = 1000 makes γ_t‖ĝ‖² large). κ_T(t) is measured, not guessed: the same serial run on the
  // data with every entry moved by one relative ulp (x·(1 ± 2u), independent signs) gives
  // Δ(t) = κ_T(t)·2u, so rank counts must agree to d·u·κ_T(t)·4 = 2d·Δ(t) (factor 4: sign patterns
  // differ between the two perturbations).
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  auto moved = data.x;
  std::mt19937_64 signs(31);
  for (double& v : moved.a) v *= (signs() & 1) ? 1.0 + 2.0 * u : 1.0 - 2.0 * u;
  auto other = make_learner(comm, d, spec);
  auto serial = make_learner(self, d, spec);
  auto perturbed = make_learner(self, d, spec);
  for (index_t begin = 0; begin < n; begin += 30) {
    const auto rows = [&](const DenseMatrix& x) {
      return DenseMatrix{30, d, {x.a.begin() + begin * d, x.a.begin() + (begin + 30) * d}};
    };
    const std::vector<double> labels(data.binary.begin() + begin, data.binary.begin() + begin + 30);
    run_rows(*other, rows(data.x), labels, true);
    run_rows(*serial, rows(data.x), labels, true);
    run_rows(*perturbed, rows(moved), labels, true);
    const auto w = gather_weights(*serial);
    const double delta = relative_max_diff(gather_weights(*perturbed), w);
    ASSERT_GT(delta, 0.0) << "the perturbation did not reach the weights: κ_T is not measured";
    const double bound = 2.0 * static_cast<double>(d) * delta;
    EXPECT_LE(relative_max_diff(gather_weights(*other), w), bound) << "t=" << begin + 30 << ", κ_T·u=" << delta / 2;
  }
}

// The sparse FD form on USPS (softmax RFD-SON, ℓ = 10, α₀ = 1, the defaults), where an earlier
// sparse form (a compacted basis Z with B = M·Z, whose rows grew while M shrank) left the dense form's
// weights exponentially and ended at 14% test accuracy against 83%. The deferred form keeps Z = B and
// brings each column up to date through at most 2·⌈log₂ t⌉ products of the shrinks since it was last
// read, each a sum of R terms as the dense form's one product per shrink is. The bound: a reordered
// sum moves a step's products by at most d·u relative, each column's extra products by at most
// 2·⌈log₂ t⌉ times that, and the trajectory amplifies such a change by κ_T(t), measured as in the test
// above (Δ(t) = κ_T(t)·2u from a one-ulp perturbation of the data). So the forms agree to
// 2⌈log₂ t⌉·2d·Δ(t) (d = 256·K, the learner's dimension). Measured: about 10⁻¹⁵, some 2000 times
// below 2d·Δ(t), at 1, 2 and 3 ranks.
TEST(SonOptions, SparseRfdSonFollowsTheDenseFormOnUsps) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t n = 1200, d = 256;
  const int K = 10;
  DenseMatrix x{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)};
  std::vector<double> labels;
  {
    LibsvmReader reader(self, data_path("usps_esl.gz"), LibsvmOptions{d});
    Example e;
    for (index_t i = 0; i < n && reader.next(e); ++i) {
      for (std::size_t k = 0; k < e.indices.size(); ++k) x(i, e.indices[k]) = e.values[k];
      labels.push_back(e.label - 1.0);  // classes 1..10 → 0..9
    }
  }
  ASSERT_EQ(static_cast<index_t>(labels.size()), n);
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  auto moved = x;
  std::mt19937_64 signs(37);
  for (double& v : moved.a) v *= (signs() & 1) ? 1.0 + 2.0 * u : 1.0 - 2.0 * u;
  LearnerSpec spec;
  spec.algorithm = "rfd-son";
  spec.loss = LossKind::softmax;
  spec.classes = K;
  spec.form = FormChoice::dense;
  auto dense = make_learner(self, d, spec);
  auto perturbed = make_learner(self, d, spec);
  spec.form = FormChoice::sparse;
  auto sparse = make_learner(comm, d, spec);
  constexpr index_t kBlock = 100;
  for (index_t begin = 0; begin < n; begin += kBlock) {
    const auto rows = [&](const DenseMatrix& m) {
      return DenseMatrix{kBlock, d, {m.a.begin() + begin * d, m.a.begin() + (begin + kBlock) * d}};
    };
    const std::vector<double> block(labels.begin() + begin, labels.begin() + begin + kBlock);
    run_rows(*sparse, rows(x), block, false);
    run_rows(*dense, rows(x), block, false);
    run_rows(*perturbed, rows(moved), block, false);
    const auto w = gather_weights(*dense);
    const double delta = relative_max_diff(gather_weights(*perturbed), w);
    ASSERT_GT(delta, 0.0) << "the perturbation did not reach the weights: κ_T is not measured";
    const double products = 2.0 * std::ceil(std::log2(static_cast<double>(begin + kBlock)));
    const double bound = products * 2.0 * static_cast<double>(d * K) * delta;
    ASSERT_LE(relative_max_diff(gather_weights(*sparse), w), bound)
        << "t=" << begin + kBlock << ", κ_T·u=" << delta / 2;
  }
}

TEST(SonOptions, OjaStepSizesAreChecked) {
  const auto comm = world();
  auto spec_with = [](const std::string& algorithm, index_t ell, std::vector<double> gamma) {
    LearnerSpec s = son_spec(algorithm, LossKind::squared, ell);
    s.oja_gamma = std::move(gamma);
    return s;
  };
  EXPECT_THROW(make_learner(comm, 8, spec_with("oja-son", 3, {0.5, 0.5})), InvalidArgument);  // neither 1 nor ℓ
  EXPECT_THROW(make_learner(comm, 8, spec_with("oja-son", 3, {0.5, 0.0, 0.5})), InvalidArgument);
  EXPECT_THROW(make_learner(comm, 8, spec_with("oja-son", 3, {1.5})), InvalidArgument);
  EXPECT_THROW(make_learner(comm, 8, spec_with("oja-son", 3, {std::nan("")})), InvalidArgument);
  EXPECT_THROW(make_learner(comm, 8, spec_with("oja-son", 0, {0.5})), InvalidArgument);  // no sketch
  for (const char* name : {"fd-son", "fast-fd-son", "rp-son", "rfd-son", "fast-rfd-son"})
    EXPECT_THROW(make_learner(comm, 8, spec_with(name, 3, {0.5})), InvalidArgument) << name;
  EXPECT_NO_THROW(make_learner(comm, 8, spec_with("oja-son", 3, {0.5, 1.0, 0.1})));
}

// ---- α = 0: the pseudo-inverse ----------------------------------------------------------------------------

namespace {

// n examples whose nonzeros lie in `support` (a coordinate subspace of dimension |support| < ℓ), or,
// with an empty support, dense examples in a random 3-dimensional subspace.
DenseMatrix low_rank_rows(index_t n, index_t d, const std::vector<index_t>& support, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  DenseMatrix x{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)};
  if (!support.empty()) {
    for (index_t i = 0; i < n; ++i)
      for (const index_t j : support)
        if (unit(gen) < 0.6) x(i, j) = normal(gen);
    return x;
  }
  // An orthonormal basis q_1, q_2, q_3 (Gram–Schmidt of Gaussian rows); x = Σ_r z_r q_r, z_r ~ N(0, 1).
  std::vector<std::vector<double>> q(3, std::vector<double>(static_cast<std::size_t>(d)));
  for (std::size_t r = 0; r < q.size(); ++r) {
    for (double& v : q[r]) v = normal(gen);
    for (std::size_t p = 0; p < r; ++p) {
      const double c = dot(q[r], q[p]);
      for (index_t j = 0; j < d; ++j) q[r][j] -= c * q[p][j];
    }
    const double norm = std::sqrt(dot(q[r], q[r]));
    for (double& v : q[r]) v /= norm;
  }
  for (index_t i = 0; i < n; ++i)
    for (const auto& qr : q) {
      const double z = normal(gen);
      for (index_t j = 0; j < d; ++j) x(i, j) += z * qr[j];
    }
  return x;
}

std::vector<double> labels_of(const DenseMatrix& x, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> truth(static_cast<std::size_t>(x.d)), y;
  for (double& v : truth) v = normal(gen);
  for (index_t i = 0; i < x.n; ++i) y.push_back(dot(row_of(x, i), truth) + 0.1 * normal(gen) >= 0.0 ? 1.0 : -1.0);
  return y;
}

}  // namespace

TEST(SonOptions, AlphaZeroFdSonIsAppendixDWhileTheGradientsSpanFewerThanEllDimensions) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 9, n = 80;
  for (const bool dense : {true, false}) {
    // Sparse: rows on 4 coordinates; dense: rows in a random 3-dimensional subspace. ℓ = 5 > rank.
    const auto x = low_rank_rows(n, d, dense ? std::vector<index_t>{} : std::vector<index_t>{1, 3, 4, 7}, 31);
    const auto y = labels_of(x, 32);
    for (const char* name : {"fd-son", "fast-fd-son"}) {
      for (const LossKind loss_kind : {LossKind::squared, LossKind::logistic}) {
        SCOPED_TRACE(std::string(name) + " " + to_string(loss_kind) + (dense ? " dense" : " sparse"));
        LearnerSpec spec = son_spec(name, loss_kind, 5);
        spec.alpha0 = 0.0;
        spec.C = 0.1;
        auto learner = make_learner(comm, d, spec);
        const double tolerance = dynamic_cast<const SketchedNewton&>(*learner).options().rank_tolerance;
        const Loss loss(loss_kind);
        // App. D: A_t = Σ_{s≤t}(σ + η_s)g_sg_sᵀ, w_t = Lemma 2 on A_{t−1}, u_{t+1} = w_t − A_t⁺g_t.
        std::vector<double> a(static_cast<std::size_t>(d * d), 0.0), u(static_cast<std::size_t>(d), 0.0);
        int in_range = 0, off_range = 0;
        for (index_t t = 1; t <= n; ++t) {
          const auto xt = row_of(x, t - 1);
          bool inside = false;
          const auto w = lemma2(u, a, pseudo_inverse(a, d, tolerance), xt, spec.C, std::sqrt(tolerance), &inside);
          if (w != u) ++(inside ? in_range : off_range);
          const double p[1] = {dot(w, xt)};
          double dl = 0.0;
          loss.derivative(p, y[t - 1], std::span<double>(&dl, 1));
          const double s = spec.sigma + eta_at(spec, t);
          for (index_t i = 0; i < d; ++i)
            for (index_t j = 0; j < d; ++j) a[i * d + j] += s * dl * dl * xt[i] * xt[j];
          std::vector<double> g(xt.size());
          for (index_t j = 0; j < d; ++j) g[j] = dl * xt[j];
          const auto z = matvec(pseudo_inverse(a, d, tolerance), g);
          for (index_t j = 0; j < d; ++j) u[j] = w[j] - z[j];
          const auto e = slice_row(xt, learner->partition(), comm.rank(), dense);
          const double step_loss = learner->step(e.row(), y[t - 1]).loss;
          ASSERT_NEAR(step_loss, loss.value(p, y[t - 1]), 1e-8 * std::max(1.0, step_loss)) << "t = " << t;
          ASSERT_LT(relative_max_diff(gather_weights(*learner), u), 1e-8) << "t = " << t;
        }
        EXPECT_GT(in_range, 0);
        EXPECT_GT(off_range, 0);
        auto serial = make_learner(self, d, spec);
        run_rows(*serial, x, y, dense);
        EXPECT_LT(relative_max_diff(gather_weights(*learner), gather_weights(*serial)), 1e-10);
      }
    }
  }
}

TEST(SonOptions, AlphaZeroIsLemma2AndThePseudoInverseOnTheLearnersOwnSketch) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const index_t d = 10, n = 70;
  for (const bool low_rank : {true, false}) {
    for (const bool dense : {true, false}) {
      // Low rank: x ∈ range(A) once the sketch holds the subspace; full rank: x ∉ range(A) (ℓ < d).
      const auto x = low_rank ? low_rank_rows(n, d, dense ? std::vector<index_t>{} : std::vector<index_t>{0, 2, 5}, 7)
                              : make_son_data(n, d, dense ? 1.0 : 0.4, 8, 1.0 / std::sqrt(static_cast<double>(d))).x;
      const auto y = labels_of(x, 9);
      for (const char* name : {"fd-son", "fast-fd-son", "rp-son"}) {
        SCOPED_TRACE(std::string(name) + (low_rank ? " low rank" : " full rank") + (dense ? " dense" : " sparse"));
        LearnerSpec spec = son_spec(name, LossKind::squared, 4);
        spec.alpha0 = 0.0;
        spec.C = 0.5;
        auto learner = make_learner(comm, d, spec);
        const auto counts = expect_dense_son_on_own_sketch(*learner, x, y, dense, 1e-7);
        if (low_rank) {
          EXPECT_GT(counts.in_range, 0);
        }
        EXPECT_GT(counts.off_range, 0);
        auto serial = make_learner(self, d, spec);
        run_rows(*serial, x, y, dense);
        EXPECT_LT(relative_max_diff(gather_weights(*learner), gather_weights(*serial)), 1e-9);
      }
    }
  }
}

TEST(SonOptions, AlphaZeroIsRefusedWhereThePaperDoesNotAllowIt) {
  const auto comm = world();
  for (const char* name : {"oja-son", "rfd-son", "fast-rfd-son"}) {
    LearnerSpec spec = son_spec(name, LossKind::squared, 3);
    spec.alpha0 = 0.0;
    EXPECT_THROW(make_learner(comm, 8, spec), InvalidArgument) << name;
  }
  for (const char* name : {"fd-son", "fast-fd-son", "rp-son"}) {
    LearnerSpec spec = son_spec(name, LossKind::squared, 3);
    spec.alpha0 = 0.0;
    EXPECT_NO_THROW(make_learner(comm, 8, spec)) << name;
    spec.ell = 0;  // A = 0
    EXPECT_THROW(make_learner(comm, 8, spec), InvalidArgument) << name;
  }
}
