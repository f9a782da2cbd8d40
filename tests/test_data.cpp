// Data input: LIBSVM text (real a9a against the published counts and an independent parse, bad input
// at the right line on every rank), dense binary through MPI-IO, and the synthetic generators
// (rank-count independence against a 1-rank run, spectrum and labels).
#include <gtest/gtest.h>
#include <lapacke.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "adasketch/data/dense_binary.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/data/synthetic.hpp"
#include "adasketch/error.hpp"
#include "test_support.hpp"

using namespace adasketch;

namespace {

// ---------------------------------------------------------------------------------------------
// Independent helpers (no library code): whole-file reads, a naive LIBSVM parse, gathers.

std::string read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("test: cannot open " + path);
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = gzread(f, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  gzclose(f);
  return text;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct RefRow {
  double label = 0.0;
  std::vector<std::pair<index_t, double>> features;  // 1-based
};

// Naive parse of well-formed LIBSVM text (the real data sets have no blank lines or comments).
std::vector<RefRow> reference_parse(const std::string& text) {
  std::vector<RefRow> rows;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream tokens(line);
    RefRow row;
    tokens >> row.label;
    for (std::string token; tokens >> token;) {
      const auto colon = token.find(':');
      row.features.emplace_back(std::stoll(token.substr(0, colon)), std::stod(token.substr(colon + 1)));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

template <class T>
std::vector<T> gather_to_root(const Communicator& comm, const std::vector<T>& local, MPI_Datatype type) {
  const int n = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(comm.size())), offsets(counts.size());
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm.get());
  int total = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) {
    offsets[p] = total;
    total += counts[p];
  }
  std::vector<T> all(comm.rank() == 0 ? static_cast<std::size_t>(total) : 0);
  MPI_Gatherv(local.data(), n, type, all.data(), counts.data(), offsets.data(), type, 0, comm.get());
  return all;
}

// Every example of a source as dense global rows, assembled on rank 0 (n × d row-major).
struct Gathered {
  std::vector<double> labels, x;
  index_t n = 0;
};
Gathered gather_dense(const Communicator& comm, ExampleSource& source) {
  const BlockPartition& part = source.partition();
  std::vector<double> local, labels;
  Example e;
  while (source.next(e)) {
    EXPECT_TRUE(e.dense);
    EXPECT_EQ(e.values.size(), static_cast<std::size_t>(part.size(comm.rank())));
    EXPECT_EQ(e.position, static_cast<index_t>(labels.size()) + 1);
    labels.push_back(e.label);
    local.insert(local.end(), e.values.begin(), e.values.end());
  }
  const auto blocks = gather_to_root(comm, local, MPI_DOUBLE);
  Gathered g{labels, {}, static_cast<index_t>(labels.size())};
  if (comm.rank() != 0) return g;
  g.x.resize(static_cast<std::size_t>(g.n * part.dim()));
  std::size_t at = 0;
  for (int p = 0; p < part.parts(); ++p)
    for (index_t i = 0; i < g.n; ++i)
      for (index_t j = part.begin(p); j < part.end(p); ++j) g.x[static_cast<std::size_t>(i * part.dim() + j)] = blocks[at++];
  return g;
}

// A temp directory shared by all ranks: rank 0 creates it, every rank learns its name.
class DataFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<char> name(256, '\0');
    if (comm.rank() == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "adasketch-test-data-XXXXXX").string();
      ASSERT_NE(mkdtemp(pattern.data()), nullptr);
      std::copy(pattern.begin(), pattern.end(), name.begin());
    }
    comm.broadcast(name, 0);
    dir = name.data();
  }
  void TearDown() override {
    comm.barrier();
    if (comm.rank() == 0) std::filesystem::remove_all(dir);
  }
  /// Rank 0 writes the bytes; every rank returns the path after a barrier.
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = dir + "/" + name;
    if (comm.rank() == 0) std::ofstream(path, std::ios::binary) << bytes;
    comm.barrier();
    return path;
  }

  Communicator comm = test::world();
  std::string dir;
};

const std::string kA9a = test::data_path("a9a.gz"), kA9aTest = test::data_path("a9a.t.gz");

// ---------------------------------------------------------------------------------------------
// LIBSVM text

struct Counts {
  index_t rows = 0, nnz = 0, negative = 0, positive = 0;
};
Counts stream_counts(const Communicator& comm, LibsvmReader& reader) {
  Counts c;
  Example e;
  while (reader.next(e)) {
    EXPECT_FALSE(e.dense);
    ++c.rows;
    EXPECT_EQ(e.position, c.rows);  // no blank lines: example t is line t
    c.nnz += static_cast<index_t>(e.indices.size());
    (e.label < 0 ? c.negative : c.positive) += 1;
  }
  c.nnz = comm.allreduce_sum(c.nnz);
  return c;
}

// Published figures from tests/data/README.md, independent of this code.
TEST(LibsvmReader, A9aMatchesPublishedCounts) {
  const auto comm = test::world();
  LibsvmReader reader(comm, kA9a);
  EXPECT_EQ(reader.info().rows, 32561);
  EXPECT_EQ(reader.info().nnz, 451592);
  EXPECT_EQ(reader.info().max_index, 123);
  EXPECT_EQ(reader.info().label_min, -1.0);
  EXPECT_EQ(reader.info().label_max, 1.0);
  EXPECT_TRUE(reader.info().labels_integral);
  EXPECT_EQ(reader.dim(), 123);
  const Counts c = stream_counts(comm, reader);
  EXPECT_EQ(c.rows, 32561);
  EXPECT_EQ(c.nnz, 451592);
  EXPECT_EQ(c.negative, 24720);
  EXPECT_EQ(c.positive, 7841);
}

TEST(LibsvmReader, A9aTestSetTakesTheTrainingDimension) {
  const auto comm = test::world();
  LibsvmReader reader(comm, kA9aTest, LibsvmOptions{123});
  EXPECT_EQ(reader.dim(), 123);
  EXPECT_EQ(reader.partition().dim(), 123);
  EXPECT_EQ(reader.info().max_index, 122);
  const Counts c = stream_counts(comm, reader);
  EXPECT_EQ(c.rows, 16281);
  EXPECT_EQ(c.nnz, 225731);
  EXPECT_EQ(c.negative, 12435);
  EXPECT_EQ(c.positive, 3846);
  EXPECT_EQ(LibsvmReader(comm, kA9aTest).dim(), 122);
}

TEST(LibsvmReader, RanksReassembleTheGlobalRows) {
  const auto comm = test::world();
  const auto reference = reference_parse(read_gzip(kA9a));
  LibsvmReader reader(comm, kA9a);
  const index_t begin = reader.partition().begin(comm.rank()), local_dim = reader.partition().size(comm.rank());
  // (row, global index, value) of this rank's features, gathered on rank 0.
  std::vector<index_t> rows, indices;
  std::vector<double> values;
  Example e;
  std::size_t t = 0;
  while (reader.next(e)) {
    ASSERT_LT(t, reference.size());
    EXPECT_EQ(e.label, reference[t].label);
    for (std::size_t k = 0; k < e.indices.size(); ++k) {
      ASSERT_GE(e.indices[k], 0);
      ASSERT_LT(e.indices[k], local_dim);
      if (k > 0) {
        ASSERT_LT(e.indices[k - 1], e.indices[k]);
      }
      rows.push_back(static_cast<index_t>(t));
      indices.push_back(e.indices[k] + begin + 1);
      values.push_back(e.values[k]);
    }
    ++t;
  }
  EXPECT_EQ(t, reference.size());
  const auto all_rows = gather_to_root(comm, rows, MPI_INT64_T);
  const auto all_indices = gather_to_root(comm, indices, MPI_INT64_T);
  const auto all_values = gather_to_root(comm, values, MPI_DOUBLE);
  if (comm.rank() != 0) return;
  std::vector<RefRow> rebuilt(reference.size());
  for (std::size_t k = 0; k < all_rows.size(); ++k)
    rebuilt[static_cast<std::size_t>(all_rows[k])].features.emplace_back(all_indices[k], all_values[k]);
  for (std::size_t i = 0; i < reference.size(); ++i) {
    std::sort(rebuilt[i].features.begin(), rebuilt[i].features.end());
    ASSERT_EQ(rebuilt[i].features, reference[i].features) << "row " << i + 1;
  }
}

TEST_F(DataFiles, GzipAndPlainTextGiveTheSameExamples) {
  const std::string plain = write("a9a.t", comm.rank() == 0 ? read_gzip(kA9aTest) : std::string());
  LibsvmReader a(comm, kA9aTest, LibsvmOptions{123}), b(comm, plain, LibsvmOptions{123});
  EXPECT_EQ(a.info().nnz, b.info().nnz);
  Example x, y;
  index_t n = 0;
  while (a.next(x)) {
    ASSERT_TRUE(b.next(y));
    ASSERT_EQ(x.label, y.label);
    ASSERT_EQ(x.indices, y.indices);
    ASSERT_EQ(x.values, y.values);
    ASSERT_EQ(x.position, y.position);
    ++n;
  }
  EXPECT_FALSE(b.next(y));
  EXPECT_EQ(n, 16281);
}

TEST(LibsvmReader, RewindRestartsTheStream) {
  const auto comm = test::world();
  LibsvmReader reader(comm, kA9aTest);
  std::vector<Example> first(5);
  for (auto& e : first) ASSERT_TRUE(reader.next(e));
  Example e;
  while (reader.next(e)) {
  }
  reader.rewind();
  for (const auto& f : first) {
    ASSERT_TRUE(reader.next(e));
    EXPECT_EQ(e.position, f.position);
    EXPECT_EQ(e.label, f.label);
    EXPECT_EQ(e.indices, f.indices);
    EXPECT_EQ(e.values, f.values);
  }
}

TEST_F(DataFiles, AcceptsCrlfCommentsBlankLinesTabsAndNoFinalNewline) {
  const std::string path = write("ok.svm",
                                 "+1 1:0.5 3:2 \r\n"
                                 "\r\n"
                                 "# a whole-line comment\n"
                                 "-1\t2:1e-3   # tail comment\r\n"
                                 "   \n"
                                 "0\n"
                                 "2 1:-4 2:1e-400 3:.25");
  LibsvmReader reader(comm, path);
  ASSERT_EQ(reader.dim(), 3);
  EXPECT_EQ(reader.info().rows, 4);
  EXPECT_EQ(reader.info().nnz, 6);
  EXPECT_EQ(reader.info().label_min, -1.0);
  EXPECT_EQ(reader.info().label_max, 2.0);
  const std::vector<std::vector<double>> x = {{0.5, 0, 2}, {0, 1e-3, 0}, {0, 0, 0}, {-4, 0, 0.25}};
  const std::vector<double> labels = {1, -1, 0, 2};
  const std::vector<index_t> lines = {1, 4, 6, 7};
  const index_t begin = reader.partition().begin(comm.rank());
  Example e;
  for (std::size_t t = 0; t < x.size(); ++t) {
    ASSERT_TRUE(reader.next(e));
    EXPECT_EQ(e.label, labels[t]);
    EXPECT_EQ(e.position, lines[t]);
    std::vector<double> dense(static_cast<std::size_t>(reader.partition().size(comm.rank())), 0.0);
    for (std::size_t k = 0; k < e.indices.size(); ++k) dense[static_cast<std::size_t>(e.indices[k])] = e.values[k];
    for (std::size_t j = 0; j < dense.size(); ++j) EXPECT_NEAR(dense[j], x[t][begin + j], 1e-300) << "t " << t;
  }
  EXPECT_FALSE(reader.next(e));
}

TEST_F(DataFiles, ReadsLinesLongerThanTheLineBuffer) {
  std::string line = "-1";
  for (int j = 1; j <= 40000; ++j) line.append(" ").append(std::to_string(j)).append(":").append(std::to_string(j % 7));
  const std::string path = write("long.svm", line + "\n1 40000:2\n");
  LibsvmReader reader(comm, path);
  EXPECT_EQ(reader.dim(), 40000);
  EXPECT_EQ(reader.info().nnz, 40001);
  Example e;
  ASSERT_TRUE(reader.next(e));
  const index_t begin = reader.partition().begin(comm.rank());
  EXPECT_EQ(static_cast<index_t>(e.indices.size()), reader.partition().size(comm.rank()));
  for (std::size_t k = 0; k < e.indices.size(); ++k) EXPECT_EQ(e.values[k], static_cast<double>((begin + e.indices[k] + 1) % 7));
  ASSERT_TRUE(reader.next(e));
  EXPECT_EQ(e.position, 2);
}

struct BadCase {
  const char* content;
  index_t line;      // expected 1-based line (0: no line)
  const char* what;  // expected fragment of the message
  index_t dim = 0;
};

TEST_F(DataFiles, BadInputIsAnInputErrorAtTheRightLineOnEveryRank) {
  const BadCase cases[] = {
      {"1 1:1\nabc 1:1\n", 2, "invalid label 'abc'"},
      {"1 1:1\n\nnan 2:1\n", 3, "label 'nan' is not finite"},
      {"inf 2:1\n", 1, "not finite"},
      {"1 1:1\n-1 2:x\n", 2, "invalid value 'x'"},
      {"1 0:1\n", 1, "feature index 0 is not >= 1"},
      {"1 2:1\n1 -3:1\n", 2, "feature index -3 is not >= 1"},
      {"1 1.5:1\n", 1, "invalid feature index '1.5'"},
      {"1 :1\n", 1, "invalid feature index ''"},
      {"1 3:1 2:1\n", 1, "strictly ascending"},
      {"1 2:1 2:1\n", 1, "duplicate feature index 2"},
      {"1 1:1\r\n1 5:1 6:1\r\n", 2, "feature index 6 exceeds the dimension 5", 5},
      {"1 1:nan\n", 1, "not finite"},
      {"1 1:-inf\n", 1, "not finite"},
      {"1 1:1\n1 1:1\n1 1:1e400\n", 3, "value '1e400' for feature 1 is not finite"},
      {"1 3\n", 1, "has no ':'"},
      {"1 1:1\n1 99999999999999999999:1\n", 2, "feature index '99999999999999999999' is too large"},
      {"1 4611686018427387905:1\n", 1, "is too large (the largest is 2^62"},
      {"1 qid:3 1:1\n", 1, "qid: tokens"},
      {"1 1:\x01\xff\n", 1, "invalid value '\\x01\\xff'"},
      {"1 1:1\r-1 2:1\r", 1, "invalid value '1\\x0d-1'"},  // lone CR is not a line end
      {"\xEF\xBB\xBF\xEF\xBB\xBF" "1 1:1\n", 1, "invalid label '\\xef\\xbb\\xbf1'"},  // one BOM is skipped
      {"1 3:\n", 1, "invalid value ''"},
      {"", 0, "no examples"},
      {"\n# only a comment\n  \n", 0, "no examples"},
      {"1\n-1\n", 0, "no feature indices"},
  };
  int k = 0;
  for (const BadCase& c : cases) {
    const std::string path = write("bad" + std::to_string(k++) + ".svm", c.content);
    try {
      LibsvmReader reader(comm, path, LibsvmOptions{c.dim});
      ADD_FAILURE() << "no error for case " << k << ": " << c.content;
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), c.line) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST_F(DataFiles, MissingFileAndBadGzipAreInputErrors) {
  const auto expect_error = [&](const std::string& path, const char* fragment) {
    try {
      LibsvmReader reader(comm, path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error(dir + "/does-not-exist.svm", "cannot open");
  const std::string gz = comm.rank() == 0 ? read_bytes(kA9aTest) : std::string();
  // Cut short: an error, not a silently shorter data set.
  expect_error(write("cut.gz", gz.substr(0, gz.size() / 2)), "truncated");
  expect_error(write("cut-trailer.gz", gz.substr(0, gz.size() > 4 ? gz.size() - 4 : 0)), "truncated");
  std::string corrupt = gz;
  if (!corrupt.empty())
    for (std::size_t i = corrupt.size() / 2; i < corrupt.size() / 2 + 64; ++i) corrupt[i] = static_cast<char>(~corrupt[i]);
  expect_error(write("corrupt.gz", corrupt), "");  // a zlib data error or garbage text
}

TEST_F(DataFiles, LongBadTokensAreShortenedInTheMessage) {
  const std::string path = write("long-token.svm", "1 1:" + std::string(5000, 'x') + "\n");
  try {
    LibsvmReader reader(comm, path);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + std::string(40, 'x') + "' (5000 bytes, the first 40 shown)"), std::string::npos)
        << e.what();
    EXPECT_LT(std::string(e.what()).size(), 200u + path.size());
  }
}

TEST_F(DataFiles, NulBytesAndDirectoriesAreInputErrors) {
  using namespace std::string_literals;
  for (const std::string& content : {"1 1:1\n-1 2:1\0junk"s, "1 1:1\0\n"s, "\0"s}) {
    const std::string path = write("nul.svm", content);
    try {
      LibsvmReader reader(comm, path);
      ADD_FAILURE() << "no error for a NUL byte at " << content.find('\0');
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("NUL byte"), std::string::npos) << e.what();
      EXPECT_EQ(e.line(), std::count(content.begin(), content.begin() + static_cast<std::ptrdiff_t>(content.find('\0')), '\n') + 1);
    }
  }
  try {
    LibsvmReader reader(comm, dir);
    ADD_FAILURE() << "no error for a directory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("directory"), std::string::npos) << e.what();
  }
}

TEST_F(DataFiles, SkipsAUtf8ByteOrderMarkAtTheStart) {
  const std::string path = write("bom.svm", "\xEF\xBB\xBF-1 2:3\n1 1:1\n");
  LibsvmReader reader(comm, path);
  EXPECT_EQ(reader.info().rows, 2);
  EXPECT_EQ(reader.info().label_min, -1.0);
  EXPECT_EQ(reader.dim(), 2);
  Example e;
  ASSERT_TRUE(reader.next(e));
  EXPECT_EQ(e.label, -1.0);
  reader.rewind();  // skipped again after a rewind
  ASSERT_TRUE(reader.next(e));
  EXPECT_EQ(e.label, -1.0);
}

TEST(LibsvmReader, RejectsNegativeDimension) {
  EXPECT_THROW(LibsvmReader(test::world(), kA9aTest, LibsvmOptions{-1}), InvalidArgument);
}

TEST_F(DataFiles, ExamplesWithoutFeaturesNeedAGivenDimension) {
  const std::string path = write("labels-only.svm", "1\n-1 # nothing\n");
  LibsvmReader reader(comm, path, LibsvmOptions{4});
  Example e;
  ASSERT_TRUE(reader.next(e));
  EXPECT_TRUE(e.indices.empty());
  ASSERT_TRUE(reader.next(e));
  EXPECT_EQ(e.label, -1.0);
  EXPECT_FALSE(reader.next(e));
}

// ---------------------------------------------------------------------------------------------
// Dense binary

test::DenseMatrix random_matrix(index_t n, index_t d, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  test::DenseMatrix m{n, d, std::vector<double>(static_cast<std::size_t>(n * d))};
  for (auto& v : m.a) v = normal(gen);
  return m;
}

TEST_F(DataFiles, DenseBinaryRoundTrip) {
  for (const index_t d : {11, 2, 1}) {  // d = 2, 1: some ranks own no feature at 3 ranks
    const index_t n = 37;
    const auto m = random_matrix(n, d, static_cast<unsigned>(d));
    std::vector<double> labels(static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) labels[i] = static_cast<double>(i % 3) - 1.0;
    const std::string path = dir + "/round-trip-" + std::to_string(d) + ".bin";
    if (comm.rank() == 0) write_dense_binary(path, n, d, labels.data(), m.a.data());
    comm.barrier();
    DenseBinaryReader reader(comm, path, 4);  // 4-row reads: ten collective reads, the last partial
    EXPECT_EQ(reader.rows(), n);
    EXPECT_EQ(reader.dim(), d);
    for (int pass = 0; pass < 2; ++pass) {
      Example e;
      for (index_t i = 0; i < n; ++i) {
        ASSERT_TRUE(reader.next(e));
        EXPECT_TRUE(e.dense);
        EXPECT_EQ(e.position, i + 1);
        EXPECT_EQ(e.label, labels[i]);
        EXPECT_EQ(e.values, test::local_slice(m, i, reader.partition(), comm.rank())) << "row " << i;
      }
      EXPECT_FALSE(reader.next(e));
      reader.rewind();
    }
  }
}

TEST_F(DataFiles, DenseBinaryRejectsBadFiles) {
  const auto m = random_matrix(5, 3, 1);
  const std::vector<double> labels(5, 1.0);
  const std::string good = dir + "/good.bin";
  if (comm.rank() == 0) write_dense_binary(good, 5, 3, labels.data(), m.a.data());
  comm.barrier();
  const std::string bytes = comm.rank() == 0 ? read_bytes(good) : std::string();
  const auto expect_error = [&](const std::string& path, const char* fragment) {
    try {
      DenseBinaryReader reader(comm, path);
      ADD_FAILURE() << "no error for " << path;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error(write("long.bin", bytes + std::string(8, '\0')), "does not match the header");
  expect_error(write("short.bin", bytes.substr(0, bytes.size() > 1 ? bytes.size() - 1 : 0)), "does not match the header");
  expect_error(write("header.bin", bytes.substr(0, 10)), "shorter than its 24-byte header");
  std::string magic = bytes;
  if (!magic.empty()) magic[0] = 'X';
  expect_error(write("magic.bin", magic), "magic");
  expect_error(dir + "/missing.bin", "cannot open");
}

// ---------------------------------------------------------------------------------------------
// Synthetic generators

// The same data at every rank count: the world run against a 1-rank run on MPI_COMM_SELF.
void expect_rank_count_independent(const Communicator& comm,
                                   const std::function<std::unique_ptr<ExampleSource>(const Communicator&)>& make) {
  auto source = make(comm);
  const Gathered world = gather_dense(comm, *source);
  if (comm.rank() != 0) return;
  auto single = make(Communicator(MPI_COMM_SELF));
  const Gathered self = gather_dense(Communicator(MPI_COMM_SELF), *single);
  ASSERT_EQ(world.n, self.n);
  EXPECT_LT(test::relative_max_diff(world.x, self.x), 1e-12);
  EXPECT_LT(test::relative_max_diff(world.labels, self.labels), 1e-12);
}

TEST(Synthetic, SameDataAtEveryRankCount) {
  const auto comm = test::world();
  expect_rank_count_independent(comm, [](const Communicator& c) {
    return make_low_rank_regression(c, LowRankRegressionOptions{.dim = 13, .examples = 50, .rank = 7, .seed = 3});
  });
  expect_rank_count_independent(comm, [](const Communicator& c) {
    return make_ill_conditioned_classification(c, IllConditionedOptions{.dim = 11, .examples = 60, .ill_directions = 4});
  });
  // d = 2 < P at 3 ranks: a rank with no features.
  expect_rank_count_independent(comm, [](const Communicator& c) {
    return make_ill_conditioned_classification(c, IllConditionedOptions{.dim = 2, .examples = 20, .ill_directions = 2});
  });
}

// Sample second-moment eigenvalues (after removing `mean`), descending.
std::vector<double> sample_spectrum(const Gathered& g, index_t d, double mean) {
  test::DenseMatrix centered{g.n, d, g.x};
  for (auto& v : centered.a) v -= mean;
  auto cov = test::gram_of_columns(centered);
  for (auto& v : cov) v /= static_cast<double>(g.n);
  return test::eigenvalues_desc(cov, d);
}

TEST(Synthetic, LowRankRegressionFollowsTheDecayingSpectrum) {
  const auto comm = test::world();
  const LowRankRegressionOptions o{.dim = 30, .examples = 6000, .lambda0 = 100.0, .decay = 1.0, .mean = 1.0, .rank = 6, .seed = 5};
  auto source = make_low_rank_regression(comm, o);
  EXPECT_EQ(source->dim(), 30);
  const Gathered g = gather_dense(comm, *source);
  if (comm.rank() != 0) return;
  ASSERT_EQ(g.n, 6000);
  double sum = 0.0;
  for (double v : g.x) sum += v;
  EXPECT_NEAR(sum / static_cast<double>(g.x.size()), 1.0, 0.1);
  const auto lambda = sample_spectrum(g, o.dim, o.mean);
  for (index_t j = 1; j <= o.rank; ++j) EXPECT_NEAR(lambda[j - 1] / (100.0 / static_cast<double>(j)), 1.0, 0.15) << "j " << j;
  for (index_t j = o.rank; j < o.dim; ++j) EXPECT_LT(std::abs(lambda[j]), 1e-9) << "j " << j + 1;
}

TEST(Synthetic, RegressionTargetIsAUnitLinearFunction) {
  // Full rank (r = d): least squares recovers β* exactly, so y = β*ᵀx with ‖β*‖ = 1.
  const auto comm = test::world();
  const index_t d = 8, n = 100;
  auto source = make_low_rank_regression(comm, LowRankRegressionOptions{.dim = d, .examples = n, .decay = 0.5, .rank = d});
  Gathered g = gather_dense(comm, *source);
  if (comm.rank() != 0) return;
  const std::vector<double> y = g.labels;
  std::vector<double> rhs = y;
  ASSERT_EQ(LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', static_cast<int>(n), static_cast<int>(d), 1, g.x.data(),
                          static_cast<int>(d), rhs.data(), 1),
            0);
  double norm2 = 0.0, residual2 = 0.0;
  for (index_t j = 0; j < d; ++j) norm2 += rhs[j] * rhs[j];
  for (index_t i = d; i < n; ++i) residual2 += rhs[i] * rhs[i];
  EXPECT_NEAR(std::sqrt(norm2), 1.0, 1e-9);
  EXPECT_LT(std::sqrt(residual2), 1e-8);
}

TEST(Synthetic, IllConditionedSpectrumAndSeparableLabels) {
  const auto comm = test::world();
  const IllConditionedOptions o{.dim = 20, .examples = 6000, .condition = 50.0, .ill_directions = 5, .seed = 9};
  auto source = make_ill_conditioned_classification(comm, o);
  const Gathered g = gather_dense(comm, *source);
  if (comm.rank() != 0) return;
  // λ = (1 + 49·i/5 for i = 5..1, then fifteen 1s), descending.
  const auto lambda = sample_spectrum(g, o.dim, 0.0);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(lambda[i] / (1.0 + 49.0 * (5 - i) / 5.0), 1.0, 0.15) << "i " << i;
  for (index_t i = 5; i < o.dim; ++i) EXPECT_NEAR(lambda[i], 1.0, 0.25) << "i " << i;
  index_t positive = 0;
  for (double y : g.labels) {
    ASSERT_TRUE(y == 1.0 || y == -1.0);
    positive += y > 0 ? 1 : 0;
  }
  EXPECT_GT(positive, g.n / 4);
  EXPECT_LT(positive, 3 * g.n / 4);
  // y = sign(θᵀx): the labels are linearly separable through the origin. The least-squares
  // direction estimates θ; a perceptron started there reaches zero training mistakes.
  const index_t d = o.dim, n = 2000;
  std::vector<double> a(g.x.begin(), g.x.begin() + n * d), w(g.labels.begin(), g.labels.begin() + n);
  ASSERT_EQ(LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', static_cast<int>(n), static_cast<int>(d), 1, a.data(), static_cast<int>(d),
                          w.data(), 1),
            0);
  w.resize(static_cast<std::size_t>(d));
  index_t mistakes = 1;
  for (int epoch = 0; epoch < 5000 && mistakes > 0; ++epoch) {
    mistakes = 0;
    for (index_t i = 0; i < n; ++i) {
      const double* x = g.x.data() + i * d;
      double dot = 0.0;
      for (index_t j = 0; j < d; ++j) dot += w[j] * x[j];
      if (dot * g.labels[i] <= 0.0) {
        ++mistakes;
        for (index_t j = 0; j < d; ++j) w[j] += g.labels[i] * x[j];
      }
    }
  }
  EXPECT_EQ(mistakes, 0);
}

TEST(Synthetic, RewindReplaysAndTheStreamEnds) {
  const auto comm = test::world();
  auto source = make_ill_conditioned_classification(comm, IllConditionedOptions{.dim = 7, .examples = 3, .ill_directions = 3});
  std::vector<Example> first(3);
  for (auto& e : first) ASSERT_TRUE(source->next(e));
  Example e;
  EXPECT_FALSE(source->next(e));
  source->rewind();
  for (const auto& f : first) {
    ASSERT_TRUE(source->next(e));
    EXPECT_EQ(e.values, f.values);
    EXPECT_EQ(e.label, f.label);
    EXPECT_EQ(e.position, f.position);
  }
}

TEST(Synthetic, RejectsBadOptions) {
  const auto comm = test::world();
  EXPECT_THROW(make_low_rank_regression(comm, LowRankRegressionOptions{.dim = 5, .rank = 6}), InvalidArgument);
  EXPECT_THROW(make_low_rank_regression(comm, LowRankRegressionOptions{.lambda0 = 0.0}), InvalidArgument);
  EXPECT_THROW(make_ill_conditioned_classification(comm, IllConditionedOptions{.condition = 0.5}), InvalidArgument);
  EXPECT_THROW(make_ill_conditioned_classification(comm, IllConditionedOptions{.dim = 5, .ill_directions = 6}), InvalidArgument);
}

}  // namespace
