// Multiclass: ADA-FD with the softmax loss (K = 3 scores per example, W is d × K), trained on one
// part of the data and scored on the rest with predict().
#include <mpi.h>

#include <adasketch/adasketch.hpp>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

namespace as = adasketch;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int status = 1;
  try {
    const as::Communicator comm(MPI_COMM_WORLD);
    const as::index_t d = 60;
    const int n = 3000, test = 1000, K = 3;
    as::SketchedAdaGradOptions options;  // ADA-FD (Wan, Wei, Zhang 2018, Alg. 2)
    options.ell = 10;
    options.eta = 0.5;
    as::SketchedAdaGrad learner(comm, d, as::Loss(as::LossKind::softmax, K), options);
    as::RowSlicer slicer(learner.partition(), comm.rank());

    // Three Gaussian clouds around the centres c_k[j] = 1.5·[j % K == k].
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise;
    std::uniform_int_distribution<int> pick(0, K - 1);
    std::vector<double> x(static_cast<std::size_t>(d)), scores(static_cast<std::size_t>(K));
    int correct = 0;
    for (int i = 0; i < n + test; ++i) {
      const int y = pick(rng);
      for (as::index_t j = 0; j < d; ++j) x[static_cast<std::size_t>(j)] = (j % K == y ? 1.5 : 0.0) + noise(rng);
      const as::LocalRow row = slicer.dense(x);
      if (i < n) {
        learner.step(row, y);  // labels 0 … K−1
      } else {
        learner.predict(row, scores);  // collective: every rank gets the K scores
        correct += std::max_element(scores.begin(), scores.end()) - scores.begin() == y ? 1 : 0;
      }
    }
    const double accuracy = static_cast<double>(correct) / test;
    if (comm.rank() == 0)
      std::printf("%s, softmax K = %d, d = %lld on %d ranks: test accuracy %.3f\n", learner.name().c_str(), K,
                  static_cast<long long>(d), comm.size(), accuracy);
    status = accuracy > 0.9 ? 0 : 1;  // well-separated clouds
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softmax: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
