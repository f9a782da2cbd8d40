// Sparse rows at d = 10⁶, stepped one at a time: every rank holds the whole row (global indices)
// and RowSlicer cuts out its block. The sketch takes its sparse form, so a step costs time
// independent of d.
#include <mpi.h>

#include <adasketch/adasketch.hpp>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

namespace as = adasketch;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  try {
    const as::Communicator comm(MPI_COMM_WORLD);
    const as::index_t d = 1'000'000;
    const int n = 5000, nnz = 20;
    as::LearnerSpec spec;  // make_learner: a learner by its name, as `adasketch train --algo`
    spec.algorithm = "rp-son";
    spec.loss = as::LossKind::logistic;
    spec.ell = 20;
    const auto learner = as::make_learner(comm, d, spec);
    as::RowSlicer slicer(learner->partition(), comm.rank());

    std::mt19937_64 rng(42);  // the same rows on every rank
    std::uniform_int_distribution<as::index_t> common(0, 1999), feature(0, d - 1);
    std::normal_distribution<double> normal;
    std::vector<as::index_t> indices;
    std::vector<double> values;
    int mistakes = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      // Half the non-zeros on 2000 common features (which decide the label), half anywhere in d.
      std::set<as::index_t> support;
      while (static_cast<int>(support.size()) < nnz / 2) support.insert(common(rng));
      while (static_cast<int>(support.size()) < nnz) support.insert(feature(rng));
      indices.assign(support.begin(), support.end());
      values.clear();
      double score = 0.0;
      for (const as::index_t j : indices) {
        values.push_back(normal(rng));
        if (j < 2000) score += (j % 2 == 0 ? 1.0 : -1.0) * values.back();
      }
      const double label = score >= 0.0 ? 1.0 : -1.0;
      const bool mistake = learner->step(slicer.sparse(indices, values), label).mistake;
      if (i >= n / 2) mistakes += mistake ? 1 : 0;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (comm.rank() == 0)
      std::printf("%s (%s form), d = %lld on %d ranks: %d rows of %d non-zeros, %.1f µs each; online "
                  "mistakes over the second half %.3f\n",
                  learner->name().c_str(), as::to_string(learner->spec().form).c_str(), static_cast<long long>(d),
                  comm.size(), n, nnz, 1e6 * seconds / n, static_cast<double>(mistakes) / (n - n / 2));
    status = learner->spec().form == as::FormChoice::sparse && mistakes * 10 < 4 * (n - n / 2) ? 0 : 1;  // a guess: 1/2
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sparse: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
