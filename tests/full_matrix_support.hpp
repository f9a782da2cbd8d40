#pragma once
// Shared by the exact learners' tests (test_full_matrix.cpp, test_full_matrix_resume.cpp): data held in
// full on every rank, a rank's dense or sparse slice of an example, the weights gathered on every
// rank, and the process grids to try at the current rank count.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "adasketch/learners/learner.hpp"
#include "test_support.hpp"

namespace adasketch::test {

/// n examples of dimension d (about `density` of the entries nonzero, scaled so that ‖x‖ ≈ scale),
/// labels ±1 from a random linear rule, and classes 0..2 from three.
struct FullData {
  DenseMatrix x;
  std::vector<double> binary, classes;
};

inline FullData make_full_data(index_t n, index_t d, unsigned seed, double density = 1.0, double scale = 1.0) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  FullData data{DenseMatrix{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)}, {}, {}};
  std::vector<double> truth(static_cast<std::size_t>(3 * d));
  for (double& v : truth) v = normal(gen);
  const double entry = scale / std::sqrt(density * static_cast<double>(d));
  for (index_t i = 0; i < n; ++i) {
    double s[3] = {0.0, 0.0, 0.0};
    for (index_t j = 0; j < d; ++j) {
      if (unit(gen) >= density) continue;
      data.x(i, j) = entry * normal(gen);
      for (int k = 0; k < 3; ++k) s[k] += truth[static_cast<std::size_t>(k * d + j)] * data.x(i, j);
    }
    data.binary.push_back(s[0] + 0.3 * entry * normal(gen) >= 0.0 ? 1.0 : -1.0);
    int best = 0;
    for (int k = 1; k < 3; ++k)
      if (s[k] > s[best]) best = k;
    data.classes.push_back(best);
  }
  return data;
}

/// The calling rank's part of row i, dense or sparse (local indices of the nonzeros).
struct Slice {
  std::vector<index_t> idx;
  std::vector<double> val;
  bool dense = true;
  LocalRow row() const { return dense ? LocalRow::dense(val) : LocalRow::sparse(idx, val); }
};

inline Slice slice_of(const DenseMatrix& m, index_t i, const BlockPartition& p, int rank, bool dense) {
  Slice e;
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

inline std::vector<double> row_of(const DenseMatrix& m, index_t i) {
  return std::vector<double>(m.a.begin() + i * m.d, m.a.begin() + (i + 1) * m.d);
}

/// Steps the learner through examples [from, to), row i dense when i is even and sparse when odd.
/// Returns the step losses.
inline std::vector<double> run_examples(Learner& learner, const FullData& data, index_t from, index_t to) {
  const bool softmax = learner.loss().kind() == LossKind::softmax;
  std::vector<double> losses;
  for (index_t i = from; i < to; ++i) {
    const Slice e = slice_of(data.x, i, learner.partition(), learner.comm().rank(), i % 2 == 0);
    losses.push_back(learner.step(e.row(), softmax ? data.classes[i] : data.binary[i]).loss);
  }
  return losses;
}

/// The whole W (d × K, feature-major) on every rank of the learner's communicator.
inline std::vector<double> all_weights(const Learner& learner) {
  const auto& p = learner.partition();
  const auto K = static_cast<index_t>(learner.outputs());
  std::vector<double> local(static_cast<std::size_t>(learner.local_dim() * K));
  learner.weights(local);
  std::vector<double> w(static_cast<std::size_t>(p.dim() * K), 0.0);
  std::copy(local.begin(), local.end(), w.begin() + p.begin(learner.comm().rank()) * K);
  learner.comm().allreduce_sum(w);
  return w;
}

/// The process-grid rows to try at P ranks: 1×P and P×1 (both are not square for P = 2, 3).
inline std::vector<int> grid_rows_cases(int P) { return P == 1 ? std::vector<int>{1} : std::vector<int>{1, P}; }

/// The first `size` ranks of MPI_COMM_WORLD (MPI_COMM_NULL on the others).
struct SubComm {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit SubComm(int size) {
    check_mpi(MPI_Comm_split(MPI_COMM_WORLD, world().rank() < size ? 0 : MPI_UNDEFINED, world().rank(), &comm),
              "MPI_Comm_split");
  }
  ~SubComm() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  SubComm(const SubComm&) = delete;
  SubComm& operator=(const SubComm&) = delete;
};

}  // namespace adasketch::test
