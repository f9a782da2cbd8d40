#include "checkpoint_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "adasketch/version.hpp"

namespace adasketch::test {

namespace {

const char* const kAlgorithms[] = {"ada-diag", "ada-diag-da", "ada-fd", "ada-fd-da", "fast-ada-fd", "fast-ada-fd-da",
                                   "ada-gp", "ada-gp-da", "ada-dp", "ada-dp-da", "fd-son", "fast-fd-son",
                                   "rp-son", "oja-son", "rfd-son", "fast-rfd-son", "comp-adagrad", "comp-adagrad-da",
#if ADASKETCH_WITH_EXACT_LEARNERS
                                   "ada-full", "ada-full-da", "full-on"
#endif
};

bool is_son(const std::string& algorithm) { return algorithm.ends_with("-son") || algorithm == "full-on"; }

// After the last test, on every rank: rank 0 removes the shared directory once all are done with it.
class RemoveSharedDir : public ::testing::Environment {
 public:
  void TearDown() override {
    const std::string dir = shared_checkpoint_dir();
    world().barrier();
    if (world().rank() == 0) std::filesystem::remove_all(dir);
  }
};
[[maybe_unused]] const ::testing::Environment* const kRemoveSharedDir =
    ::testing::AddGlobalTestEnvironment(new RemoveSharedDir);

}  // namespace

// A directory name shared by all ranks (rank 0's pid), created by rank 0.
std::string shared_checkpoint_dir() {
  double pid = world().rank() == 0 ? static_cast<double>(getpid()) : 0.0;
  pid = world().allreduce_sum(pid);
  const std::string dir = "/tmp/adasketch-test-checkpoint-" + std::to_string(static_cast<long long>(pid));
  if (world().rank() == 0) std::filesystem::create_directories(dir);
  world().barrier();
  return dir;
}

LearnerSpec checkpoint_spec(const std::string& algorithm, bool softmax, bool rescale) {
  LearnerSpec s;
  s.algorithm = algorithm;
  s.loss = softmax ? LossKind::softmax : is_son(algorithm) ? LossKind::squared : LossKind::logistic;
  s.classes = 3;
  s.ell = 3;
  s.eta = 0.3;
  s.delta = 0.5;
  s.alpha0 = 1.0;
  s.C = 1.0;
  s.sigma = 0.1;
  s.eta_schedule = EtaSchedule::inv_sqrt_t;
  s.seed = 7;
  s.diag_rescale = rescale;
  return s;
}

StepData make_step_data(bool sparse, index_t dim) {
  std::mt19937_64 gen(sparse ? 11 : 12);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  StepData d{DenseMatrix{kCheckpointExamples, dim, std::vector<double>(kCheckpointExamples * dim, 0.0)}, {}, {}, sparse};
  for (index_t i = 0; i < kCheckpointExamples; ++i) {
    for (index_t j = 0; j < dim; ++j)
      if (!sparse || unit(gen) < 0.4) d.x(i, j) = normal(gen);
    d.binary.push_back(d.x(i, 0) - d.x(i, 1) + 0.3 * normal(gen) >= 0.0 ? 1.0 : -1.0);
    d.classes.push_back(static_cast<double>(i % 3));
  }
  return d;
}

// Steps examples [from, to) and returns their step results as numbers (loss, mistake).
std::vector<double> run_steps(Learner& learner, const StepData& data, index_t from, index_t to) {
  const BlockPartition& p = learner.partition();
  const int rank = learner.comm().rank();
  const bool softmax = learner.loss().kind() == LossKind::softmax;
  std::vector<double> results;
  for (index_t i = from; i < to; ++i) {
    const std::vector<double> slice = local_slice(data.x, i, p, rank);
    const double y = softmax ? data.classes[i] : data.binary[i];
    StepResult r;
    if (data.sparse) {
      std::vector<index_t> idx;
      std::vector<double> val;
      for (std::size_t j = 0; j < slice.size(); ++j)
        if (slice[j] != 0.0) {
          idx.push_back(static_cast<index_t>(j));
          val.push_back(slice[j]);
        }
      r = learner.step(LocalRow::sparse(idx, val), y);
    } else {
      r = learner.step(LocalRow::dense(slice), y);
    }
    results.push_back(r.loss);
    results.push_back(r.mistake ? 1.0 : 0.0);
  }
  return results;
}

std::vector<double> local_weights(const Learner& learner) {
  std::vector<double> w(static_cast<std::size_t>(learner.local_dim() * learner.outputs()));
  learner.weights(w);
  return w;
}

// The whole W on every rank of the learner's communicator.
std::vector<double> global_weights(const Learner& learner) {
  const std::vector<double> mine = local_weights(learner);
  const Communicator& comm = learner.comm();
  std::vector<int> counts(comm.size()), displs(comm.size());
  for (int r = 0; r < comm.size(); ++r) {
    counts[r] = static_cast<int>(learner.partition().size(r) * learner.outputs());
    displs[r] = static_cast<int>(learner.partition().begin(r) * learner.outputs());
  }
  std::vector<double> all(static_cast<std::size_t>(learner.partition().dim() * learner.outputs()));
  check_mpi(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(),
                           displs.data(), MPI_DOUBLE, comm.get()),
            "MPI_Allgatherv");
  return all;
}

bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  // An empty block (a rank without features) has data() == nullptr, which memcmp must not be given.
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Whether a predicate holds on every rank of comm.
bool everywhere(const Communicator& comm, bool ok) { return comm.allreduce_max(static_cast<index_t>(ok ? 0 : 1)) == 0; }

CheckpointRun run_after(const Learner& learner, index_t steps) {
  CheckpointRun r;
  r.labels = LabelMap(learner.loss().kind() == LossKind::softmax ? LabelMap::Kind::classes_from_zero
                      : learner.loss().is_classification()   ? LabelMap::Kind::plus_minus_one
                                                               : LabelMap::Kind::real,
                      std::max(learner.outputs(), 2));
  r.state.position = steps;
  r.state.examples = steps;
  r.data_name = "memory";
  r.data_examples = kCheckpointExamples;
  return r;
}

std::vector<LearnerCase> all_learner_cases() {
  std::vector<LearnerCase> cases;
  for (const char* a : kAlgorithms)
    for (const bool sparse : {false, true}) {
      cases.push_back({a, false, sparse});
      cases.push_back({a, true, sparse});
      if (std::string(a) == "full-on") {  // SON §5.2's D, a block field of its own
        cases.push_back({a, false, sparse, true});
        cases.push_back({a, true, sparse, true});
      }
    }
  return cases;
}

std::string label(const LearnerCase& c) {
  return c.algorithm + (c.softmax ? " softmax" : " binary") + (c.sparse ? " sparse" : " dense") +
         (c.rescale ? " rescaled" : "");
}

}  // namespace adasketch::test
