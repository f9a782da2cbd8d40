// Checkpoints (checkpoint.hpp) of every learner make_learner knows, dense and sparse data, binary
// (or regression) and softmax losses: a learner trained N steps, checkpointed and trained M more
// ends with the same weights, bit for bit, as a fresh learner restored from the checkpoint and
// trained the same M steps (and a fresh learner trained only M steps does not: the state matters).
// Written at one rank count and read at another: equal to the uninterrupted run at the reader's
// count to round-off. A crash between the temporary file and the rename leaves the previous
// checkpoint intact. Corrupt, truncated, foreign and mismatched files are refused with an
// InputError naming the file, on every rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/checkpoint.hpp"
#include "adasketch/learners/linear_model.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

constexpr index_t kDim = 7, kExamples = 30;

const char* const kAlgorithms[] = {"ada-diag", "ada-diag-da", "ada-fd", "ada-fd-da", "fast-ada-fd", "fast-ada-fd-da",
                                   "ada-gp", "ada-gp-da", "ada-dp", "ada-dp-da", "fd-son", "fast-fd-son",
                                   "rp-son", "oja-son", "rfd-son", "fast-rfd-son"};

bool is_son(const std::string& algorithm) { return algorithm.ends_with("-son"); }

// A directory name shared by all ranks (rank 0's pid), created by rank 0.
std::string shared_dir() {
  double pid = world().rank() == 0 ? static_cast<double>(getpid()) : 0.0;
  pid = world().allreduce_sum(pid);
  const std::string dir = "/tmp/adasketch-test-checkpoint-" + std::to_string(static_cast<long long>(pid));
  if (world().rank() == 0) std::filesystem::create_directories(dir);
  world().barrier();
  return dir;
}

LearnerSpec spec_for(const std::string& algorithm, bool softmax) {
  LearnerSpec s;
  s.algorithm = algorithm;
  s.loss = softmax ? "softmax" : is_son(algorithm) ? "squared" : "logistic";
  s.classes = 3;
  s.ell = 3;
  s.eta = 0.3;
  s.delta = 0.5;
  s.alpha0 = 1.0;
  s.C = 1.0;
  s.sigma = 0.1;
  s.eta_schedule = "inv-sqrt-t";
  s.seed = 7;
  return s;
}

// kExamples examples (about 40% nonzeros when sparse), labels ±1 or 0..2.
struct Data {
  DenseMatrix x;
  std::vector<double> binary, classes;
  bool sparse;
};

Data make_data(bool sparse) {
  std::mt19937_64 gen(sparse ? 11 : 12);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Data d{DenseMatrix{kExamples, kDim, std::vector<double>(kExamples * kDim, 0.0)}, {}, {}, sparse};
  for (index_t i = 0; i < kExamples; ++i) {
    for (index_t j = 0; j < kDim; ++j)
      if (!sparse || unit(gen) < 0.4) d.x(i, j) = normal(gen);
    d.binary.push_back(d.x(i, 0) - d.x(i, 1) + 0.3 * normal(gen) >= 0.0 ? 1.0 : -1.0);
    d.classes.push_back(static_cast<double>(i % 3));
  }
  return d;
}

// Steps examples [from, to) and returns their step results as numbers (loss, mistake).
std::vector<double> run(Learner& learner, const Data& data, index_t from, index_t to) {
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
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// Whether a predicate holds on every rank of comm.
bool everywhere(const Communicator& comm, bool ok) { return comm.allreduce_max(static_cast<index_t>(ok ? 0 : 1)) == 0; }

CheckpointRun run_info(const Learner& learner, index_t steps) {
  CheckpointRun r;
  r.labels = LabelMap(learner.loss().kind() == LossKind::softmax ? LabelMap::Kind::classes_from_zero
                      : learner.loss().is_classification()   ? LabelMap::Kind::plus_minus_one
                                                               : LabelMap::Kind::real,
                      std::max(learner.outputs(), 2));
  r.state.position = steps;
  r.state.examples = steps;
  r.data_name = "memory";
  r.data_examples = kExamples;
  return r;
}

struct Case {
  std::string algorithm;
  bool softmax, sparse;
};

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* a : kAlgorithms)
    for (const bool sparse : {false, true}) {
      cases.push_back({a, false, sparse});
      if (!is_son(a)) cases.push_back({a, true, sparse});
    }
  return cases;
}

std::string label(const Case& c) {
  return c.algorithm + (c.softmax ? " softmax" : " binary") + (c.sparse ? " sparse" : " dense");
}

}  // namespace

TEST(Checkpoint, RestoredLearnerContinuesBitwise) {
  const std::string dir = shared_dir();
  const std::string path = dir + "/same.ckpt";
  constexpr index_t kMore = 10;
  int cases = 0;
  for (const Case& c : all_cases()) {
    const Data data = make_data(c.sparse);
    const LearnerSpec spec = spec_for(c.algorithm, c.softmax);
    for (const index_t n : {index_t{5}, index_t{13}}) {
      SCOPED_TRACE(label(c) + ", checkpoint after " + std::to_string(n) + " steps");
      auto a = make_learner(world(), kDim, spec);
      run(*a, data, 0, n);
      save_checkpoint(path, *a, run_info(*a, n));
      const std::vector<double> results_a = run(*a, data, n, n + kMore);

      auto b = make_learner(world(), kDim, spec);
      const CheckpointHeader header = load_checkpoint(path, *b);
      EXPECT_EQ(header.spec.algorithm, c.algorithm);
      EXPECT_EQ(header.run.state.examples, n);
      EXPECT_EQ(b->steps(), n);
      const std::vector<double> results_b = run(*b, data, n, n + kMore);
      EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*a), local_weights(*b))))
          << "weights after the restored run differ";
      EXPECT_TRUE(bitwise_equal(results_a, results_b)) << "step losses differ";

      // Without the checkpoint the same M steps give other weights: the restored state mattered.
      auto fresh = make_learner(world(), kDim, spec);
      run(*fresh, data, n, n + kMore);
      EXPECT_FALSE(bitwise_equal(global_weights(*fresh), global_weights(*a)));
      ++cases;
    }
  }
  EXPECT_EQ(cases, 2 * (16 * 2 + 10 * 2));
}

// Sub-communicator of the first `size` world ranks (MPI_COMM_NULL on the others).
struct SubComm {
  MPI_Comm comm = MPI_COMM_NULL;
  explicit SubComm(int size) {
    check_mpi(MPI_Comm_split(MPI_COMM_WORLD, world().rank() < size ? 0 : MPI_UNDEFINED, world().rank(), &comm),
              "MPI_Comm_split");
  }
  ~SubComm() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

TEST(Checkpoint, ResumesAtAnotherRankCount) {
  const int P = world().size();
  if (P == 1) GTEST_SKIP() << "needs 2 or more ranks";
  const std::string path = shared_dir() + "/ranks.ckpt";
  constexpr index_t kSteps = 13, kMore = 10;
  std::vector<std::pair<int, int>> pairs = {{1, P}, {P, 1}};
  if (P == 3) pairs.insert(pairs.end(), {{2, 3}, {3, 2}});
  for (const auto& [writer, reader] : pairs)
    for (const Case& c : all_cases()) {
      SCOPED_TRACE(label(c) + ": written at " + std::to_string(writer) + " ranks, read at " + std::to_string(reader));
      const Data data = make_data(c.sparse);
      const LearnerSpec spec = spec_for(c.algorithm, c.softmax);
      std::vector<double> saved(static_cast<std::size_t>(kDim * (c.softmax ? 3 : 1)));
      {
        SubComm sub(writer);
        if (sub.comm != MPI_COMM_NULL) {
          auto a = make_learner(Communicator(sub.comm), kDim, spec);
          run(*a, data, 0, kSteps);
          save_checkpoint(path, *a, run_info(*a, kSteps));
          saved = global_weights(*a);
        }
      }
      world().broadcast(saved, 0);  // world rank 0 is in every sub-communicator
      SubComm sub(reader);
      if (sub.comm == MPI_COMM_NULL) continue;
      const Communicator comm(sub.comm);
      auto b = make_learner(comm, kDim, spec);
      load_checkpoint(path, *b);
      EXPECT_LE(relative_max_diff(global_weights(*b), saved), 1e-12) << "restored weights";
      run(*b, data, kSteps, kSteps + kMore);
      auto reference = make_learner(comm, kDim, spec);  // uninterrupted at the reader's rank count
      run(*reference, data, 0, kSteps + kMore);
      EXPECT_LE(relative_max_diff(global_weights(*b), global_weights(*reference)), 1e-9);
    }
}

TEST(Checkpoint, CrashBeforeRenameKeepsThePreviousCheckpoint) {
  const std::string path = shared_dir() + "/crash.ckpt";
  const Data data = make_data(false);
  const LearnerSpec spec = spec_for("fast-rfd-son", false);
  auto a = make_learner(world(), kDim, spec);
  run(*a, data, 0, 6);
  save_checkpoint(path, *a, run_info(*a, 6));
  const std::vector<double> at_first = local_weights(*a);
  run(*a, data, 6, 12);
  EXPECT_THROW(save_checkpoint(path, *a, run_info(*a, 12), [] { throw std::runtime_error("crash"); }), std::runtime_error);
  EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));  // the complete new state, never renamed
  auto b = make_learner(world(), kDim, spec);
  EXPECT_EQ(load_checkpoint(path, *b).run.state.examples, 6);
  EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*b), at_first)));
  // The temporary file of the interrupted save is overwritten by the next save.
  save_checkpoint(path, *a, run_info(*a, 12));
  EXPECT_EQ(load_checkpoint(path, *b).run.state.examples, 12);
  EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*b), local_weights(*a))));
  world().barrier();
}

namespace {

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

// Rank 0 writes `bytes` to `path`; every rank waits for it.
void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  if (world().rank() == 0) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  world().barrier();
}

// Reseals the header checksum (FNV-1a of bytes 0..503 at 504) after an edit.
void reseal(std::vector<char>& b) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (int i = 0; i < 504; ++i) h = (h ^ static_cast<unsigned char>(b[static_cast<std::size_t>(i)])) * 0x100000001b3ull;
  std::memcpy(b.data() + 504, &h, 8);
}

void expect_refused(const std::string& path, const LearnerSpec& spec, index_t dim, const std::string& needle) {
  SCOPED_TRACE(path + ": " + needle);
  auto learner = make_learner(world(), dim, spec);
  std::string what;
  try {
    load_checkpoint(path, *learner);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    what = e.what();
  }
  EXPECT_NE(what.find(needle), std::string::npos) << "message: '" << what << "'";
  EXPECT_EQ(what.find('\n'), std::string::npos);
}

}  // namespace

TEST(Checkpoint, BadFilesAreRefused) {
  const std::string dir = shared_dir();
  const std::string good = dir + "/good.ckpt", bad = dir + "/bad.ckpt";
  const Data data = make_data(true);
  const LearnerSpec spec = spec_for("ada-fd", true);
  auto a = make_learner(world(), kDim, spec);
  run(*a, data, 0, 9);
  save_checkpoint(good, *a, run_info(*a, 9));
  const std::vector<char> bytes = read_bytes(good);
  ASSERT_GT(bytes.size(), 1000u);

  write_bytes(bad, std::vector<char>(bytes.begin(), bytes.begin() + 1000));
  expect_refused(bad, spec, kDim, "truncated checkpoint file");
  write_bytes(bad, std::vector<char>(bytes.begin(), bytes.begin() + 100));
  expect_refused(bad, spec, kDim, "shorter than the 512-byte header");
  std::uint64_t fields = 0;
  std::memcpy(&fields, bytes.data() + 264, 8);
  const std::size_t table_end = 512 + 80 * fields;
  // A table entry, the first replicated value after the step count, the last block entry.
  for (const std::size_t at : {std::size_t{512 + 80 * 2 + 40}, table_end + 8, bytes.size() - 3}) {
    std::vector<char> flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    write_bytes(bad, flipped);
    expect_refused(bad, spec, kDim, at < table_end ? "field table checksum" : "checksum mismatch in field");
  }
  std::vector<char> header = bytes;
  header[140] = static_cast<char>(header[140] ^ 1);  // η
  write_bytes(bad, header);
  expect_refused(bad, spec, kDim, "header checksum mismatch");
  header = bytes;
  header[8] = 2;  // version 2, resealed
  reseal(header);
  write_bytes(bad, header);
  expect_refused(bad, spec, kDim, "version 2 is not supported");
  write_bytes(bad, std::vector<char>(bytes.begin(), bytes.end() - 8));
  expect_refused(bad, spec, kDim, "truncated checkpoint file");
  std::vector<char> longer = bytes;
  longer.resize(bytes.size() + 8, 0);
  write_bytes(bad, longer);
  expect_refused(bad, spec, kDim, "corrupt checkpoint file");

  save_model(*a, LabelMap(LabelMap::Kind::classes_from_zero, 3), bad);
  expect_refused(bad, spec, kDim, "not an adasketch checkpoint file");
  expect_refused(dir + "/missing.ckpt", spec, kDim, "cannot open");

  // Another learner: algorithm, ℓ, η, loss, d.
  LearnerSpec other = spec_for("rfd-son", false);
  expect_refused(good, other, kDim, "does not fit the learner rfd-son: algo = ada-fd in the checkpoint, rfd-son here");
  other = spec;
  other.ell = 4;
  expect_refused(good, other, kDim, "ell = 3 in the checkpoint, 4 here");
  other = spec;
  other.eta = 0.25;
  expect_refused(good, other, kDim, "eta = 0.3 in the checkpoint, 0.25 here");
  other = spec_for("ada-fd", false);
  expect_refused(good, other, kDim, "loss = softmax in the checkpoint, logistic here");
  expect_refused(good, spec, kDim + 1, "d = 7 in the checkpoint, 8 here");

  // The header alone, as the driver reads it before building the learner.
  const CheckpointHeader h = read_checkpoint_header(world(), good);
  EXPECT_EQ(h.spec.algorithm, "ada-fd");
  EXPECT_EQ(h.classes, 3);
  EXPECT_EQ(h.dim, kDim);
  EXPECT_EQ(h.ranks, world().size());
  EXPECT_TRUE(spec_differences(h.spec, a->spec()).empty());
  EXPECT_EQ(h.run.data_name, "memory");
  EXPECT_EQ(h.run.data_examples, kExamples);
  world().barrier();
}
