// Model files (linear_model.hpp): saved at the world size, loaded on MPI_COMM_SELF and on the world
// (a different block layout), bit-identical weights and the same predictions; corrupt, truncated and
// foreign files rejected with an InputError naming the file on every rank; unwritable paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/diagonal_adagrad.hpp"
#include "format_checksums.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

// A directory name shared by all ranks (rank 0's pid), created by rank 0.
std::string shared_dir() {
  double pid = world().rank() == 0 ? static_cast<double>(getpid()) : 0.0;
  pid = world().allreduce_sum(pid);
  const std::string dir = "/tmp/adasketch-test-model-" + std::to_string(static_cast<long long>(pid));
  if (world().rank() == 0) std::filesystem::create_directories(dir);
  world().barrier();
  return dir;
}

// A learner trained on a few random dense examples.
std::unique_ptr<DiagonalAdaGrad> trained(const Loss& loss, index_t d, Communicator comm) {
  auto learner = std::make_unique<DiagonalAdaGrad>(comm, d, loss, DiagonalAdaGradOptions{.eta = 0.7, .delta = 0.2});
  std::mt19937_64 gen(4);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(d));
  for (int t = 0; t < 40; ++t) {
    for (double& v : x) v = normal(gen);
    const double y = loss.kind() == LossKind::softmax ? static_cast<double>(t % loss.outputs()) : (t % 3 == 0 ? 1.0 : -1.0);
    const BlockPartition& p = learner->partition();
    const int rank = comm.rank();
    learner->step(LocalRow::dense(std::span<const double>(x).subspan(p.begin(rank), p.size(rank))), y);
  }
  return learner;
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// FNV-1a of bytes 0..119, as the format stores at 120 (to forge a header whose checksum is right).
void reseal_header(std::vector<char>& b) {
  const std::uint64_t h = fnv1a(b.data(), 0, 120);
  std::memcpy(b.data() + 120, &h, 8);
}

void expect_rejected(const std::string& path, const std::string& needle) {
  try {
    LinearModel::load(world(), path);
    ADD_FAILURE() << path << " was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(LinearModel, RoundTripAcrossRankCounts) {
  const std::string dir = shared_dir();
  const index_t d = 41;
  for (const Loss& loss : {Loss(LossKind::logistic), Loss(LossKind::softmax, 4), Loss(LossKind::squared)}) {
    auto learner = trained(loss, d, world());
    const LabelMap labels = LabelMap::infer(loss, 1.0, 4.0);
    const std::string path = dir + "/model-" + loss.name() + ".bin";
    save_model(*learner, labels, path);
    const auto K = static_cast<std::size_t>(loss.outputs());
    EXPECT_EQ(read_bytes(path).size(), 128 + 8 * d * K);

    // Every rank loads the whole model alone: it holds every rank's slice of the saved one.
    const LinearModel whole = LinearModel::load(Communicator(MPI_COMM_SELF), path);
    EXPECT_EQ(whole.dim(), d);
    EXPECT_EQ(whole.algorithm(), "ada-diag");
    EXPECT_EQ(whole.loss().name(), loss.name());
    EXPECT_EQ(whole.outputs(), loss.outputs());
    EXPECT_EQ(whole.labels().kind(), labels.kind());
    std::vector<double> mine(static_cast<std::size_t>(learner->local_dim()) * K);
    learner->weights(mine);
    const int rank = world().rank();
    const auto begin = static_cast<std::ptrdiff_t>(learner->partition().begin(rank) * static_cast<index_t>(K));
    EXPECT_TRUE(std::equal(mine.begin(), mine.end(), whole.weights().begin() + begin)) << loss.name();

    // Loaded on the world again: the same slice and the same predictions as the learner.
    const LinearModel again = LinearModel::load(world(), path);
    EXPECT_TRUE(std::equal(mine.begin(), mine.end(), again.weights().begin(), again.weights().end()));
    std::vector<double> x(static_cast<std::size_t>(learner->local_dim()), 0.5), p1(K), p2(K);
    learner->predict(LocalRow::dense(x), p1);
    again.predict(LocalRow::dense(x), p2);
    EXPECT_EQ(p1, p2);

    // Saving again over an existing file (and an existing longer FILE.tmp) is fine.
    if (rank == 0) write_bytes(path + ".tmp", std::vector<char>(100000, 'x'));
    world().barrier();
    save_model(*learner, labels, path);
    EXPECT_EQ(read_bytes(path).size(), 128 + 8 * d * K);
  }
  world().barrier();  // every rank is done reading before rank 0 removes the files
  if (world().rank() == 0) std::filesystem::remove_all(dir);
}

TEST(LinearModel, CorruptFilesAreRejectedOnEveryRank) {
  const std::string dir = shared_dir();
  const index_t d = 13;
  auto learner = trained(Loss(LossKind::hinge), d, world());
  const std::string good = dir + "/good.bin";
  save_model(*learner, LabelMap(LabelMap::Kind::one_two), good);
  const std::vector<char> bytes = read_bytes(good);
  ASSERT_EQ(bytes.size(), 128u + 8u * 13u);
  struct Bad {
    std::string name, needle;
    std::vector<char> content;
  };
  std::vector<Bad> cases;
  auto edit = [&](std::string name, std::string needle, auto change) {
    std::vector<char> b = bytes;
    change(b);
    cases.push_back({std::move(name), std::move(needle), std::move(b)});
  };
  edit("magic", "magic", [](auto& b) { b[3] = 'X'; });
  edit("header-bit", "header checksum", [](auto& b) { b[17] ^= 1; });
  edit("weights-bit", "weights checksum", [](auto& b) { b[128 + 8 * 5 + 3] ^= 4; });
  edit("truncated", "truncated", [](auto& b) { b.resize(b.size() - 8); });
  edit("header-only", "truncated", [](auto& b) { b.resize(60); });
  edit("longer", "expected", [](auto& b) { b.push_back(0); });
  edit("version", "version 4", [](auto& b) { b[8] = 4; reseal_header(b); });
  edit("reserved", "reserved", [](auto& b) { b[100] = 1; reseal_header(b); });
  edit("loss", "unknown loss", [](auto& b) { std::memcpy(b.data() + 64, "cubic", 5); reseal_header(b); });
  edit("labels", "label map", [](auto& b) { b[12] = 9; reseal_header(b); });
  edit("labels-mismatch", "do not fit", [](auto& b) { b[12] = 0; reseal_header(b); });  // real labels, hinge loss
  edit("dim", "expected", [](auto& b) { b[16] = 14; reseal_header(b); });
  edit("empty", "magic", [](auto& b) { b.clear(); });
  edit("short-foreign", "magic", [](auto& b) { b.assign(5, '+'); });
  if (world().rank() == 0)
    for (const Bad& c : cases) write_bytes(dir + "/" + c.name, c.content);
  world().barrier();
  for (const Bad& c : cases) expect_rejected(dir + "/" + c.name, c.needle);
  expect_rejected(dir + "/missing.bin", "cannot open");
  expect_rejected(dir, "it is a directory");  // MPI-IO reads of a directory hung at 3 ranks
  // The good file still loads.
  EXPECT_EQ(LinearModel::load(world(), good).labels().kind(), LabelMap::Kind::one_two);
  // An unwritable destination fails on every rank, naming the file.
  try {
    save_model(*learner, LabelMap(LabelMap::Kind::one_two), dir + "/no/such/dir/m.bin");
    ADD_FAILURE() << "saved into a missing directory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/dir/m.bin"), std::string::npos) << e.what();
  }
  EXPECT_THROW(LinearModel(*learner, LabelMap(LabelMap::Kind::real)), InvalidArgument);  // map does not fit the loss
  world().barrier();
  world().barrier();  // every rank is done reading before rank 0 removes the files
  if (world().rank() == 0) std::filesystem::remove_all(dir);
}

TEST(LinearModel, VersionTwoKeepsTheBiasAndTheLabelValues) {
  const std::string dir = shared_dir();
  const index_t d = 6;  // 5 data features and the bias feature
  const std::pair<Loss, LabelMap> cases[] = {{Loss(LossKind::logistic), LabelMap(LabelMap::Kind::two_values, {1.0, 3.0})},
                                             {Loss(LossKind::softmax, 3), LabelMap(LabelMap::Kind::listed_classes, {2.0, 5.0, 7.0})}};
  for (const auto& [loss, labels] : cases) {
    auto learner = trained(loss, d, world());
    const std::string path = dir + "/v2-" + loss.name() + ".bin";
    save_model(*learner, labels, path, 2.5);
    const auto K = static_cast<std::size_t>(loss.outputs()), L = labels.values().size();
    const std::vector<char> bytes = read_bytes(path);
    ASSERT_EQ(bytes.size(), 128 + 8 * d * K + 8 * L);
    EXPECT_EQ(bytes[8], 2);
    std::uint64_t count = 0;
    double bias = 0.0;
    std::memcpy(&count, bytes.data() + 96, 8);
    std::memcpy(&bias, bytes.data() + 104, 8);
    EXPECT_EQ(count, L);
    EXPECT_EQ(bias, 2.5);
    std::vector<double> tail(L);  // the label values follow W
    std::memcpy(tail.data(), bytes.data() + 128 + 8 * d * K, 8 * L);
    EXPECT_TRUE(std::equal(tail.begin(), tail.end(), labels.values().begin(), labels.values().end()));

    const LinearModel m = LinearModel::load(world(), path);
    EXPECT_EQ(m.bias(), 2.5);
    EXPECT_EQ(m.dim(), d);
    EXPECT_EQ(m.data_dim(), d - 1);
    EXPECT_EQ(m.labels().kind(), labels.kind());
    EXPECT_EQ(m.labels().describe(), labels.describe());

    std::vector<char> bad = bytes;  // a label value changed: the header checksum covers them
    bad[bad.size() - 3] ^= 1;
    if (world().rank() == 0) write_bytes(path + ".bad", bad);
    world().barrier();
    expect_rejected(path + ".bad", "header checksum");
  }
  // Without a bias and label values the file is version 1, as before them.
  auto plain = trained(Loss(LossKind::logistic), d, world());
  save_model(*plain, LabelMap(LabelMap::Kind::zero_one), dir + "/v1.bin");
  EXPECT_EQ(read_bytes(dir + "/v1.bin")[8], 1);
  EXPECT_EQ(LinearModel::load(world(), dir + "/v1.bin").bias(), 0.0);
  world().barrier();  // every rank is done reading before rank 0 removes the files
  if (world().rank() == 0) std::filesystem::remove_all(dir);
}
