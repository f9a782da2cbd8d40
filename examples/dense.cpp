// Dense examples a code already holds, each rank the columns of its own block of features, trained
// with train() (the same loop as `adasketch train`: progress, checkpoints and stop requests work).
#include <mpi.h>

#include <adasketch/adasketch.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

namespace as = adasketch;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  try {
    const as::Communicator comm(MPI_COMM_WORLD);  // any communicator of the caller's
    const as::index_t d = 400, n = 4000;
    const as::BlockPartition features(d, comm.size());  // or BlockPartition::from_local_sizes(comm, mine)
    const as::index_t begin = features.begin(comm.rank()), local = features.size(comm.rank());

    // Example i is a noisy field over d points; its label is the sign of a fixed linear function.
    std::vector<double> labels(n), block(static_cast<std::size_t>(n * local));
    for (as::index_t i = 0; i < n; ++i) {
      double score = 0.0;
      for (as::index_t j = 0; j < d; ++j) {
        const double x = std::sin(0.013 * static_cast<double>(i * (j % 13 + 1)) + 0.7 * static_cast<double>(j));
        score += x * std::cos(0.05 * static_cast<double>(j));
        if (j >= begin && j < begin + local) block[static_cast<std::size_t>(i * local + j - begin)] = x;
      }
      labels[static_cast<std::size_t>(i)] = score >= 0.0 ? 1.0 : -1.0;
    }
    as::MemorySource source(comm, features);
    source.add_dense(labels, block);  // a view: `labels` and `block` must outlive the source

    as::SketchedNewtonOptions options;  // fast RFD-SON (RFD paper Alg. 6)
    options.ell = 20;
    as::SketchedNewton learner(comm, features, as::Loss(as::LossKind::logistic), options);
    as::TrainingOptions training;
    training.passes = 2;
    const as::TrainingStats stats = as::train(learner, source, as::LabelMap(as::LabelMap::Kind::plus_minus_one), training);

    const double rate = static_cast<double>(stats.mistakes) / static_cast<double>(stats.examples);
    if (comm.rank() == 0)
      std::printf("%s, d = %lld on %d ranks: %lld examples, online mistake rate %.3f\n", learner.name().c_str(),
                  static_cast<long long>(d), comm.size(), static_cast<long long>(stats.examples), rate);
    status = rate < 0.2 ? 0 : 1;  // the labels are a linear function of the examples
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dense: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
