// A run that checkpoints as it trains, and a second learner that resumes from the middle checkpoint
// (as after a node failure) and ends with the same weights as the uninterrupted run.
#include <mpi.h>

#include <adasketch/adasketch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace as = adasketch;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  try {
    const as::Communicator comm(MPI_COMM_WORLD);
    const as::index_t d = 50, n = 2000;
    const std::string prefix = argc > 1 ? argv[1] : "checkpointed";
    const as::BlockPartition features(d, comm.size());
    const as::index_t begin = features.begin(comm.rank()), local = features.size(comm.rank());
    std::vector<double> labels(n), block(static_cast<std::size_t>(n * local));
    for (as::index_t i = 0; i < n; ++i) {
      double score = 0.0;
      for (as::index_t j = 0; j < d; ++j) {
        const double x = std::cos(0.3 * static_cast<double>(i) * static_cast<double>(j + 1));
        score += (j % 3 == 0 ? 1.0 : -0.5) * x;
        if (j >= begin && j < begin + local) block[static_cast<std::size_t>(i * local + j - begin)] = x;
      }
      labels[static_cast<std::size_t>(i)] = score;  // regression
    }
    as::MemorySource source(comm, features);
    source.add_dense(labels, block);
    const as::LabelMap real(as::LabelMap::Kind::real);
    as::LearnerSpec spec;
    spec.algorithm = "rfd-son";
    spec.loss = as::LossKind::squared;

    // The uninterrupted run, checkpointing every 500 examples into its own file each time.
    auto first = as::make_learner(comm, features, spec);
    as::TrainingOptions options;
    options.passes = 2;
    options.checkpoint_every = 500;
    options.checkpoint = [&](const as::TrainingState& state) {
      as::save_checkpoint(prefix + "." + std::to_string(state.examples), *first, {real, state, options.passes});
    };
    as::train(*first, source, real, options);

    // A fresh learner continues from the checkpoint after 1500 examples.
    auto second = as::make_learner(comm, features, spec);
    const as::CheckpointHeader saved = as::load_checkpoint(prefix + ".1500", *second);
    as::TrainingOptions resume;
    resume.passes = saved.run.passes;
    resume.start = saved.run.state;
    as::train(*second, source, real, resume);

    std::vector<double> a(static_cast<std::size_t>(local)), b(a.size());
    first->weights(a);
    second->weights(b);
    const bool same = comm.allreduce_max(as::index_t{a == b ? 0 : 1}) == 0;
    if (comm.rank() == 0)
      std::printf("%s: resumed from %s.1500 at example %lld of %lld; final weights %s\n", first->name().c_str(),
                  prefix.c_str(), static_cast<long long>(saved.run.state.examples), static_cast<long long>(2 * n),
                  same ? "identical to the uninterrupted run" : "DIFFER");
    status = same ? 0 : 1;
    if (comm.rank() == 0)
      for (as::index_t e = options.checkpoint_every; e <= 2 * n; e += options.checkpoint_every)
        std::remove((prefix + "." + std::to_string(e)).c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "checkpointed: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
