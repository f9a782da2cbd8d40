// Sketches against independent dense computations (LAPACK SVD of the whole small A), their
// guarantees, and agreement across rank counts.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <stdexcept>

#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/error.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "adasketch/sketch/oja_sketch.hpp"
#include "adasketch/sketch/random_projection.hpp"
#include "test_support.hpp"

using namespace adasketch;
using test::DenseMatrix;

namespace {

struct FdVariant {
  SketchKind kind;
  bool fast, regularized;
};
const FdVariant kFdVariants[] = {{SketchKind::fd, false, false},
                                 {SketchKind::fast_fd, true, false},
                                 {SketchKind::rfd, false, true},
                                 {SketchKind::fast_rfd, true, true}};

std::unique_ptr<Sketch> make(const Communicator& comm, index_t d, SketchKind method, index_t ell, double alpha0 = 0.0,
                             std::uint64_t seed = 7) {
  return make_sketch(comm, d, SketchSpec{method, ell, seed, alpha0});
}

std::vector<double> btb(const Sketch& s) { return test::gram_of_columns(test::gather_sketch(s)); }

// AᵀA − BᵀB − αI as a dense d×d matrix.
std::vector<double> residual(const DenseMatrix& a, const Sketch& s) {
  auto e = test::gram_of_columns(a);
  const auto b = btb(s);
  for (std::size_t i = 0; i < e.size(); ++i) e[i] -= b[i];
  for (index_t i = 0; i < a.d; ++i) e[i * a.d + i] -= s.alpha();
  return e;
}

double tail_mass(const std::vector<double>& eig_desc, index_t k) {
  double t = 0.0;
  for (std::size_t i = static_cast<std::size_t>(k); i < eig_desc.size(); ++i) t += std::max(eig_desc[i], 0.0);
  return t;
}

}  // namespace

TEST(FrequentDirections, MatchesDenseSvdReferenceForEveryVariant) {
  const auto comm = test::world();
  for (index_t d : {17, 5}) {
    const auto a = test::random_low_rank(60, d, 4, 0.1, 11);
    for (const auto& v : kFdVariants)
      for (index_t ell : {1, 3, 5, 8}) {
        for (double alpha0 : {0.0, 0.5}) {
          auto s = make(comm, d, v.kind, ell, alpha0);
          test::feed_dense(*s, a);
          const auto ref = test::reference_frequent_directions(a, ell, v.fast, v.regularized, alpha0);
          EXPECT_LT(test::relative_max_diff(btb(*s), ref.btb), 1e-10) << v.kind << " ell=" << ell << " d=" << d;
          EXPECT_NEAR(s->alpha(), ref.alpha, 1e-10 * std::max(1.0, ref.alpha)) << v.kind << " ell=" << ell;
        }
      }
  }
}

TEST(FrequentDirections, GramIsTheGramOfTheStoredRows) {
  const auto comm = test::world();
  const auto a = test::random_low_rank(45, 13, 3, 0.2, 5);
  for (const auto& v : kFdVariants) {
    auto s = make(comm, a.d, v.kind, 4);
    for (index_t i = 0; i < a.n; ++i) {
      s->insert(LocalRow::dense(test::local_slice(a, i, s->partition(), comm.rank())));
      const auto b = test::gather_sketch(*s);
      // BBᵀ from the assembled rows, R×R
      std::vector<double> bbt(static_cast<std::size_t>(b.n * b.n), 0.0);
      for (index_t p = 0; p < b.n; ++p)
        for (index_t q = 0; q < b.n; ++q)
          for (index_t j = 0; j < b.d; ++j) bbt[p * b.n + q] += b(p, j) * b(q, j);
      const std::vector<double> gram(s->gram().begin(), s->gram().end());
      ASSERT_LT(test::relative_max_diff(gram, bbt), 1e-11) << v.kind << " after row " << i;
    }
  }
}

// FD: 0 ⪯ AᵀA − BᵀB and ‖AᵀA − BᵀB‖₂ ≤ ‖A − A_k‖²_F/(ℓ − k) for all k < ℓ; RFD: half of it
// (RFD paper Theorem 3; docs/design.md §2).
TEST(FrequentDirections, SatisfiesItsErrorBoundsOnLowRankData) {
  const auto comm = test::world();
  const auto a = test::random_low_rank(300, 40, 6, 0.3, 3);
  const auto spectrum = test::eigenvalues_desc(test::gram_of_columns(a), a.d);
  for (const auto& v : kFdVariants)
    for (index_t ell : {2, 5, 10, 20}) {
      auto s = make(comm, a.d, v.kind, ell);
      test::feed_dense(*s, a);
      const auto e = test::eigenvalues_desc(residual(a, *s), a.d);
      const double err = std::max(std::abs(e.front()), std::abs(e.back()));
      if (!v.regularized) {
        EXPECT_GE(e.back(), -1e-9 * spectrum.front()) << v.kind << " ell=" << ell;
        EXPECT_LE(err, static_cast<const FrequentDirections&>(*s).total_shrinkage() * (1 + 1e-9));
      }
      for (index_t k = 0; k < ell; ++k) {
        const double bound = tail_mass(spectrum, k) / static_cast<double>(ell - k) / (v.regularized ? 2.0 : 1.0);
        EXPECT_LE(err, bound * (1 + 1e-9) + 1e-9) << v.kind << " ell=" << ell << " k=" << k;
      }
    }
}

TEST(FrequentDirections, RegularizedErrorIsBelowPlainFd) {
  const auto comm = test::world();
  const auto a = test::random_low_rank(400, 30, 5, 0.5, 9);
  for (index_t ell : {3, 6, 10}) {
    for (bool fast : {false, true}) {
      auto fd = make(comm, a.d, fast ? SketchKind::fast_fd : SketchKind::fd, ell);
      auto rfd = make(comm, a.d, fast ? SketchKind::fast_rfd : SketchKind::rfd, ell);
      test::feed_dense(*fd, a);
      test::feed_dense(*rfd, a);
      const auto e_fd = test::eigenvalues_desc(residual(a, *fd), a.d);
      const auto e_rfd = test::eigenvalues_desc(residual(a, *rfd), a.d);
      const double err_fd = std::max(std::abs(e_fd.front()), std::abs(e_fd.back()));
      const double err_rfd = std::max(std::abs(e_rfd.front()), std::abs(e_rfd.back()));
      EXPECT_LT(err_rfd, err_fd) << "ell=" << ell << " fast=" << fast;
      // RFD's α is half of FD's total shrinkage and BᵀB is the same: ‖E_RFD‖ ≤ ‖E_FD‖ − α ... ≥ half.
      EXPECT_NEAR(rfd->alpha(), static_cast<const FrequentDirections&>(*fd).total_shrinkage() / 2.0,
                  1e-9 * (1.0 + rfd->alpha()));
    }
  }
}

// Runs a sketch on MPI_COMM_SELF (1-rank reference, computed in the same run) and on the world
// communicator, and compares their Grams and BᵀB.
void expect_rank_independent(SketchKind method, const DenseMatrix& a, index_t ell) {
  const auto world = test::world();
  const Communicator self(MPI_COMM_SELF);
  auto ref = make(self, a.d, method, ell, 0.0, 99);
  auto dist = make(world, a.d, method, ell, 0.0, 99);
  for (index_t i = 0; i < a.n; ++i) {
    for (Sketch* s : {ref.get(), dist.get()}) {
      const int rank = s->comm().rank();
      s->insert(LocalRow::dense(test::local_slice(a, i, s->partition(), rank)));
    }
  }
  const std::vector<double> g_ref(ref->gram().begin(), ref->gram().end()), g(dist->gram().begin(), dist->gram().end());
  EXPECT_LT(test::relative_max_diff(g, g_ref), 1e-10) << method;
  EXPECT_LT(test::relative_max_diff(btb(*dist), btb(*ref)), 1e-10) << method;
  EXPECT_NEAR(dist->alpha(), ref->alpha(), 1e-10 * (1.0 + ref->alpha())) << method;
}

TEST(Sketches, SameResultAtEveryRankCount) {
  const auto a = test::random_low_rank(80, 23, 4, 0.2, 21);
  for (const SketchKind m :
       {SketchKind::fd, SketchKind::fast_fd, SketchKind::rfd, SketchKind::fast_rfd, SketchKind::rp, SketchKind::oja})
    expect_rank_independent(m, a, 5);
}

TEST(Sketches, SparseRowsGiveTheSameSketchAsDense) {
  auto a = test::random_low_rank(50, 19, 3, 0.1, 8);
  for (index_t i = 0; i < a.n; ++i)
    for (index_t j = 0; j < a.d; ++j)
      if ((i + 2 * j) % 3 != 0) a(i, j) = 0.0;
  for (const SketchKind m : {SketchKind::fd, SketchKind::fast_rfd, SketchKind::rp, SketchKind::oja}) {
    const auto world = test::world();
    auto dense = make(world, a.d, m, 4, 0.0, 5), sparse = make(world, a.d, m, 4, 0.0, 5);
    test::feed_dense(*dense, a);
    for (index_t i = 0; i < a.n; ++i) {
      const auto slice = test::local_slice(a, i, sparse->partition(), world.rank());
      std::vector<index_t> idx;
      std::vector<double> val;
      for (std::size_t j = 0; j < slice.size(); ++j)
        if (slice[j] != 0.0) {
          idx.push_back(static_cast<index_t>(j));
          val.push_back(slice[j]);
        }
      sparse->insert(LocalRow::sparse(idx, val));
    }
    EXPECT_LT(test::relative_max_diff(btb(*sparse), btb(*dense)), 1e-12) << m;
  }
}

TEST(Sketches, EdgeCasesAgreeWithDenseReference) {
  const auto comm = test::world();
  // ℓ ≥ d: FD keeps A exactly (BᵀB = AᵀA), for d not divisible by P and P > d.
  for (index_t d : {1, 2, 4, 7}) {
    const auto a = test::random_low_rank(12, d, std::min<index_t>(d, 2), 0.3, 4);
    for (const auto& v : kFdVariants) {
      auto s = make(comm, d, v.kind, d + 1);
      test::feed_dense(*s, a);
      EXPECT_LT(test::relative_max_diff(btb(*s), test::gram_of_columns(a)), 1e-11) << v.kind << " d=" << d;
      double trace = 0.0;
      for (double x : a.a) trace += x * x;
      EXPECT_LE(s->alpha(), 1e-13 * trace);  // λ_ℓ = 0 up to round-off
    }
  }
  // All-zero rows, repeated rows and a single row.
  DenseMatrix zeros{5, 6, std::vector<double>(30, 0.0)};
  DenseMatrix repeated = test::random_low_rank(1, 6, 1, 0.0, 2);
  DenseMatrix single = repeated;
  for (int r = 0; r < 9; ++r) repeated.a.insert(repeated.a.end(), single.a.begin(), single.a.end());
  repeated.n = 10;
  for (const DenseMatrix* a : {&zeros, &repeated, &single})
    for (const auto& v : kFdVariants) {
      auto s = make(comm, a->d, v.kind, 3);
      test::feed_dense(*s, *a);
      const auto ref = test::reference_frequent_directions(*a, 3, v.fast, v.regularized, 0.0);
      EXPECT_LT(test::relative_max_diff(btb(*s), ref.btb), 1e-11) << v.kind << " n=" << a->n;
      // A rank-one stream is kept exactly.
      EXPECT_LT(test::relative_max_diff(btb(*s), test::gram_of_columns(*a)), 1e-11) << v.kind;
    }
  for (const SketchKind m : {SketchKind::rp, SketchKind::oja}) {
    auto s = make(comm, 6, m, 3);
    test::feed_dense(*s, zeros);
    for (double g : s->gram()) EXPECT_EQ(g, 0.0) << m;
  }
}

TEST(Sketches, RejectBadArguments) {
  const auto comm = test::world();
  EXPECT_THROW(make(comm, 10, SketchKind::fd, 0), InvalidArgument);
  EXPECT_THROW(make(comm, 10, SketchKind::fast_rfd, -2), InvalidArgument);
  EXPECT_THROW(from_string<SketchKind>("svd"), InvalidArgument);
  EXPECT_THROW(make(comm, 0, SketchKind::fd, 3), InvalidArgument);
  EXPECT_THROW(make(comm, 3, SketchKind::oja, 4), InvalidArgument);  // orthonormal rows need ℓ ≤ d
  EXPECT_THROW(make(comm, 10, SketchKind::rfd, 3, -1.0), InvalidArgument);
  // 4 buffer rows × 2^62 features wrap to 0 in int64: the vector's own error instead.
  EXPECT_THROW(make(comm, index_t{1} << 62, SketchKind::fast_fd, 2), std::length_error);
  auto s = make(comm, 4, SketchKind::fd, 2);
  std::vector<double> bad(static_cast<std::size_t>(s->local_dim()), std::numeric_limits<double>::quiet_NaN());
  // Every rank sees the NaN in ‖a‖² after the reduction unless its slice is empty on all ranks.
  EXPECT_THROW(s->insert(LocalRow::dense(bad)), NumericError);
  std::vector<double> wrong_size(static_cast<std::size_t>(s->local_dim() + 1), 1.0);
  EXPECT_THROW(s->insert(LocalRow::dense(wrong_size)), InvalidArgument);
}

// E[SᵀS] = AᵀA for the Gaussian projection (r_t ~ N(0, I/ℓ)); averaged over seeds.
TEST(RandomProjection, IsUnbiasedOverSeeds) {
  const auto comm = test::world();
  const auto a = test::random_low_rank(8, 5, 2, 0.2, 6);
  const auto ata = test::gram_of_columns(a);
  std::vector<double> mean(ata.size(), 0.0);
  const int seeds = 400;
  for (int seed = 1; seed <= seeds; ++seed) {
    RandomProjection s(comm, a.d, RandomProjectionOptions{4, static_cast<std::uint64_t>(seed), 0});
    test::feed_dense(s, a);
    const auto b = btb(s);
    for (std::size_t i = 0; i < b.size(); ++i) mean[i] += b[i] / seeds;
  }
  EXPECT_LT(test::relative_max_diff(mean, ata), 0.1);
}

namespace {

// max |V Vᵀ − I| over the first `rows` rows of the gathered S = diag(sqrt(tΛ)) V.
double orthonormality_error(const DenseMatrix& s, index_t rows) {
  double err = 0.0;
  for (index_t i = 0; i < rows; ++i)
    for (index_t k = 0; k < rows; ++k) {
      double dot = 0.0, ni = 0.0, nk = 0.0;
      for (index_t j = 0; j < s.d; ++j) {
        dot += s(i, j) * s(k, j);
        ni += s(i, j) * s(i, j);
        nk += s(k, j) * s(k, j);
      }
      err = std::max(err, std::abs(dot / std::sqrt(ni * nk) - (i == k ? 1.0 : 0.0)));
    }
  return err;
}

}  // namespace

TEST(OjaSketch, MatchesDenseEquation4) {
  const auto comm = test::world();
  const auto a = test::random_low_rank(40, 9, 3, 0.2, 12);
  const index_t ell = 3, d = a.d;
  OjaSketch s(comm, d, OjaSketchOptions{ell, {1.0}, 0});
  test::feed_dense(s, a);
  const auto ref = test::reference_oja(a, ell, std::vector<double>(ell, 1.0), OjaSketch::kStartResidual);
  EXPECT_LT(test::relative_max_diff(btb(s), test::gram_of_columns(ref.s)), 1e-9);
  for (index_t i = 0; i < ell; ++i) EXPECT_NEAR(s.eigenvalues()[i], ref.lambda[i], 1e-9 * (1 + ref.lambda[i]));
}

// Rows with huge, widely varying norms (ill-conditioned columns, as SON's ĝ = sqrt(η_t + η_t/σ) g on
// badly scaled data): γ_t‖ĝ‖² up to 1e8 makes the rows of V + Γ_t V ĝ ĝᵀ nearly parallel, where one
// Cholesky QR of the updated Gram leaves V far from orthonormal. The dense form stays orthonormal
// and equals the Householder-QR reference after each of the first steps and at the end.
TEST(OjaSketch, StaysOrthonormalOnHugeRows) {
  const auto comm = test::world();
  const index_t d = 30, n = 200, ell = 5;
  DenseMatrix a{n, d, std::vector<double>(static_cast<std::size_t>(n * d))};
  std::mt19937_64 gen(41);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> exponent(0.0, 4.0);
  for (index_t t = 0; t < n; ++t) {
    const double scale = std::pow(10.0, exponent(gen));  // ‖ĝ‖ from about 1 to 1e4·‖column scales‖
    for (index_t j = 0; j < d; ++j)
      a(t, j) = scale * normal(gen) * std::pow(10.0, -2.0 * static_cast<double>(j) / static_cast<double>(d - 1));
  }
  OjaSketch s(comm, d, OjaSketchOptions{ell, {}, 0, SketchForm::dense});
  index_t fed = 0;
  for (const index_t upto : {1, 2, 3, 5, 8, 13, 40, 120, 200}) {
    test::feed_dense(s, DenseMatrix{upto - fed, d, {a.a.begin() + fed * d, a.a.begin() + upto * d}});
    fed = upto;
    const auto ref = test::reference_oja(DenseMatrix{upto, d, {a.a.begin(), a.a.begin() + upto * d}}, ell,
                                         std::vector<double>(ell, 1.0), OjaSketch::kStartResidual);
    const auto sk = test::gather_sketch(s);
    // Independent rows (Gaussian entries): the data start has set one row per step up to ℓ.
    ASSERT_EQ(s.started_rows(), std::min(upto, ell)) << "t=" << upto;
    EXPECT_LT(orthonormality_error(sk, s.started_rows()), 1e-12) << "t=" << upto;
    // Forward errors of u·κ(V') with κ up to γ_1‖ĝ‖² ≈ 1e8, in the reference as in the sketch.
    EXPECT_LT(test::relative_max_diff(test::gram_of_columns(sk), test::gram_of_columns(ref.s)), 1e-7) << "t=" << upto;
    for (index_t i = 0; i < ell; ++i)
      EXPECT_NEAR(s.eigenvalues()[i], ref.lambda[i], 1e-7 * ref.lambda[i]) << "t=" << upto << " i=" << i;
  }
}

// The FD and RFD guarantees on real data: the first 10,000 rows of a9a (sparse, d = 123; the driver
// test covers all 32,561), each sketch fed from the distributed reader, checked against the dense
// AᵀA assembled in the test.
TEST(FrequentDirections, SatisfiesItsErrorBoundsOnA9a) {
  const auto comm = test::world();
  LibsvmReader reader(comm, test::data_path("a9a.gz"));
  const index_t d = reader.dim();
  const index_t begin = reader.partition().begin(comm.rank());
  DenseMatrix a{0, d, {}};
  std::vector<double> row(static_cast<std::size_t>(d));
  Example ex;
  std::vector<std::unique_ptr<Sketch>> sketches;
  const index_t ells[] = {5, 10, 20};
  for (const auto& v : kFdVariants)
    for (index_t ell : ells) sketches.push_back(make(comm, d, v.kind, ell));
  while (a.n < 10000 && reader.next(ex)) {
    for (auto& s : sketches) s->insert(ex.row());
    std::fill(row.begin(), row.end(), 0.0);
    for (std::size_t k = 0; k < ex.indices.size(); ++k) row[begin + ex.indices[k]] = ex.values[k];
    comm.allreduce_sum(row);
    a.a.insert(a.a.end(), row.begin(), row.end());
    ++a.n;
  }
  ASSERT_EQ(a.n, 10000);
  const auto spectrum = test::eigenvalues_desc(test::gram_of_columns(a), d);
  std::size_t next = 0;
  for (const auto& v : kFdVariants)
    for (index_t ell : ells) {
      const Sketch& s = *sketches[next++];
      const auto e = test::eigenvalues_desc(residual(a, s), d);
      const double err = std::max(std::abs(e.front()), std::abs(e.back()));
      if (!v.regularized) {
        EXPECT_GE(e.back(), -1e-9 * spectrum.front()) << v.kind << " ell=" << ell;
      }
      for (index_t k = 0; k < ell; ++k)
        EXPECT_LE(err, tail_mass(spectrum, k) / static_cast<double>(ell - k) / (v.regularized ? 2.0 : 1.0) * (1 + 1e-9))
            << v.kind << " ell=" << ell << " k=" << k;
      if (v.regularized) {
        // RFD's error is below its FD twin's (same buffer), by about half (RFD paper §5.1, Figure 1).
        const Sketch& fd = *sketches[next - 1 - 2 * std::size(ells)];
        const auto e_fd = test::eigenvalues_desc(residual(a, fd), d);
        EXPECT_LT(err, 0.55 * std::max(std::abs(e_fd.front()), std::abs(e_fd.back()))) << v.kind << " ell=" << ell;
      }
    }
}

// The learners' lazy bookkeeping: products Y·z and coefficients of w = w̄ + Yᵀc carried through an
// insertion (update_product, update_coefficients) equal a recomputation from the new stored rows.
TEST(Sketches, CarryProductsAndCoefficientsThroughInsertions) {
  const auto comm = test::world();
  const auto a = test::random_low_rank(40, 11, 3, 0.3, 31);
  std::mt19937_64 gen(5);  // the same stream on every rank
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const SketchKind m :
       {SketchKind::fd, SketchKind::fast_fd, SketchKind::fast_rfd, SketchKind::rp, SketchKind::oja}) {
    auto s = make(comm, a.d, m, 3, 0.0, 4);
    const index_t R = s->basis_rows(), dp = s->local_dim(), begin = s->partition().begin(comm.rank());
    std::vector<double> z(static_cast<std::size_t>(a.d)), yz(static_cast<std::size_t>(R)), fresh(yz.size());
    std::vector<double> c(yz.size()), before(static_cast<std::size_t>(dp)), after(before.size());
    int folds = 0;
    for (index_t t = 0; t < a.n; ++t) {
      for (auto& v : z) v = normal(gen);
      for (auto& v : c) v = normal(gen);
      const bool restructures = s->next_insert_restructures();
      if (restructures) {
        std::fill(c.begin(), c.end(), 0.0);  // the learner folds Yᵀc into w̄ first
        ++folds;
      }
      const std::vector<double> zl(z.begin() + begin, z.begin() + begin + dp);
      std::fill(yz.begin(), yz.end(), 0.0);
      s->add_local_product(LocalRow::dense(zl), yz);
      comm.allreduce_sum(yz);
      std::fill(before.begin(), before.end(), 0.0);
      s->add_local_transpose_product(c, before);
      double az = 0.0;
      for (index_t j = 0; j < a.d; ++j) az += a(t, j) * z[j];
      const auto row = test::local_slice(a, t, s->partition(), comm.rank());
      s->insert(LocalRow::dense(row));

      s->update_product(yz, az);
      std::fill(fresh.begin(), fresh.end(), 0.0);
      s->add_local_product(LocalRow::dense(zl), fresh);
      comm.allreduce_sum(fresh);
      ASSERT_LT(test::relative_max_diff(yz, fresh), 1e-10) << m << " t=" << t;

      std::fill(after.begin(), after.end(), 0.0);
      const double beta = s->update_coefficients(c, after, 1);  // adds the retired rows r
      s->add_local_transpose_product(c, after);
      for (index_t j = 0; j < dp; ++j) after[j] += beta * row[j];
      ASSERT_LT(test::relative_max_diff(after, before), 1e-10) << m << " t=" << t;
    }
    if (m != SketchKind::rp && m != SketchKind::oja) {
      EXPECT_GT(folds, 0) << m;
    }
  }
}
