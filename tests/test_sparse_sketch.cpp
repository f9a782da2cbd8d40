// The sparse form of every sketch (SketchForm::sparse) against its dense form, which the other
// sketch tests check against LAPACK references: the same BᵀB, Gram and α after every insertion,
// on sparse rows with random supports (many shrinks deferred over many epochs, Oja's rebases), and
// the lazy-weight bookkeeping (update_product, update_coefficients, deferred folds) against a
// recomputation from the stored rows.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "adasketch/sketch/oja_sketch.hpp"
#include "test_support.hpp"

using namespace adasketch;
using test::DenseMatrix;

namespace {

const SketchKind kMethods[] = {SketchKind::fd, SketchKind::fast_fd, SketchKind::rfd,
                               SketchKind::fast_rfd, SketchKind::rp, SketchKind::oja};

// max_growth = 1 makes the sparse Oja sketch rebase at (nearly) every step (the other sketches
// have no such threshold).
std::unique_ptr<Sketch> make(const Communicator& comm, index_t d, SketchKind method, index_t ell, SketchForm form,
                             double max_growth = 1e4) {
  const bool regularized = method == SketchKind::rfd || method == SketchKind::fast_rfd;
  if (max_growth != 1e4 && method == SketchKind::oja) {
    OjaSketchOptions o;
    o.ell = ell;
    o.form = form;
    o.max_growth = max_growth;
    return std::make_unique<OjaSketch>(comm, d, o);
  }
  SketchSpec spec;
  spec.kind = method;
  spec.ell = ell;
  spec.seed = 3;
  spec.alpha0 = regularized ? 0.5 : 0.0;
  spec.form = form;
  return make_sketch(comm, d, spec);
}

// n rows of dimension d with `nnz` non-zeros each at random positions (from std::mt19937_64, the
// same on every rank), plus, when `shared` > 0, features 0..shared−1 in every row: with them the
// new rows overlap the sketch's directions, without them they are (nearly) orthogonal to it.
DenseMatrix sparse_rows(index_t n, index_t d, index_t nnz, index_t shared, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<index_t> feature(0, d - 1);
  DenseMatrix m{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)};
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = 0; k < nnz; ++k) m(i, feature(gen)) = normal(gen);
    for (index_t j = 0; j < shared; ++j) m(i, j) = 0.3 * normal(gen);
  }
  return m;
}

// The calling rank's slice of row i as a sparse LocalRow (indices/values kept in the vectors).
LocalRow sparse_slice(const DenseMatrix& a, index_t i, const BlockPartition& p, int rank, std::vector<index_t>& idx,
                      std::vector<double>& val) {
  idx.clear();
  val.clear();
  for (index_t j = p.begin(rank); j < p.end(rank); ++j)
    if (a(i, j) != 0.0) {
      idx.push_back(j - p.begin(rank));
      val.push_back(a(i, j));
    }
  return LocalRow::sparse(idx, val);
}

double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (const double x : v) m = std::max(m, std::abs(x));
  return m;
}

// ‖X − Y‖_max / max(‖Y‖_max, floor).
double relative(const std::vector<double>& x, const std::vector<double>& y, double floor = 0.0) {
  double diff = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) diff = std::max(diff, std::abs(x[i] - y[i]));
  return diff / std::max(max_abs(y), floor);
}

std::vector<double> btb(const Sketch& s) { return test::gram_of_columns(test::gather_sketch(s)); }

index_t rebases(const Sketch& s) { return s.rebases(); }

}  // namespace

TEST(SparseSketch, MatchesTheDenseFormRowByRow) {
  const auto comm = test::world();
  struct Case {
    index_t d, nnz, shared;
  };
  // Disjoint supports (the new rows are orthogonal to the sketch: SON's N₁ would be singular),
  // overlapping supports, and a small d where every row is dense on most ranks.
  // max_growth = 1: Oja rebases at (nearly) every step.
  struct Variant {
    Case data;
    double max_growth;
  };
  for (const Variant v : {Variant{{200, 3, 0}, 1e4}, Variant{{120, 4, 3}, 1e4}, Variant{{9, 5, 0}, 1e4},
                          Variant{{120, 4, 3}, 1.0}}) {
    const Case k = v.data;
    const auto a = sparse_rows(120, k.d, k.nnz, k.shared, 17);
    for (const SketchKind method : kMethods) {
      for (const index_t ell : {3, 5}) {
        auto dense = make(comm, k.d, method, ell, SketchForm::dense);
        auto sparse = make(comm, k.d, method, ell, SketchForm::sparse, v.max_growth);
        std::vector<index_t> idx;
        std::vector<double> val;
        for (index_t t = 0; t < a.n; ++t) {
          const auto slice = test::local_slice(a, t, dense->partition(), comm.rank());
          dense->insert(LocalRow::dense(slice));
          sparse->insert(sparse_slice(a, t, sparse->partition(), comm.rank(), idx, val));
          if (t % 7 != 6 && t + 1 != a.n) continue;
          const auto b_dense = btb(*dense), b_sparse = btb(*sparse);
          const std::vector<double> g_dense(dense->gram().begin(), dense->gram().end());
          const std::vector<double> g_sparse(sparse->gram().begin(), sparse->gram().end());
          ASSERT_LT(relative(b_sparse, b_dense), 1e-10) << method << " ell=" << ell << " d=" << k.d << " t=" << t;
          // The Gram BBᵀ is fixed only up to a rotation of B's rows (FD's rows are eigenvectors, and
          // near-ties rotate freely): compare its spectrum, which is that of BᵀB.
          const auto e_dense = test::eigenvalues_desc(g_dense, dense->rows());
          const auto e_sparse = test::eigenvalues_desc(g_sparse, sparse->rows());
          ASSERT_LT(relative(e_sparse, e_dense, 1e-300), 1e-9) << method << " ell=" << ell << " t=" << t;
          ASSERT_NEAR(sparse->alpha(), dense->alpha(), 1e-12 * std::max(1.0, dense->alpha())) << method;
        }
        if (v.max_growth == 1.0 && method == SketchKind::oja) {
          EXPECT_GT(rebases(*sparse), 0) << method;
        }
      }
    }
  }
}

// As Sketches.CarryProductsAndCoefficientsThroughInsertions, for the sparse forms and sparse rows:
// Z_new z from update_product equals a fresh Z_new z, and w̄ + Z_oldᵀc = w̄' + Z_newᵀc' + β a.
TEST(SparseSketch, CarriesProductsAndCoefficientsThroughInsertions) {
  const auto comm = test::world();
  std::mt19937_64 gen(5);  // the same stream on every rank
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const index_t shared : {0, 3, -3}) {  // -3: shared features and Oja's rebases at every step
    const auto a = sparse_rows(90, 60, 4, std::abs(shared), 23);
    for (const SketchKind method : kMethods) {
      auto s = make(comm, a.d, method, 3, SketchForm::sparse, shared < 0 ? 1.0 : 1e4);
      const index_t Rz = s->basis_rows(), dp = s->local_dim(), begin = s->partition().begin(comm.rank());
      std::vector<double> z(static_cast<std::size_t>(a.d)), zz(static_cast<std::size_t>(Rz)), fresh(zz.size());
      std::vector<double> c(zz.size()), before(static_cast<std::size_t>(dp)), after(before.size());
      std::vector<index_t> idx;
      std::vector<double> val;
      for (index_t t = 0; t < a.n; ++t) {
        for (auto& v : z) v = normal(gen);
        // A learner changes c only by Mᵀv (and update_coefficients), so c is 0 on the stored rows
        // that M does not use (the rows the last insertion retired, erased at the next).
        std::vector<double> v(static_cast<std::size_t>(s->rows()));
        for (auto& x : v) x = normal(gen);
        s->mix_transpose(v, c);
        if (s->next_insert_restructures()) std::fill(c.begin(), c.end(), 0.0);  // the learner folds
        const std::vector<double> zl(z.begin() + begin, z.begin() + begin + dp);
        std::fill(zz.begin(), zz.end(), 0.0);
        s->add_local_product(LocalRow::dense(zl), zz);
        comm.allreduce_sum(zz);
        std::fill(before.begin(), before.end(), 0.0);
        s->add_local_transpose_product(c, before);
        double az = 0.0;
        for (index_t j = 0; j < a.d; ++j) az += a(t, j) * z[j];
        const LocalRow row = sparse_slice(a, t, s->partition(), comm.rank(), idx, val);
        s->insert(row);

        s->update_product(zz, az);
        std::fill(fresh.begin(), fresh.end(), 0.0);
        s->add_local_product(LocalRow::dense(zl), fresh);
        comm.allreduce_sum(fresh);
        ASSERT_LT(test::relative_max_diff(zz, fresh), 1e-10) << method << " t=" << t;

        std::fill(after.begin(), after.end(), 0.0);
        const double beta = s->update_coefficients(c, after, 1);
        s->add_local_transpose_product(c, after);
        for (std::size_t k = 0; k < idx.size(); ++k) after[static_cast<std::size_t>(idx[k])] += beta * val[k];
        ASSERT_LT(test::relative_max_diff(after, before), 1e-10) << method << " t=" << t;
        // B = M Z: mix() of a fresh Z z is B z from the explicit block.
        const auto b = test::gather_sketch(*s);
        std::vector<double> bz(static_cast<std::size_t>(s->rows()), 0.0), mixed(bz.size());
        for (index_t i = 0; i < s->rows(); ++i)
          for (index_t j = 0; j < a.d; ++j) bz[i] += b(i, j) * z[j];
        s->mix(fresh, mixed);
        ASSERT_LT(test::relative_max_diff(mixed, bz), 1e-10) << method << " t=" << t;
      }
    }
  }
}

// Columns of more than 64 entries (fast FD with ℓ = 40: R = 80) list their non-zero entries without
// the bit mask (apply_block's other path). The forms differ by the association of T shrinks, each a
// backward stable eigendecomposition and a contraction applied to B: ‖ΔBᵀB‖ ≤ T·R·u·‖BᵀB‖ times a
// small factor; 16 is taken.
TEST(SparseSketch, MatchesTheDenseFormWithMoreThan64Rows) {
  const auto comm = test::world();
  const index_t ell = 40, d = 300;
  const auto a = sparse_rows(250, d, 5, 3, 29);
  for (const SketchKind method : {SketchKind::fast_fd, SketchKind::fast_rfd}) {
    auto dense = make(comm, d, method, ell, SketchForm::dense);
    auto sparse = make(comm, d, method, ell, SketchForm::sparse);
    ASSERT_GT(sparse->rows(), 64);
    std::vector<index_t> idx;
    std::vector<double> val;
    for (index_t t = 0; t < a.n; ++t) {
      dense->insert(LocalRow::dense(test::local_slice(a, t, dense->partition(), comm.rank())));
      sparse->insert(sparse_slice(a, t, sparse->partition(), comm.rank(), idx, val));
    }
    const auto& fd = dynamic_cast<const FrequentDirections&>(*sparse);
    ASSERT_GE(fd.shrinks(), 5);
    const double tolerance = 16.0 * static_cast<double>(fd.shrinks() * sparse->rows()) * 0x1p-53;
    EXPECT_LT(relative(btb(*sparse), btb(*dense)), tolerance) << method;
  }
}

// FrequentDirectionsOptions::border_gram: the shrink decomposes the Gram by bordering, a function of
// the Gram alone, so the sketch is the same bit for bit whether or not a caller bordered the Gram in
// gram_eigen() after every insertion (fast ADA-FD does; a run resumed from a checkpoint starts
// without it), and the default shrink (dsyevd) gives it to the backward error of the shrinks:
// T shrinks of up to ℓ + 2 borderings each, ‖ΔBᵀB‖ ≤ T·(ℓ + 2)·R·u·‖BᵀB‖ times a small factor (16).
TEST(SparseSketch, BorderedShrinkIsAFunctionOfTheGram) {
  const auto comm = test::world();
  const index_t d = 150;
  const auto a = sparse_rows(200, d, 4, 3, 31);
  for (const index_t ell : {3, 8}) {
    for (const bool regularized : {false, true}) {
      FrequentDirectionsOptions o;
      o.ell = ell;
      o.fast = true;
      o.regularized = regularized;
      o.alpha0 = regularized ? 0.5 : 0.0;
      o.form = SketchForm::sparse;
      FrequentDirections plain(comm, d, o);
      o.border_gram = true;
      FrequentDirections alone(comm, d, o), followed(comm, d, o);
      std::vector<index_t> idx;
      std::vector<double> val;
      for (index_t t = 0; t < a.n; ++t) {
        for (FrequentDirections* s : {&plain, &alone, &followed})
          s->insert(sparse_slice(a, t, s->partition(), comm.rank(), idx, val));
        if (followed.last_appended_row() >= 0) followed.gram_eigen().compute_bordered(followed.gram());
      }
      ASSERT_GE(plain.shrinks(), 10);
      const auto b_alone = test::gather_sketch(alone), b_followed = test::gather_sketch(followed);
      EXPECT_EQ(b_alone.a, b_followed.a) << "ell=" << ell;
      EXPECT_EQ(alone.alpha(), followed.alpha());
      const double tolerance =
          16.0 * static_cast<double>(plain.shrinks() * (ell + 2) * plain.rows()) * 0x1p-53;
      EXPECT_LT(relative(btb(alone), btb(plain)), tolerance) << "ell=" << ell;
      EXPECT_NEAR(alone.alpha(), plain.alpha(), tolerance * std::max(1.0, plain.alpha()));
    }
  }
}
