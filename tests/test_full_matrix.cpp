// The exact learners (full_adagrad.hpp, full_newton.hpp) against independent dense computations
// written here on the whole data, gathered on every rank:
//   - ADA-FULL (mirror descent and dual averaging; logistic, squared and softmax losses): G = Σ g gᵀ and
//     H⁻¹ = V diag(1/(δ + √λ)) Vᵀ from LAPACK dsyev at every step;
//   - FULL-ON: A_t = αI + Σ (σ + η_s) g_s g_sᵀ with Lemma 1's projection, by dense dposv solves (not
//     the learner's Sherman–Morrison form);
// at every rank count, on the grids 1×P and P×1 (not square at 2 and 3 ranks) with small blocks, and
// the same run on MPI_COMM_SELF. The papers' identity: the FD-sketched learners with ℓ ≥ r + 1 equal
// the exact ones (r the dimension the gradients span), and with ℓ = r they do not. Option and
// grid checks, make_learner, zero gradients, malformed slices, and no allocation per example.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/exact/full_adagrad.hpp"
#include "adasketch/learners/exact/full_newton.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"
#include "full_matrix_support.hpp"
#include "allocation_counter.hpp"  // g_allocations, g_counting: steps that must not allocate

using namespace adasketch;
using namespace adasketch::test;

namespace {

using Update = FullAdaGradOptions::Update;

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// ADA-FULL written from its definition (ADA-FD paper §2), dense on the whole dK-vector.
class DenseAdaFull {
 public:
  DenseAdaFull(index_t d, const Loss& loss, const FullAdaGradOptions& o)
      : K_(loss.outputs()), n_(d * K_), loss_(loss), o_(o), w_(sz(n_), 0.0), sum_(sz(n_), 0.0), g_(sz(n_) * sz(n_), 0.0) {}

  double step(const std::vector<double>& x, double y) {
    const index_t d = n_ / K_;
    std::vector<double> p(sz(K_), 0.0), dl(sz(K_));
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K_; ++k) p[sz(k)] += x[sz(j)] * w_[sz(j * K_ + k)];
    const double value = loss_.value(p, y);
    loss_.derivative(p, y, dl);
    std::vector<double> g(sz(n_));
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K_; ++k) g[sz(j * K_ + k)] = x[sz(j)] * dl[sz(k)];
    if (std::all_of(g.begin(), g.end(), [](double v) { return v == 0.0; })) return value;
    for (index_t i = 0; i < n_; ++i) {
      sum_[sz(i)] += g[sz(i)];
      for (index_t j = 0; j < n_; ++j) g_[sz(i * n_ + j)] += g[sz(i)] * g[sz(j)];
    }
    // G = VΛVᵀ (dsyev: eigenvalues ascending, eigenvectors in the columns of the row-major result).
    std::vector<double> v = g_, lambda(sz(n_));
    const lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'L', static_cast<lapack_int>(n_), v.data(),
                                          static_cast<lapack_int>(n_), lambda.data());
    EXPECT_EQ(info, 0) << "dsyev";
    const double top = lambda.back();
    const std::vector<double>& rhs = o_.update == Update::mirror_descent ? g : sum_;
    std::vector<double> h(sz(n_), 0.0);  // H⁻¹ rhs, H = δI + G^{1/2}
    for (index_t c = 0; c < n_; ++c) {
      const double l = lambda[sz(c)];
      const double phi = top > 0.0 && l > o_.rank_tolerance * top ? 1.0 / (o_.delta + std::sqrt(l)) : 1.0 / o_.delta;
      double z = 0.0;
      for (index_t i = 0; i < n_; ++i) z += v[sz(i * n_ + c)] * rhs[sz(i)];
      for (index_t i = 0; i < n_; ++i) h[sz(i)] += v[sz(i * n_ + c)] * phi * z;
    }
    for (index_t i = 0; i < n_; ++i)
      w_[sz(i)] = o_.update == Update::mirror_descent ? w_[sz(i)] - o_.eta * h[sz(i)] : -o_.eta * h[sz(i)];
    return value;
  }
  const std::vector<double>& w() const { return w_; }

 private:
  index_t K_, n_;
  Loss loss_;
  FullAdaGradOptions o_;
  std::vector<double> w_, sum_, g_;
};

// Solves the symmetric positive definite system A z = b (d×d row-major), LAPACK dposv.
std::vector<double> spd_solve(std::vector<double> a, std::vector<double> b, index_t d) {
  const lapack_int info = LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(d), 1, a.data(),
                                        static_cast<lapack_int>(d), b.data(), 1);
  EXPECT_EQ(info, 0) << "dposv";
  return b;
}

// FULL-ON (SON eq. (1)–(2), Alg. 1 with the exact A_t), dense, with solves instead of an inverse.
class DenseFullOn {
 public:
  DenseFullOn(index_t d, const Loss& loss, const FullNewtonOptions& o)
      : d_(d), loss_(loss), o_(o), u_(static_cast<std::size_t>(d), 0.0), a_(static_cast<std::size_t>(d * d), 0.0) {
    for (index_t j = 0; j < d; ++j) a_[static_cast<std::size_t>(j * d + j)] = o.alpha0;
  }
  double step(const std::vector<double>& x, double y) {
    ++t_;
    // Lemma 1: w = u − τ_C(uᵀx)/(xᵀA⁻¹x) A⁻¹x.
    std::vector<double> w = u_;
    const double ux = dot(u_, x);
    const double tau = ux > o_.C ? ux - o_.C : (ux < -o_.C ? ux + o_.C : 0.0);
    if (tau != 0.0) {
      const auto z = spd_solve(a_, x, d_);
      const double q = dot(x, z);
      for (index_t j = 0; j < d_; ++j) w[static_cast<std::size_t>(j)] -= tau / q * z[static_cast<std::size_t>(j)];
    }
    const double p[1] = {dot(w, x)};
    double dl = 0.0;
    loss_.derivative(p, y, std::span<double>(&dl, 1));
    const double tt = static_cast<double>(t_);
    const double eta_t = o_.eta_schedule == EtaSchedule::constant ? o_.eta
                         : o_.eta_schedule == EtaSchedule::inv_t  ? o_.eta / tt
                                                                  : o_.eta / std::sqrt(tt);
    std::vector<double> g(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) g[j] = dl * x[j];
    for (index_t i = 0; i < d_; ++i)
      for (index_t j = 0; j < d_; ++j)
        a_[static_cast<std::size_t>(i * d_ + j)] += (o_.sigma + eta_t) * g[static_cast<std::size_t>(i)] * g[static_cast<std::size_t>(j)];
    u_ = w;
    if (dl != 0.0) {
      const auto z = spd_solve(a_, g, d_);
      for (std::size_t j = 0; j < u_.size(); ++j) u_[j] -= z[j];
    }
    return loss_.value(p, y);
  }
  const std::vector<double>& u() const { return u_; }

 private:
  index_t d_;
  Loss loss_;
  FullNewtonOptions o_;
  index_t t_ = 0;
  std::vector<double> u_, a_;
};

FullAdaGradOptions ada_options(Update form, int grid_rows, int block) {
  FullAdaGradOptions o;
  o.update = form;
  o.eta = 0.5;
  o.delta = 0.3;
  o.grid_rows = grid_rows;
  o.block = block;
  o.scale = ScaleRule::none;  // as the dense reference takes them
  return o;
}

FullNewtonOptions on_options(int grid_rows, int block) {
  FullNewtonOptions o;
  o.alpha0 = 0.5;
  o.C = 1.0;
  o.sigma = 0.1;
  o.eta = 0.5;
  o.eta_schedule = EtaSchedule::inv_sqrt_t;
  o.grid_rows = grid_rows;
  o.block = block;
  o.scale = ScaleRule::none;  // as the dense reference takes them
  return o;
}

double label_of(const FullData& data, index_t i, const Loss& loss) {
  return loss.kind() == LossKind::softmax ? data.classes[at(i)] : data.binary[at(i)];
}

std::string form_name(Update f) { return f == Update::mirror_descent ? "mirror descent" : "dual averaging"; }

}  // namespace

// ---- ADA-FULL against the dense reference --------------------------------------------------------------

TEST(FullMatrix, AdaFullEqualsDenseReferenceOnEveryGrid) {
  const auto comm = world();
  struct Case {
    LossKind loss;
    int classes;
    index_t d;
  };
  // n = dK: 24 for the binary losses, 30 for softmax (d = 10, K = 3).
  const Case cases[] = {{LossKind::logistic, 2, 24}, {LossKind::squared, 2, 24}, {LossKind::softmax, 3, 10}};
  const index_t steps = 50;
  for (const Case& c : cases) {
    const Loss loss(c.loss, c.classes);
    const FullData data = make_full_data(steps, c.d, 5, 0.6, 2.0);
    for (const Update form : {Update::mirror_descent, Update::dual_averaging}) {
      DenseAdaFull reference(c.d, loss, ada_options(form, 0, 0));
      std::vector<double> reference_losses;
      for (index_t i = 0; i < steps; ++i) reference_losses.push_back(reference.step(row_of(data.x, i), label_of(data, i, loss)));
      for (const int rows : grid_rows_cases(comm.size())) {
        FullAdaGrad learner(comm, c.d, loss, ada_options(form, rows, 4));
        ASSERT_EQ(learner.grid_rows(), rows);
        ASSERT_EQ(learner.grid_rows() * learner.grid_cols(), comm.size());
        const std::vector<double> losses = run_examples(learner, data, 0, steps);
        const std::string what = c.loss == LossKind::softmax ? "softmax" : to_string(c.loss);
        EXPECT_LT(relative_max_diff(losses, reference_losses), 1e-8) << what << ", " << form_name(form) << ", grid rows " << rows;
        EXPECT_LT(relative_max_diff(all_weights(learner), reference.w()), 1e-8)
            << what << ", " << form_name(form) << ", grid rows " << rows;
      }
    }
  }
}

// ---- FULL-ON against the dense reference ---------------------------------------------------------------

TEST(FullMatrix, FullOnEqualsDenseReferenceOnEveryGrid) {
  const auto comm = world();
  const index_t d = 24, steps = 150;
  const FullData data = make_full_data(steps, d, 7, 0.6, 2.0);
  for (const LossKind kind : {LossKind::squared, LossKind::logistic}) {
    const Loss loss(kind);
    DenseFullOn reference(d, loss, on_options(0, 0));
    std::vector<double> reference_losses;
    for (index_t i = 0; i < steps; ++i) reference_losses.push_back(reference.step(row_of(data.x, i), data.binary[at(i)]));
    for (const int rows : grid_rows_cases(comm.size())) {
      FullNewton learner(comm, d, loss, on_options(rows, 4));
      ASSERT_EQ(learner.grid_rows(), rows);
      const std::vector<double> losses = run_examples(learner, data, 0, steps);
      EXPECT_LT(relative_max_diff(losses, reference_losses), 1e-8) << kind << ", grid rows " << rows;
      EXPECT_LT(relative_max_diff(all_weights(learner), reference.u()), 1e-8) << kind << ", grid rows " << rows;
      EXPECT_GT(learner.projections(), 0) << kind << ": the projection was never active";
    }
  }
}

// ---- The same run on one process ----------------------------------------------------------------------

TEST(FullMatrix, SameWeightsOnOneProcessAndWithTheAutomaticGrid) {
  // d = 2 at 3 ranks leaves rank 2 without features (an empty block), with blocks of 1 (automatic).
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  for (const index_t d : {index_t{2}, index_t{17}}) {
    const FullData data = make_full_data(40, d, 9, 0.7, 1.5);
    for (const std::string algorithm : {"ada-full", "ada-full-da", "full-on"}) {
      LearnerSpec spec;
      spec.algorithm = algorithm;
      spec.loss = algorithm == "full-on" ? LossKind::squared : LossKind::logistic;
      spec.eta = 0.4;
      spec.sigma = 0.1;
      auto serial = make_learner(self, d, spec);
      const auto ls = run_examples(*serial, data, 0, data.x.n);
      for (const int rows : {0, comm.size()}) {  // the automatic grid 1×P (1×1 at one rank), and P×1
        spec.grid_rows = rows;
        auto parallel = make_learner(comm, d, spec);
        const auto lp = run_examples(*parallel, data, 0, data.x.n);
        EXPECT_LT(relative_max_diff(lp, ls), 1e-10) << algorithm << ", d = " << d << ", grid rows " << rows;
        EXPECT_LT(relative_max_diff(all_weights(*parallel), all_weights(*serial)), 1e-10)
            << algorithm << ", d = " << d << ", grid rows " << rows;
      }
    }
  }
}

// ---- The papers' identity: FD with ℓ ≥ r + 1 keeps every gradient -------------------------------------

// FD (RFD paper Alg. 1, 2) shrinks a full buffer by its ℓ-th largest squared singular value λ_ℓ and keeps
// ℓ − 1 rows. The buffer holds combinations of gradients, which span at most r dimensions: r = d for one
// score, r = d(K − 1) for softmax (g = x ⊗ ∂ℓ/∂p with Σ_k ∂ℓ/∂p_k = 0). So λ_ℓ = 0 at every shrink,
// whatever the gradients, iff ℓ − 1 ≥ r: with ℓ ≥ r + 1, BᵀB = Σ_s g_s g_sᵀ exactly (plain and fast FD
// alike), ADA-FD's H is ADA-FULL's and FD-SON's A is FULL-ON's (the ADA-FD paper's regret gap and the
// FD error vanish when the sketch size exceeds the rank). With ℓ = r the first shrink after r
// independent gradients removes λ_r > 0 and the learners part.
TEST(FullMatrix, FdSketchedLearnersWithEllAboveTheGradientRankEqualTheExactOnes) {
  const auto comm = world();
  const index_t steps = 50;
  struct Pair {
    std::string sketched, exact;
    bool softmax;
  };
  const Pair pairs[] = {{"ada-fd", "ada-full", false},        {"fast-ada-fd", "ada-full", false},
                        {"ada-fd-da", "ada-full-da", false},  {"fast-ada-fd-da", "ada-full-da", false},
                        {"ada-fd", "ada-full", true},         {"fast-ada-fd-da", "ada-full-da", true},
                        {"fd-son", "full-on", false},         {"fast-fd-son", "full-on", false}};
  for (const Pair& pair : pairs) {
    const index_t d = pair.softmax ? 5 : 12, r = pair.softmax ? d * 2 : d;  // K = 3 for softmax
    const FullData data = make_full_data(steps, d, 13, 0.7, 2.0);
    LearnerSpec spec;
    spec.loss = pair.softmax ? LossKind::softmax : pair.exact == "full-on" ? LossKind::squared : LossKind::logistic;
    spec.classes = 3;
    spec.eta = 0.5;
    spec.delta = 0.3;
    spec.alpha0 = 0.5;
    spec.sigma = 0.1;
    spec.eta_schedule = EtaSchedule::inv_sqrt_t;
    spec.algorithm = pair.exact;
    auto exact = make_learner(comm, d, spec);
    run_examples(*exact, data, 0, steps);
    const auto w_exact = all_weights(*exact);
    for (const index_t ell : {r + 1, r}) {
      spec.algorithm = pair.sketched;
      spec.ell = ell;
      auto sketched = make_learner(comm, d, spec);
      run_examples(*sketched, data, 0, steps);
      const double diff = relative_max_diff(all_weights(*sketched), w_exact);
      if (ell == r + 1)
        EXPECT_LT(diff, 1e-8) << pair.sketched << " with ℓ = r + 1 = " << ell << " vs " << pair.exact;
      else
        EXPECT_GT(diff, 1e-6) << pair.sketched << " with ℓ = r = " << ell << " should lose mass and differ";
    }
  }
}

// ---- Zero gradients, malformed slices, options, make_learner -------------------------------------------

TEST(FullMatrix, ZeroGradientLeavesTheLearnerAlone) {
  const auto comm = world();
  const index_t d = 9;
  const FullData data = make_full_data(30, d, 3);
  LearnerSpec spec;
  spec.loss = LossKind::hinge;
  spec.C = std::numeric_limits<double>::infinity();  // no projection: a step with ℓ' = 0 changes nothing
  for (const std::string algorithm : {"ada-full", "ada-full-da", "full-on"}) {
    spec.algorithm = algorithm;
    auto learner = make_learner(comm, d, spec);
    run_examples(*learner, data, 0, data.x.n);
    const auto w = all_weights(*learner);
    const double ww = dot(w, w);
    ASSERT_GT(ww, 0.0) << algorithm;
    DenseMatrix xm{1, d, w};
    for (double& v : xm.a) v *= 2.0 / ww;  // wᵀx = 2: ℓ' = 0 for the label +1
    const auto r = learner->step(slice_of(xm, 0, learner->partition(), comm.rank(), true).row(), 1.0);
    EXPECT_EQ(r.loss, 0.0) << algorithm;
    learner->step(LocalRow::sparse({}, {}), -1.0);  // x = 0
    EXPECT_EQ(all_weights(*learner), w) << algorithm;
  }
}

TEST(FullMatrix, MalformedSliceOnOneRankFailsOnEveryRank) {
  const auto comm = world();
  for (const std::string algorithm : {"ada-full", "full-on"}) {
    LearnerSpec spec;
    spec.algorithm = algorithm;
    spec.loss = LossKind::squared;
    auto learner = make_learner(comm, 8, spec);
    std::vector<double> row(static_cast<std::size_t>(learner->local_dim()) + (comm.rank() == 0 ? 1 : 0), 1.0);
    EXPECT_THROW(learner->step(LocalRow::dense(row), 1.0), InvalidArgument) << algorithm;
    const std::vector<index_t> idx = {0, 0};  // not ascending (rank 0 only)
    const std::vector<double> val = {1.0, 2.0};
    const std::vector<double> fine(static_cast<std::size_t>(learner->local_dim()), 1.0);
    const LocalRow bad = comm.rank() == 0 ? LocalRow::sparse(idx, val) : LocalRow::dense(fine);
    EXPECT_THROW(learner->step(bad, 1.0), InvalidArgument) << algorithm;
    EXPECT_EQ(learner->steps(), 0) << algorithm;
  }
}

TEST(FullMatrix, RejectsBadGridsOptionsAndPartitions) {
  const auto comm = world();
  const int P = comm.size();
  const Loss logistic(LossKind::logistic);
  // Grid rows that do not divide the rank count, on every rank alike.
  for (const int rows : {P + 1, -1}) {
    EXPECT_THROW(FullAdaGrad(comm, 10, logistic, ada_options(Update::mirror_descent, rows, 0)), InvalidArgument) << rows;
    EXPECT_THROW(FullNewton(comm, 10, Loss(LossKind::squared), on_options(rows, 0)), InvalidArgument) << rows;
    LearnerSpec spec;
    spec.algorithm = "ada-full-da";
    spec.grid_rows = rows;
    EXPECT_THROW(make_learner(comm, 10, spec), InvalidArgument) << rows;
  }
  if (P == 3) {
    EXPECT_THROW(FullAdaGrad(comm, 10, logistic, ada_options(Update::mirror_descent, 2, 0)), InvalidArgument);
  }
  EXPECT_THROW(FullAdaGrad(comm, 10, logistic, ada_options(Update::mirror_descent, 0, -4)), InvalidArgument);
  auto bad_ada = [&](auto change) {
    FullAdaGradOptions o;
    change(o);
    return o;
  };
  EXPECT_THROW(FullAdaGrad(comm, 10, logistic, bad_ada([](auto& o) { o.eta = 0.0; })), InvalidArgument);
  EXPECT_THROW(FullAdaGrad(comm, 10, logistic, bad_ada([](auto& o) { o.delta = 0.0; })), InvalidArgument);
  EXPECT_THROW(FullAdaGrad(comm, 10, logistic, bad_ada([](auto& o) { o.delta = 1e-310; })), InvalidArgument);
  EXPECT_THROW(FullAdaGrad(comm, 10, logistic, bad_ada([](auto& o) { o.rank_tolerance = 1.0; })), InvalidArgument);
  auto bad_on = [&](auto change) {
    FullNewtonOptions o;
    change(o);
    return o;
  };
  const Loss squared(LossKind::squared);
  EXPECT_THROW(FullNewton(comm, 10, squared, bad_on([](auto& o) { o.alpha0 = 0.0; })), InvalidArgument);
  EXPECT_THROW(FullNewton(comm, 10, squared, bad_on([](auto& o) { o.C = 0.0; })), InvalidArgument);
  EXPECT_THROW(FullNewton(comm, 10, squared, bad_on([](auto& o) { o.sigma = -1.0; })), InvalidArgument);
  EXPECT_THROW(FullNewton(comm, 10, squared, bad_on([](auto& o) { o.eta = std::nan(""); })), InvalidArgument);
  // A partition ScaLAPACK cannot describe: unequal blocks (rank 0 holds one feature, rank 1 the rest).
  if (P >= 2) {
    std::vector<index_t> sizes(static_cast<std::size_t>(P), 0);
    sizes[0] = 1;
    sizes[1] = 9;
    EXPECT_THROW(FullAdaGrad(comm, BlockPartition(sizes), logistic), InvalidArgument);
    EXPECT_THROW(FullNewton(comm, BlockPartition(sizes), squared), InvalidArgument);
  }
  // The caller's equal blocks are accepted: b = 10/P + 1 features per rank, the trailing ones the rest.
  const index_t b = 10 / P + 1;
  std::vector<index_t> equal;
  for (index_t p = 0; p < P; ++p) equal.push_back(std::clamp<index_t>(10 - p * b, 0, b));
  EXPECT_NO_THROW(FullNewton(comm, BlockPartition(equal), squared));
}

TEST(FullMatrix, MakeLearnerBuildsTheExactLearnersAndTheirSpec) {
  const auto comm = world();
  LearnerSpec spec;
  spec.loss = LossKind::softmax;
  spec.classes = 4;
  spec.eta = 0.25;
  spec.delta = 0.75;
  spec.grid_rows = comm.size();
  for (const std::string algorithm : {"ada-full", "ada-full-da"}) {
    spec.algorithm = algorithm;
    const auto learner = make_learner(comm, 6, spec);
    EXPECT_EQ(learner->name(), algorithm);
    const auto* full = dynamic_cast<const FullAdaGrad*>(learner.get());
    ASSERT_NE(full, nullptr);
    EXPECT_EQ(full->grid_rows(), comm.size());
    EXPECT_EQ(full->grid_cols(), 1);
    const LearnerSpec s = learner->spec();
    EXPECT_EQ(s.algorithm, algorithm);
    EXPECT_EQ(s.loss, LossKind::softmax);
    EXPECT_EQ(s.classes, 4);
    EXPECT_EQ(s.eta, 0.25);
    EXPECT_EQ(s.delta, 0.75);
    EXPECT_EQ(s.grid_rows, comm.size());
  }
  LearnerSpec on;
  on.algorithm = "full-on";
  on.loss = LossKind::squared;
  on.alpha0 = 2.0;
  on.C = 0.7;
  on.sigma = 0.2;
  on.eta = 0.3;
  on.eta_schedule = EtaSchedule::inv_t;
  const auto learner = make_learner(comm, 6, on);
  const auto* full = dynamic_cast<const FullNewton*>(learner.get());
  ASSERT_NE(full, nullptr);
  EXPECT_EQ(full->options().alpha0, 2.0);
  EXPECT_EQ(full->eta(4), 0.3 / 4);
  const LearnerSpec s = learner->spec();
  EXPECT_EQ(s.alpha0, 2.0);
  EXPECT_EQ(s.C, 0.7);
  EXPECT_EQ(s.sigma, 0.2);
  EXPECT_EQ(s.eta_schedule, EtaSchedule::inv_t);
  on.loss = LossKind::softmax;  // FULL-ON's multiclass form: the K-class weights and a dK × dK A⁻¹
  on.classes = 4;
  on.diag_rescale = true;
  const auto multiclass = make_learner(comm, 6, on);
  EXPECT_EQ(multiclass->outputs(), 4);
  EXPECT_EQ(multiclass->spec().classes, 4);
  EXPECT_TRUE(multiclass->spec().diag_rescale);
  EXPECT_TRUE(dynamic_cast<const FullNewton&>(*multiclass).options().diag_rescale);
  on.algorithm = "full-ons";
  try {
    make_learner(comm, 6, on);
    ADD_FAILURE() << "unknown algorithm accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("ada-full, ada-full-da or full-on"), std::string::npos) << e.what();
  }
}

TEST(FullMatrix, NoAllocationPerExample) {
  const auto comm = world();
  const index_t d = 11;
  const FullData data = make_full_data(40, d, 21, 0.6);
  for (const std::string algorithm : {"ada-full", "ada-full-da", "full-on"}) {
    LearnerSpec spec;
    spec.algorithm = algorithm;
    spec.loss = algorithm == "full-on" ? LossKind::squared : LossKind::softmax;
    spec.classes = 3;
    auto learner = make_learner(comm, d, spec);
    std::vector<Slice> slices;
    for (index_t i = 0; i < data.x.n; ++i) slices.push_back(slice_of(data.x, i, learner->partition(), comm.rank(), i % 2 == 0));
    const bool softmax = spec.loss == LossKind::softmax;
    g_allocations = 0;
    g_counting = true;
    for (index_t i = 0; i < data.x.n; ++i)
      learner->step(slices[at(i)].row(), softmax ? data.classes[at(i)] : data.binary[at(i)]);
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0) << algorithm;
  }
}
