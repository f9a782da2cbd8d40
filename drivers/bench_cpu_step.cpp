// Per-step thread CPU time of learners on cached power-law rows: an A/B tool for a shared machine,
// where the wall-clock seconds of adasketch-bench-learners drift with the other processes (a step
// preempted is a step slowed) but a thread's CPU time does not. One rank; the learners as
// adasketch-bench-learners runs them (ℓ = 20, squared loss for the SON variants, logistic for the
// others, the next row's prefetch hint before each step, the rows on their seen features).
//
//   build/drivers/adasketch-bench-cpu-step CACHE N WARMUP ALGO[,ALGO...] [ZIPF]
//
// CACHE holds the rows (written on first use: synthetic:sparse-classification:d=2^24,n=N+WARMUP,
// nnz=100,zipf=ZIPF on its seen features, default ZIPF 1.1), so that two builds step the same rows
// without generating them. Prints per learner the mean CPU µs per timed step, its first and last
// tenths, the mean wall µs and the mean loss.
#include <mpi.h>
#include <time.h>

#include <adasketch/adasketch.hpp>
#include <adasketch/data/compact_features.hpp>
#include <adasketch/data/synthetic_spec.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace as = adasketch;

namespace {

double seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class T>
void put(std::ofstream& out, const T* p, std::size_t n) { out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(sizeof(T) * n)); }
template <class T>
void get(std::ifstream& in, T* p, std::size_t n) { in.read(reinterpret_cast<char*>(p), static_cast<std::streamsize>(sizeof(T) * n)); }

// The cached rows and their dimension, generated and written when the cache does not exist.
std::vector<as::Example> load_rows(const as::Communicator& comm, const std::string& cache, as::index_t count,
                                   const std::string& zipf, as::index_t& dim) {
  std::vector<as::Example> rows;
  if (std::ifstream in(cache, std::ios::binary); in) {
    std::size_t n = 0;
    get(in, &dim, 1);
    get(in, &n, 1);
    rows.resize(n);
    for (auto& e : rows) {
      std::size_t m = 0;
      get(in, &e.label, 1);
      get(in, &m, 1);
      e.indices.resize(m);
      e.values.resize(m);
      get(in, e.indices.data(), m);
      get(in, e.values.data(), m);
    }
    return rows;
  }
  const auto spec = as::parse_synthetic_spec(
      "synthetic:sparse-classification:d=16777216,n=" + std::to_string(count) + ",nnz=100,zipf=" + zipf, "data");
  auto source = as::make_synthetic(comm, spec);
  auto map = std::make_shared<const as::FeatureMap>(as::FeatureMap::scan(comm, *source));
  source->rewind();
  as::CompactSource compact(*source, map);
  dim = compact.dim();
  for (as::Example e; compact.next(e);) rows.push_back(e);
  std::ofstream out(cache, std::ios::binary);
  const std::size_t n = rows.size();
  put(out, &dim, 1);
  put(out, &n, 1);
  for (const auto& e : rows) {
    const std::size_t m = e.indices.size();
    put(out, &e.label, 1);
    put(out, &m, 1);
    put(out, e.indices.data(), m);
    put(out, e.values.data(), m);
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s CACHE N WARMUP ALGO[,ALGO...] [ZIPF]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  {
    const as::Communicator comm(MPI_COMM_WORLD);
    const as::index_t n = std::stol(argv[2]), warmup = std::stol(argv[3]);
    as::index_t dim = 0;
    const auto rows = load_rows(comm, argv[1], n + warmup, argc > 5 ? argv[5] : "1.1", dim);
    if (static_cast<as::index_t>(rows.size()) < n + warmup) {
      std::fprintf(stderr, "%s holds %zu rows, fewer than N + WARMUP\n", argv[1], rows.size());
      return 1;
    }
    std::stringstream algorithms(argv[4]);
    for (std::string algorithm; std::getline(algorithms, algorithm, ',');) {
      as::LearnerSpec spec;
      spec.algorithm = algorithm;
      spec.loss = algorithm.find("son") != std::string::npos ? as::LossKind::squared : as::LossKind::logistic;
      spec.ell = 20;
      const auto learner = as::make_learner(comm, as::BlockPartition(dim, comm.size()), spec);
      double cpu[10] = {}, wall = 0.0, loss = 0.0;
      for (as::index_t t = 0; t < warmup + n; ++t) {
        const double c0 = seconds(CLOCK_THREAD_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
        if (t + 1 < warmup + n) learner->prefetch(rows[static_cast<std::size_t>(t + 1)].row());
        const auto r = learner->step(rows[static_cast<std::size_t>(t)].row(), rows[static_cast<std::size_t>(t)].label);
        if (t < warmup) continue;
        cpu[(t - warmup) * 10 / n] += seconds(CLOCK_THREAD_CPUTIME_ID) - c0;
        wall += seconds(CLOCK_MONOTONIC) - w0;
        loss += r.loss;
      }
      double total = 0.0;
      for (const double c : cpu) total += c;
      const double per = 1e6 / static_cast<double>(n);
      std::printf("%s cpu %.2f first %.2f last %.2f | wall %.2f | loss %.6f\n", algorithm.c_str(), total * per,
                  cpu[0] * 10 * per, cpu[9] * 10 * per, wall * per, loss / static_cast<double>(n));
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
}
