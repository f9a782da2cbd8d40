// Model files (linear_model.hpp): saved at the world size, loaded on MPI_COMM_SELF and on the world
// (a different block layout), bit-identical weights and the same predictions; the layout of
// docs/formats.md checked byte by byte; corrupt, truncated, foreign files and those of another format
// version rejected with an InputError naming the file on every rank; unwritable paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "adasketch/data/bias_source.hpp"
#include "adasketch/error.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"
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

// A learner split as `partition`, trained on a few random dense examples.
std::unique_ptr<DiagonalAdaGrad> trained(const Loss& loss, const BlockPartition& partition, Communicator comm) {
  auto learner = std::make_unique<DiagonalAdaGrad>(comm, partition, loss, DiagonalAdaGradOptions{.eta = 0.7, .delta = 0.2});
  std::mt19937_64 gen(4);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(partition.dim()));
  for (int t = 0; t < 40; ++t) {
    for (double& v : x) v = normal(gen);
    const double y = loss.kind() == LossKind::softmax ? static_cast<double>(t % loss.outputs()) : (t % 3 == 0 ? 1.0 : -1.0);
    const BlockPartition& p = learner->partition();
    const int rank = comm.rank();
    learner->step(LocalRow::dense(std::span<const double>(x).subspan(p.begin(rank), p.size(rank))), y);
  }
  return learner;
}

std::unique_ptr<DiagonalAdaGrad> trained(const Loss& loss, index_t d, Communicator comm) {
  return trained(loss, BlockPartition(d, comm.size()), comm);
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <class T>
T field(const std::vector<char>& b, std::size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

// The header checksum of docs/formats.md: FNV-1a of bytes 0..119 continued over the L label values
// and the 16-byte trailer after W (d, K and L as the header says; the file must hold them).
std::uint64_t header_checksum(const std::vector<char>& b) {
  const auto d = field<std::uint64_t>(b, 16), K = field<std::uint64_t>(b, 24), L = field<std::uint64_t>(b, 96);
  std::vector<char> covered(b.begin(), b.begin() + 120);
  const auto tail = static_cast<std::ptrdiff_t>(128 + 8 * d * K);
  covered.insert(covered.end(), b.begin() + tail, b.begin() + tail + static_cast<std::ptrdiff_t>(8 * L + 16));
  return fnv1a(covered.data(), 0, covered.size());
}

// Stores it at 120, to forge a header whose checksum is right.
void reseal_header(std::vector<char>& b) {
  const std::uint64_t h = header_checksum(b);
  std::memcpy(b.data() + 120, &h, 8);
}

// The layout of docs/formats.md around W (d × K) and the L label values: version 5, d, K, L and B in
// the header, both checksums by their formulas, the size 128 + 8·d·K + 8·L + 16 + 8·n with n listed
// features. Returns the trailer's D and list checksum.
std::pair<std::uint64_t, std::uint64_t> expect_layout(const std::vector<char>& b, std::uint64_t d, std::uint64_t K,
                                                      std::uint64_t L, double bias, std::uint64_t n) {
  EXPECT_EQ(b.size(), 128 + 8 * d * K + 8 * L + 16 + 8 * n);
  if (b.size() != 128 + 8 * d * K + 8 * L + 16 + 8 * n) return {};
  EXPECT_EQ(std::string(b.data(), 8), "ADSKMODL");
  EXPECT_EQ(field<std::uint32_t>(b, 8), 5u);
  EXPECT_EQ(field<std::uint64_t>(b, 16), d);
  EXPECT_EQ(field<std::uint64_t>(b, 24), K);
  EXPECT_EQ(field<std::uint64_t>(b, 96), L);
  EXPECT_EQ(field<double>(b, 104), bias);
  EXPECT_EQ(field<std::uint64_t>(b, 112), word_checksum(b.data() + 128, d * K));
  EXPECT_EQ(field<std::uint64_t>(b, 120), header_checksum(b));
  const std::size_t trailer = 128 + 8 * d * K + 8 * L;
  return {field<std::uint64_t>(b, trailer), field<std::uint64_t>(b, trailer + 8)};
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
    const auto K = static_cast<std::size_t>(loss.outputs()), L = labels.values().size();
    EXPECT_EQ(read_bytes(path).size(), 128 + 8 * d * K + 8 * L + 16);

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
    EXPECT_EQ(read_bytes(path).size(), 128 + 8 * d * K + 8 * L + 16);
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
  ASSERT_EQ(bytes.size(), 128u + 8u * 13u + 16u);  // no label values; the trailer: D = 0, no list
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
  edit("header-bit", "header checksum", [](auto& b) { b[40] ^= 1; });  // the algorithm name's padding
  edit("trailer-bit", "header checksum", [](auto& b) { b[128 + 8 * 13 + 2] ^= 1; });  // D, covered too
  edit("weights-bit", "weights checksum", [](auto& b) { b[128 + 8 * 5 + 3] ^= 4; });
  edit("truncated", "truncated", [](auto& b) { b.resize(b.size() - 8); });
  edit("header-only", "truncated", [](auto& b) { b.resize(60); });
  edit("longer", "expected", [](auto& b) { b.push_back(0); });
  edit("label-count", "bad number of label values", [](auto& b) { b[100] = 1; });  // L = 2³²
  // D = 0 (no list) with a list checksum; D = 5 below the 13 rows it would list.
  edit("list-sum", "feature list checksum without a feature list", [](auto& b) { b[128 + 8 * 13 + 8] = 1; reseal_header(b); });
  edit("list-d", "original d = 5 with 13 listed features", [](auto& b) { b[128 + 8 * 13] = 5; reseal_header(b); });
  edit("loss", "unknown loss", [](auto& b) { std::memcpy(b.data() + 64, "cubic", 5); reseal_header(b); });
  edit("labels", "label map", [](auto& b) { b[12] = 9; reseal_header(b); });
  edit("labels-mismatch", "do not fit", [](auto& b) { b[12] = 0; reseal_header(b); });  // real labels, hinge loss
  // d too large for the file: found before the header checksum, which covers the bytes after W.
  edit("dim", "248 bytes, expected at least 128 + 8·d·K + 8·L + 16 = 256", [](auto& b) { b[16] = 14; });
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

TEST(LinearModel, TheLayoutKeepsTheBiasAndTheLabelValues) {
  const std::string dir = shared_dir();
  const index_t d = 6;  // 5 data features and the bias feature
  const std::pair<Loss, LabelMap> cases[] = {{Loss(LossKind::logistic), LabelMap(LabelMap::Kind::two_values, {1.0, 3.0})},
                                             {Loss(LossKind::softmax, 3), LabelMap(LabelMap::Kind::listed_classes, {2.0, 5.0, 7.0})}};
  for (const auto& [loss, labels] : cases) {
    auto learner = trained(loss, d, world());
    const std::string path = dir + "/labels-" + loss.name() + ".bin";
    save_model(*learner, labels, path, 2.5);
    const auto K = static_cast<std::size_t>(loss.outputs()), L = labels.values().size();
    const std::vector<char> bytes = read_bytes(path);
    EXPECT_EQ(expect_layout(bytes, d, K, L, 2.5, 0), std::make_pair(std::uint64_t{0}, std::uint64_t{0}));
    ASSERT_EQ(bytes.size(), 128 + 8 * d * K + 8 * L + 16);
    EXPECT_EQ(field<std::uint32_t>(bytes, 12), static_cast<std::uint32_t>(labels.kind()));
    std::vector<double> tail(L);  // the label values follow W
    std::memcpy(tail.data(), bytes.data() + 128 + 8 * d * K, 8 * L);
    EXPECT_TRUE(std::equal(tail.begin(), tail.end(), labels.values().begin(), labels.values().end()));

    const LinearModel m = LinearModel::load(world(), path);
    EXPECT_EQ(m.bias(), 2.5);
    EXPECT_EQ(m.dim(), d);
    EXPECT_EQ(m.data_dim(), d - 1);
    EXPECT_FALSE(m.features());
    EXPECT_EQ(m.labels().kind(), labels.kind());
    EXPECT_EQ(m.labels().describe(), labels.describe());

    std::vector<char> bad = bytes;  // a label value changed: the header checksum covers them
    bad[128 + 8 * d * K + 3] ^= 1;
    if (world().rank() == 0) write_bytes(path + ".bad", bad);
    world().barrier();
    expect_rejected(path + ".bad", "header checksum");
  }
  // Without a bias and label values: L = 0, B = 0, and the same trailer.
  auto plain = trained(Loss(LossKind::logistic), d, world());
  save_model(*plain, LabelMap(LabelMap::Kind::zero_one), dir + "/plain.bin");
  EXPECT_EQ(expect_layout(read_bytes(dir + "/plain.bin"), d, 1, 0, 0.0, 0), std::make_pair(std::uint64_t{0}, std::uint64_t{0}));
  EXPECT_EQ(LinearModel::load(world(), dir + "/plain.bin").bias(), 0.0);
  world().barrier();  // every rank is done reading before rank 0 removes the files
  if (world().rank() == 0) std::filesystem::remove_all(dir);
}

TEST(LinearModel, TheLayoutListsTheSeenFeatures) {
  const std::string dir = shared_dir();
  // D = 20 original features split over the ranks; each rank keeps the even local indices of its block.
  const index_t D = 20;
  const BlockPartition original(D, world().size());
  const int rank = world().rank();
  std::vector<index_t> local;
  for (index_t j = 0; j < original.size(rank); j += 2) local.push_back(j);
  std::vector<std::uint64_t> list;  // every rank's kept features, original indices, ascending
  for (int p = 0; p < world().size(); ++p)
    for (index_t j = 0; j < original.size(p); j += 2) list.push_back(static_cast<std::uint64_t>(original.begin(p) + j));
  const auto map = std::make_shared<const FeatureMap>(world(), original, local);
  const auto n = static_cast<index_t>(list.size());
  ASSERT_EQ(map->partition().dim(), n);
  const Loss loss(LossKind::softmax, 3);
  const LabelMap labels(LabelMap::Kind::listed_classes, {2.0, 5.0, 7.0});
  auto learner = trained(loss, with_bias_feature(map->partition()), world());
  const std::string path = dir + "/seen.bin";
  save_model(*learner, labels, path, 1.5, map);
  const std::vector<char> bytes = read_bytes(path);
  const auto d = static_cast<std::uint64_t>(n + 1);
  const auto [original_dim, list_sum] = expect_layout(bytes, d, 3, 3, 1.5, list.size());
  EXPECT_EQ(original_dim, static_cast<std::uint64_t>(D));
  ASSERT_EQ(bytes.size(), 128 + 8 * d * 3 + 8 * 3 + 16 + 8 * list.size());
  const std::size_t list_at = 128 + 8 * d * 3 + 8 * 3 + 16;
  EXPECT_EQ(list_sum, word_checksum(bytes.data() + list_at, list.size()));
  std::vector<std::uint64_t> written(list.size());
  std::memcpy(written.data(), bytes.data() + list_at, 8 * list.size());
  EXPECT_EQ(written, list);

  // Loaded alone, every rank holds the whole list; the weights are the learner's.
  const LinearModel whole = LinearModel::load(Communicator(MPI_COMM_SELF), path);
  ASSERT_TRUE(whole.features());
  EXPECT_EQ(whole.original_dim(), D);
  EXPECT_EQ(whole.bias(), 1.5);
  std::vector<index_t> kept(whole.features()->local_features().begin(), whole.features()->local_features().end());
  EXPECT_EQ(std::vector<std::uint64_t>(kept.begin(), kept.end()), list);
  std::vector<double> mine(static_cast<std::size_t>(learner->local_dim()) * 3);
  learner->weights(mine);
  const auto begin = static_cast<std::ptrdiff_t>(learner->partition().begin(rank) * 3);
  EXPECT_TRUE(std::equal(mine.begin(), mine.end(), whole.weights().begin() + begin));
  world().barrier();  // every rank is done reading before rank 0 removes the files
  if (world().rank() == 0) std::filesystem::remove_all(dir);
}

TEST(LinearModel, OtherFormatVersionsAreRefused) {
  const std::string dir = shared_dir();
  auto learner = trained(Loss(LossKind::logistic), 5, world());
  save_model(*learner, LabelMap(LabelMap::Kind::two_values, {1.0, 3.0}), dir + "/v5.bin", 2.0);
  const std::vector<char> bytes = read_bytes(dir + "/v5.bin");
  for (const std::uint32_t version : {1u, 2u, 3u, 4u, 6u}) {
    std::vector<char> b = bytes;  // only the version differs: both checksums are right
    std::memcpy(b.data() + 8, &version, 4);
    reseal_header(b);
    const std::string path = dir + "/v" + std::to_string(version) + ".bin";
    if (world().rank() == 0) write_bytes(path, b);
    world().barrier();
    expect_rejected(path, "model format version " + std::to_string(version) +
                              " is not supported: this build reads version 5 only (the file was written by " +
                              (version < 5 ? "an older build)" : "a newer build, or is corrupt)"));
  }
  world().barrier();  // every rank is done reading before rank 0 removes the files
  if (world().rank() == 0) std::filesystem::remove_all(dir);
}
