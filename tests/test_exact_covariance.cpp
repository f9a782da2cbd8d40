// ExactCovariance (ScaLAPACK) against independent dense LAPACK computations on the whole small A,
// and the FD / RFD guarantees checked with it (docs/design.md §2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "adasketch/error.hpp"
#include "adasketch/evaluation/exact_covariance.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "test_support.hpp"

using namespace adasketch;
using test::DenseMatrix;

namespace {

void add_rows(ExactCovariance& cov, const DenseMatrix& a, const BlockPartition& p, int rank) {
  for (index_t i = 0; i < a.n; ++i) {
    const auto slice = test::local_slice(a, i, p, rank);
    cov.add(LocalRow::dense(slice));
  }
}

void insert_rows(Sketch& s, const DenseMatrix& a) {
  for (index_t i = 0; i < a.n; ++i) s.insert(LocalRow::dense(test::local_slice(a, i, s.partition(), s.comm().rank())));
}

// Eigenvalues of (α₀I + AᵀA) − (αI + BᵀB), descending, with B from the dense LAPACK-SVD reference FD.
std::vector<double> reference_error_eigenvalues(const DenseMatrix& a, const FrequentDirectionsOptions& o) {
  const auto ref = test::reference_frequent_directions(a, o.ell, o.fast, o.regularized, o.alpha0);
  auto e = test::gram_of_columns(a);
  for (std::size_t i = 0; i < e.size(); ++i) e[i] -= ref.btb[i];
  for (index_t i = 0; i < a.d; ++i) e[i * a.d + i] -= ref.alpha - (o.regularized ? o.alpha0 : 0.0);
  return test::eigenvalues_desc(e, a.d);
}

double dense_tail(const std::vector<double>& lambda, index_t k) {
  double t = 0.0;
  for (std::size_t i = static_cast<std::size_t>(k); i < lambda.size(); ++i) t += std::max(lambda[i], 0.0);
  return t;
}

// The whole R×d matrix B of a sketch, assembled from every rank's copy_local_block.
DenseMatrix gather_b(const Sketch& s) {
  const index_t r = s.rows(), d = s.partition().dim();
  std::vector<double> local(static_cast<std::size_t>(s.local_dim() * r)), feature_major(static_cast<std::size_t>(d * r));
  s.copy_local_block(local);
  std::vector<int> counts, offsets;
  for (int p = 0; p < s.comm().size(); ++p) {
    counts.push_back(static_cast<int>(s.partition().size(p) * r));
    offsets.push_back(static_cast<int>(s.partition().begin(p) * r));
  }
  MPI_Allgatherv(local.data(), counts[s.comm().rank()], MPI_DOUBLE, feature_major.data(), counts.data(), offsets.data(),
                 MPI_DOUBLE, s.comm().get());
  DenseMatrix b{r, d, std::vector<double>(static_cast<std::size_t>(r * d))};
  for (index_t j = 0; j < d; ++j)
    for (index_t i = 0; i < r; ++i) b(i, j) = feature_major[j * r + i];
  return b;
}

DenseMatrix sparse_random(index_t n, index_t d, double density, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  DenseMatrix m{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)};
  for (auto& x : m.a)
    if (u(gen) < density) x = normal(gen);
  return m;
}

std::vector<FrequentDirectionsOptions> fd_variants(std::initializer_list<index_t> ells, bool with_alpha0) {
  std::vector<FrequentDirectionsOptions> out;
  for (index_t ell : ells)
    for (bool fast : {false, true})
      for (bool regularized : {false, true})
        for (double alpha0 : {0.0, 0.5})
          if (alpha0 == 0.0 || (with_alpha0 && regularized)) out.push_back({ell, fast, regularized, alpha0});
  return out;
}

std::string describe(const FrequentDirectionsOptions& o, index_t d) {
  return "d=" + std::to_string(d) + " ell=" + std::to_string(o.ell) + (o.fast ? " fast" : "") +
         (o.regularized ? " rfd alpha0=" + std::to_string(o.alpha0) : "");
}

}  // namespace

TEST(ExactCovariance, EigenvaluesMatchDenseLapack) {
  const auto comm = test::world();
  // d = 1, 2 put P > d at 3 ranks; 7, 23 are not divisible by 2 or 3; 130 spans several blocks.
  for (index_t d : {1, 2, 7, 23, 130})
    for (index_t batch : {1, 4, 512}) {
      const auto a = test::random_low_rank(37, d, 3, 0.3, static_cast<unsigned>(d + batch));
      const BlockPartition p(d, comm.size());
      ExactCovariance cov(comm, p, batch);
      add_rows(cov, a, p, comm.rank());
      EXPECT_EQ(cov.rows_added(), a.n);
      const auto expected = test::eigenvalues_desc(test::gram_of_columns(a), d);
      EXPECT_LT(test::relative_max_diff(cov.covariance_eigenvalues(), expected), 1e-10) << "d=" << d << " batch=" << batch;
    }
}

TEST(ExactCovariance, OneFeatureIsTheSumOfSquares) {
  const auto comm = test::world();
  const BlockPartition p(1, comm.size());
  ExactCovariance cov(comm, p, 2);
  double sum = 0.0;
  for (int i = 1; i <= 5; ++i) {
    const std::vector<double> v = {static_cast<double>(i)};
    cov.add(LocalRow::dense(std::span<const double>(v.data(), static_cast<std::size_t>(p.size(comm.rank())))));
    sum += i * i;
  }
  const auto lambda = cov.covariance_eigenvalues();
  ASSERT_EQ(lambda.size(), 1u);
  EXPECT_NEAR(lambda[0], sum, 1e-12 * sum);
}

TEST(ExactCovariance, SketchErrorMatchesDenseReferenceFd) {
  const auto comm = test::world();
  for (index_t d : {2, 5, 23}) {
    const auto a = test::random_low_rank(41, d, 4, 0.2, static_cast<unsigned>(7 * d));
    const BlockPartition p(d, comm.size());
    ExactCovariance cov(comm, p, 16);
    add_rows(cov, a, p, comm.rank());
    const auto lambda = test::eigenvalues_desc(test::gram_of_columns(a), d);
    for (const auto& o : fd_variants({1, 3, 5, 8}, true)) {
      FrequentDirections fd(comm, d, o);
      insert_rows(fd, a);
      const SketchError err = cov.evaluate(fd);
      const auto mu = reference_error_eigenvalues(a, o);
      const double scale = std::max(1.0, lambda.front()), tol = 1e-9 * scale;
      EXPECT_NEAR(err.a_norm2, lambda.front(), tol) << describe(o, d);
      EXPECT_NEAR(err.max_eigenvalue, mu.front(), tol) << describe(o, d);
      EXPECT_NEAR(err.min_eigenvalue, mu.back(), tol) << describe(o, d);
      EXPECT_NEAR(err.spectral_error, std::max(std::abs(mu.front()), std::abs(mu.back())), tol) << describe(o, d);
      EXPECT_NEAR(err.relative_error, err.spectral_error / err.a_norm2, 1e-15);
      ASSERT_EQ(err.tail.size(), static_cast<std::size_t>(std::min(d, o.ell) + 1)) << describe(o, d);
      for (std::size_t k = 0; k < err.tail.size(); ++k)
        EXPECT_NEAR(err.tail[k], dense_tail(lambda, static_cast<index_t>(k)), tol) << describe(o, d) << " k=" << k;
    }
  }
}

TEST(ExactCovariance, ErrorOfAnySketchMatchesItsAssembledRows) {
  const auto comm = test::world();
  const index_t d = 19;
  const auto a = test::random_low_rank(33, d, 3, 0.2, 19);
  const BlockPartition p(d, comm.size());
  ExactCovariance cov(comm, p, 5);
  add_rows(cov, a, p, comm.rank());
  for (const SketchKind method : {SketchKind::rp, SketchKind::oja, SketchKind::fast_rfd}) {
    auto s = make_sketch(comm, d, SketchSpec{method, 4, 3, 0.25});
    insert_rows(*s, a);
    auto e = test::gram_of_columns(a);
    const auto btb = test::gram_of_columns(gather_b(*s));
    for (std::size_t i = 0; i < e.size(); ++i) e[i] -= btb[i];
    for (index_t i = 0; i < d; ++i) e[i * d + i] -= s->alpha() - (method == SketchKind::fast_rfd ? 0.25 : 0.0);
    const auto mu = test::eigenvalues_desc(e, d);
    const auto err = cov.evaluate(*s);
    EXPECT_NEAR(err.max_eigenvalue, mu.front(), 1e-10 * err.a_norm2) << method;
    EXPECT_NEAR(err.min_eigenvalue, mu.back(), 1e-10 * err.a_norm2) << method;
  }
}

TEST(ExactCovariance, FrequentDirectionsGuaranteesHoldOnLowRankData) {
  const auto comm = test::world();
  const index_t d = 40;
  const auto a = test::random_low_rank(200, d, 6, 0.1, 2024);
  const BlockPartition p(d, comm.size());
  ExactCovariance cov(comm, p);
  add_rows(cov, a, p, comm.rank());
  for (const auto& o : fd_variants({2, 4, 8, 16}, false)) {
    FrequentDirections fd(comm, d, o);
    insert_rows(fd, a);
    const SketchError err = cov.evaluate(fd);
    ASSERT_GT(err.a_norm2, 0.0);
    // FD: 0 ⪯ AᵀA − BᵀB (RFD paper Alg. 1 / 2 property; RFD shifts it by −αI).
    if (!o.regularized) {
      EXPECT_GE(err.min_eigenvalue, -1e-9 * err.a_norm2) << describe(o, d);
    }
    for (index_t k = 0; k < o.ell; ++k) {
      // FD bound ‖A − A_k‖²_F/(ℓ − k); RFD (α₀ = 0): half of it (RFD paper Thm. 3).
      const double bound = err.fd_bound(k, o.ell, o.regularized);
      EXPECT_LE(err.spectral_error, bound * (1 + 1e-9)) << describe(o, d) << " k=" << k;
      EXPECT_DOUBLE_EQ(bound, err.tail[static_cast<std::size_t>(k)] / static_cast<double>(o.ell - k) /
                                  (o.regularized ? 2.0 : 1.0));
    }
  }
}

TEST(ExactCovariance, BoundBeyondTheDimensionIsZero) {
  const auto comm = test::world();
  const index_t d = 3;
  const auto a = test::random_low_rank(10, d, 2, 0.1, 3);
  const BlockPartition p(d, comm.size());
  ExactCovariance cov(comm, p);
  add_rows(cov, a, p, comm.rank());
  FrequentDirections fd(comm, d, {6, false, false, 0.0});  // ℓ > d: B keeps all of A
  insert_rows(fd, a);
  const auto err = cov.evaluate(fd);
  ASSERT_EQ(err.tail.size(), 4u);
  EXPECT_EQ(err.tail[3], 0.0);
  EXPECT_EQ(err.fd_bound(5, 6, false), 0.0);
  EXPECT_LT(err.relative_error, 1e-12);
  EXPECT_THROW((void)err.fd_bound(6, 6, false), InvalidArgument);
  SketchError partial;
  partial.tail = {3.0, 2.0};  // tail known only up to k = 1 and still positive
  EXPECT_THROW((void)partial.fd_bound(2, 4, false), InvalidArgument);
}

TEST(ExactCovariance, SparseAndDenseRowsAgree) {
  const auto comm = test::world();
  for (index_t d : {2, 31}) {
    const auto a = sparse_random(60, d, 0.25, static_cast<unsigned>(d));
    const BlockPartition p(d, comm.size());
    ExactCovariance dense(comm, p, 7), sparse(comm, p, 7);
    add_rows(dense, a, p, comm.rank());
    for (index_t i = 0; i < a.n; ++i) {
      std::vector<index_t> idx;
      std::vector<double> val;
      for (index_t j = p.begin(comm.rank()); j < p.end(comm.rank()); ++j)
        if (a(i, j) != 0.0) {
          idx.push_back(j - p.begin(comm.rank()));
          val.push_back(a(i, j));
        }
      sparse.add(LocalRow::sparse(idx, val));
    }
    FrequentDirections fd(comm, d, {3, true, true, 0.0});
    insert_rows(fd, a);
    const auto from_dense = dense.evaluate(fd), from_sparse = sparse.evaluate(fd);
    EXPECT_LT(test::relative_max_diff(sparse.covariance_eigenvalues(), dense.covariance_eigenvalues()), 1e-14);
    EXPECT_NEAR(from_sparse.spectral_error, from_dense.spectral_error, 1e-12 * from_dense.a_norm2);
    EXPECT_NEAR(from_sparse.min_eigenvalue, from_dense.min_eigenvalue, 1e-12 * from_dense.a_norm2);
    const auto expected = test::eigenvalues_desc(test::gram_of_columns(a), d);
    EXPECT_LT(test::relative_max_diff(sparse.covariance_eigenvalues(), expected), 1e-10);
  }
}

TEST(ExactCovariance, NoRowsGivesZeroError) {
  const auto comm = test::world();
  const BlockPartition p(4, comm.size());
  ExactCovariance cov(comm, p);
  FrequentDirections fd(comm, 4, {2, false, false, 0.0});
  const auto err = cov.evaluate(fd);
  EXPECT_EQ(err.a_norm2, 0.0);
  EXPECT_EQ(err.spectral_error, 0.0);
  EXPECT_EQ(err.relative_error, 0.0);
  EXPECT_EQ(err.tail, std::vector<double>(3, 0.0));
  EXPECT_EQ(cov.covariance_eigenvalues(), std::vector<double>(4, 0.0));
}

TEST(ExactCovariance, EvaluateIsRepeatableAndSeesLaterRows) {
  const auto comm = test::world();
  const index_t d = 9;
  const auto a = test::random_low_rank(30, d, 3, 0.2, 9);
  const BlockPartition p(d, comm.size());
  ExactCovariance cov(comm, p, 8);
  FrequentDirections fd(comm, d, {3, false, true, 0.0});
  const DenseMatrix first{20, d, std::vector<double>(a.a.begin(), a.a.begin() + 20 * d)};
  const DenseMatrix rest{10, d, std::vector<double>(a.a.begin() + 20 * d, a.a.end())};
  add_rows(cov, first, p, comm.rank());
  insert_rows(fd, first);
  const auto e1 = cov.evaluate(fd), e2 = cov.evaluate(fd);
  EXPECT_EQ(e1.spectral_error, e2.spectral_error);
  EXPECT_EQ(e1.min_eigenvalue, e2.min_eigenvalue);
  EXPECT_EQ(e1.max_eigenvalue, e2.max_eigenvalue);
  EXPECT_EQ(e1.tail, e2.tail);
  add_rows(cov, rest, p, comm.rank());
  insert_rows(fd, rest);
  const auto e3 = cov.evaluate(fd);
  EXPECT_NEAR(e3.max_eigenvalue, reference_error_eigenvalues(a, {3, false, true, 0.0}).front(), 1e-9 * e3.a_norm2);
  EXPECT_LT(test::relative_max_diff(cov.covariance_eigenvalues(), test::eigenvalues_desc(test::gram_of_columns(a), d)),
            1e-10);
}

TEST(ExactCovariance, WorksOnASubCommunicatorAlongsideAnother) {
  const auto world = test::world();
  MPI_Comm half;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, world.rank() % 2, world.rank(), &half), MPI_SUCCESS);
  {
    const Communicator sub(half);
    const index_t d = 11 + world.rank() % 2;  // the two halves work on different problems
    const auto a = test::random_low_rank(25, d, 2, 0.3, static_cast<unsigned>(d));
    const BlockPartition p(d, sub.size());
    ExactCovariance on_half(sub, p, 4);
    ExactCovariance on_world(world, BlockPartition(5, world.size()));  // a second grid alive at once
    add_rows(on_half, a, p, sub.rank());
    FrequentDirections fd(sub, d, {4, true, false, 0.0});
    insert_rows(fd, a);
    const auto err = on_half.evaluate(fd);
    const auto mu = reference_error_eigenvalues(a, {4, true, false, 0.0});
    EXPECT_NEAR(err.max_eigenvalue, mu.front(), 1e-9 * err.a_norm2);
    EXPECT_EQ(on_world.covariance_eigenvalues(), std::vector<double>(5, 0.0));
  }
  MPI_Comm_free(&half);
}

TEST(ExactCovariance, NonFiniteRowFailsOnEveryRank) {
  const auto comm = test::world();
  const BlockPartition p(5, comm.size());
  ExactCovariance cov(comm, p);
  std::vector<double> row(static_cast<std::size_t>(p.size(comm.rank())), 1.0);
  if (comm.rank() == 0) row[0] = std::numeric_limits<double>::quiet_NaN();  // feature 0 only
  cov.add(LocalRow::dense(row));
  EXPECT_THROW(cov.covariance_eigenvalues(), NumericError);
}

TEST(ExactCovariance, RejectsBadArguments) {
  const auto comm = test::world();
  const BlockPartition p(6, comm.size());
  EXPECT_THROW(ExactCovariance(comm, p, 0), InvalidArgument);
  EXPECT_THROW(ExactCovariance(comm, BlockPartition(6, comm.size() + 1)), InvalidArgument);
  ExactCovariance cov(comm, p);
  const std::vector<double> too_long(static_cast<std::size_t>(p.size(comm.rank()) + 1), 1.0);
  EXPECT_THROW(cov.add(LocalRow::dense(too_long)), InvalidArgument);
  const std::vector<index_t> outside = {p.size(comm.rank())};
  const std::vector<double> one = {1.0};
  EXPECT_THROW(cov.add(LocalRow::sparse(outside, one)), InvalidArgument);
  EXPECT_EQ(cov.rows_added(), 0);
  FrequentDirections other_dim(comm, 7, {2, false, false, 0.0});
  EXPECT_THROW((void)cov.evaluate(other_dim), InvalidArgument);
}
