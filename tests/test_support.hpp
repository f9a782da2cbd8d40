#pragma once
// Helpers shared by the tests: world communicator, small dense references computed with LAPACK,
// and slicing of global rows into a rank's block.
#include <mpi.h>

#include <ostream>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "adasketch/types.hpp"

namespace adasketch {
// Test messages and gtest's value printer show the enums by name.
inline std::ostream& operator<<(std::ostream& out, SketchKind v) { return out << to_string(v); }
inline std::ostream& operator<<(std::ostream& out, SketchForm v) { return out << to_string(v); }
inline std::ostream& operator<<(std::ostream& out, FormChoice v) { return out << to_string(v); }
inline std::ostream& operator<<(std::ostream& out, LossKind v) { return out << to_string(v); }
inline std::ostream& operator<<(std::ostream& out, EtaSchedule v) { return out << to_string(v); }
}  // namespace adasketch

namespace adasketch::test {

inline Communicator world() { return Communicator(MPI_COMM_WORLD); }
inline std::string data_path(const std::string& name) { return std::string(ADASKETCH_TEST_DATA_DIR) + "/" + name; }

/// A dense row-major n×d matrix held in full on every rank (tests use small sizes).
struct DenseMatrix {
  index_t n = 0, d = 0;
  std::vector<double> a;
  double& operator()(index_t i, index_t j) { return a[i * d + j]; }
  double operator()(index_t i, index_t j) const { return a[i * d + j]; }
};

/// The calling rank's slice [begin, end) of global row i.
std::vector<double> local_slice(const DenseMatrix& m, index_t i, const BlockPartition& p, int rank);
/// AᵀA (d×d row-major) with BLAS dsyrk, symmetrized.
std::vector<double> gram_of_columns(const DenseMatrix& m);
/// All eigenvalues of a symmetric d×d row-major matrix, descending (LAPACK dsyev).
std::vector<double> eigenvalues_desc(std::vector<double> sym, index_t d);
/// Max |a_i − b_i| / max(1, max |b_i|).
double relative_max_diff(const std::vector<double>& a, const std::vector<double>& b);
/// Reference Frequent Directions written straight from the RFD paper's Alg. 1–4, with a full LAPACK
/// SVD (dgesvd) of the R×d buffer at every shrink. Returns BᵀB (d×d) and α.
struct ReferenceFd {
  std::vector<double> btb;
  double alpha = 0.0;
};
ReferenceFd reference_frequent_directions(const DenseMatrix& a, index_t ell, bool fast, bool regularized, double alpha0);
/// Reference Oja sketch written straight from SON eq. (4) with Γ_t = diag(γ)/t, orthonormalizing with
/// Householder QR (LAPACK dgeqrf/dorgqr, R's diagonal positive) instead of the sketch's Cholesky QR,
/// from the data start OjaSketch documents (an empty row of V takes ĝ when ĝ's residual against the
/// rows set keeps more than `start_residual`·‖ĝ‖²). Returns S_n = (nΛ_n)^{1/2}V_n and Λ_n.
struct ReferenceOja {
  DenseMatrix s;
  std::vector<double> lambda;
};
ReferenceOja reference_oja(const DenseMatrix& a, index_t ell, const std::vector<double>& gamma, double start_residual);
/// Gaussian low-rank-plus-noise test matrix from std::mt19937_64 (independent of the library's RNG).
DenseMatrix random_low_rank(index_t n, index_t d, index_t rank, double noise, unsigned seed);

}  // namespace adasketch::test

namespace adasketch {
class Sketch;
}

namespace adasketch::test {
/// The whole B (R×d row-major) assembled on every rank from the ranks' blocks (collective).
DenseMatrix gather_sketch(const Sketch& sketch);
/// Feeds rows [0, a.n) of a dense matrix into the sketch, each rank passing its slice.
void feed_dense(Sketch& sketch, const DenseMatrix& a);
}  // namespace adasketch::test
