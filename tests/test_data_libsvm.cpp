// The parallel LIBSVM reader against the serial reader it replaced (libsvm_serial_reference.hpp): on
// every file of the hostile corpus (plain and gzip), the inputs the hostile runner generates, the real
// data sets and crafted round boundaries, at chunk sizes down to one byte and with the cache kept or
// not, every rank must see the same examples (label, line, its own features, bitwise) in two passes
// and after skips, or throw the same error (file, line, message). The ctest runs at 1, 2 and 3 ranks
// compare each rank count with the same serial reference.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/error.hpp"
#include "libsvm_serial_reference.hpp"
#include "test_support.hpp"

using namespace adasketch;
using test::SerialExample;
using test::SerialResult;

namespace {

constexpr index_t kDefaultChunk = LibsvmOptions{}.chunk_bytes;
constexpr index_t kDefaultCache = LibsvmOptions{}.cache_bytes;

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

std::string gzip_bytes(const std::string& text) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("test: deflateInit2");
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("test: deflate");
  return out;
}

std::vector<std::uint64_t> bits(const std::vector<double>& v) {
  std::vector<std::uint64_t> out(v.size());
  std::transform(v.begin(), v.end(), out.begin(), [](double x) { return std::bit_cast<std::uint64_t>(x); });
  return out;
}

// Whether `e` is reference example `r` as the calling rank must see it: its label and line, and the
// features of [begin, end) as local indices, bitwise.
bool same_example(const Example& e, const SerialExample& r, index_t begin, index_t end) {
  std::vector<index_t> indices;
  std::vector<double> values;
  for (std::size_t k = 0; k < r.indices.size(); ++k)
    if (r.indices[k] >= begin && r.indices[k] < end) {
      indices.push_back(r.indices[k] - begin);
      values.push_back(r.values[k]);
    }
  return !e.dense && std::bit_cast<std::uint64_t>(e.label) == std::bit_cast<std::uint64_t>(r.label) &&
         e.position == r.position && e.indices == indices && bits(e.values) == bits(values);
}

// A temp directory shared by all ranks: rank 0 creates it, every rank learns its name.
class ParallelReader : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<char> name(256, '\0');
    if (comm.rank() == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "adasketch-test-parallel-XXXXXX").string();
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

  /// Reads `path` with every chunk size and cache setting given and compares with the serial reader
  /// (every rank computes the reference itself). `skips`: also check skip() at several positions.
  void expect_serial(const std::string& path, const std::vector<index_t>& chunks, index_t dim = 0, bool skips = false) {
    const SerialResult ref = test::serial_libsvm(path, dim);
    for (const index_t chunk : chunks)
      for (const index_t cache : {index_t{0}, kDefaultCache}) compare(path, ref, LibsvmOptions{dim, chunk, cache}, skips);
  }

  void compare(const std::string& path, const SerialResult& ref, const LibsvmOptions& options, bool skips) {
    SCOPED_TRACE(path + ", d " + std::to_string(options.dim) + ", chunk " + std::to_string(options.chunk_bytes) +
                 ", cache " + std::to_string(options.cache_bytes));
    std::unique_ptr<LibsvmReader> reader;
    try {
      reader = std::make_unique<LibsvmReader>(comm, path, options);
    } catch (const InputError& e) {
      EXPECT_TRUE(ref.failed) << "the serial reader accepts the file; the parallel one: " << e.what();
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), ref.line);
      EXPECT_STREQ(e.what(), InputError(path, ref.line, ref.reason).what());
      return;
    }
    ASSERT_FALSE(ref.failed) << "accepted; the serial reader fails at line " << ref.line << ": " << ref.reason;
    const DatasetInfo& info = reader->info();
    EXPECT_EQ(info.rows, ref.info.rows);
    EXPECT_EQ(info.nnz, ref.info.nnz);
    EXPECT_EQ(info.max_index, ref.info.max_index);
    EXPECT_EQ(info.label_min, ref.info.label_min);
    EXPECT_EQ(info.label_max, ref.info.label_max);
    EXPECT_EQ(info.labels_integral, ref.info.labels_integral);
    EXPECT_EQ(reader->dim(), options.dim > 0 ? options.dim : ref.info.max_index);
    const index_t begin = reader->partition().begin(comm.rank()), end = reader->partition().end(comm.rank());
    const index_t n = static_cast<index_t>(ref.examples.size());
    Example e;
    // Every rank makes the same calls whatever it sees (a rank leaving early would hang the others).
    const auto expect_from = [&](index_t t, index_t count) {
      index_t wrong = 0, first_wrong = -1;
      for (index_t i = t; i < t + count; ++i) {
        const bool got = reader->next(e);
        if (i < n ? !got || !same_example(e, ref.examples[static_cast<std::size_t>(i)], begin, end) : got) {
          wrong += 1;
          if (first_wrong < 0) first_wrong = i;
        }
      }
      EXPECT_EQ(wrong, 0) << "first wrong example: " << first_wrong << " (0-based, of " << n << ")";
    };
    for (int pass = 0; pass < 2; ++pass) {
      expect_from(0, n + 1);
      reader->rewind();
    }
    if (!skips) return;
    for (const index_t k : {index_t{0}, index_t{1}, index_t{2}, n / 2, n - 1, n, n + 3}) {
      reader->rewind();
      EXPECT_EQ(reader->skip(k), std::min(k, n)) << "skip " << k;
      expect_from(std::min(k, n), 2);
    }
    reader->rewind();  // skips from inside a round
    expect_from(0, 1);
    EXPECT_EQ(reader->skip(2), std::min<index_t>(2, n - 1));
    expect_from(3, 1);
    EXPECT_EQ(reader->skip(n), std::max<index_t>(0, n - 4));
    expect_from(n, 1);
  }

  Communicator comm = test::world();
  std::string dir;
};

const std::vector<index_t> kSmallChunks = {1, 2, 3, 5, 8, 13, kDefaultChunk};

std::vector<std::string> hostile_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ADASKETCH_TEST_HOSTILE_DIR) + "/libsvm"))
    files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST_F(ParallelReader, HostileCorpusAsTheSerialReader) {
  const auto files = hostile_files();
  ASSERT_GE(files.size(), 50u);
  for (const std::string& file : files) {
    expect_serial(file, {1, 7, kDefaultChunk});
    const std::string name = std::filesystem::path(file).filename().string();
    expect_serial(write(name + ".gz", comm.rank() == 0 ? gzip_bytes(read_bytes(file)) : std::string()), {1, 7, kDefaultChunk});
  }
  // The corpus's cases with --dim (an index beyond it, labels without features).
  const std::string h = std::string(ADASKETCH_TEST_HOSTILE_DIR) + "/libsvm/";
  expect_serial(h + "ok.svm", {1, 7, kDefaultChunk}, 2);
  expect_serial(h + "labels_only.svm", {1, 7, kDefaultChunk}, 3);
  expect_serial(h + "wide.svm", {1, 7, kDefaultChunk}, 4);
  expect_serial(h + "ok.svm", {1, kDefaultChunk}, 10);
}

// The inputs tests/hostile/run_hostile.sh generates (but its 1.5 GB gzip bomb).
TEST_F(ParallelReader, GeneratedHostileInputsAsTheSerialReader) {
  const std::string h = std::string(ADASKETCH_TEST_HOSTILE_DIR) + "/libsvm/";
  const std::string ok = read_bytes(h + "ok.svm"), gz = gzip_bytes(ok);
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(~bad_crc[bad_crc.size() - 8]);
  std::string long_line = "+1";
  for (int i = 1; i <= 200000; ++i) long_line.append(" ").append(std::to_string(i)).append(":1");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gz_cut.gz", gz.substr(0, gz.size() / 2)},
      {"gz_header_only.gz", gz.substr(0, 10)},
      {"gz_bad_crc.gz", bad_crc},
      {"gz_concat.gz", gz + gz},
      {"gz_trailing_garbage.gz", gz + "trailing garbage\n"},
      {"gz_not_deflate.gz", "\x1f\x8bnot deflate data at all\n"},
      {"gz_empty.gz", gzip_bytes("")},
      {"gz_bad_text.gz", gzip_bytes(read_bytes(h + "label_word.svm"))},
      {"long_line.svm", long_line + "\n-1 1:1\n"},
      {"long_token.svm", "+1 1:" + std::string(1 << 20, 'x') + "\n"},
      {"gzip_magic_only.gz", "\x1f\x8b"},
      {"one_byte.svm", "\x1f"},
  };
  for (const auto& [name, bytes] : cases) {
    const std::string path = write(name, comm.rank() == 0 ? bytes : std::string());
    expect_serial(path, bytes.size() > 100000 ? std::vector<index_t>{4096, kDefaultChunk} : kSmallChunks);
  }
}

TEST_F(ParallelReader, RealDataAsTheSerialReader) {
  for (const char* name : {"a9a.gz", "a9a.t.gz", "usps_esl.t.gz"}) {
    const std::string gz = test::data_path(name);
    expect_serial(gz, {kDefaultChunk, 65536}, 0, true);
    const std::string plain = write(std::string(name) + ".txt", comm.rank() == 0 ? read_gzip(gz) : std::string());
    expect_serial(plain, {kDefaultChunk, 65536}, 0, true);
  }
  expect_serial(test::data_path("a9a.t.gz"), {kDefaultChunk}, 123);
}

// Round boundaries: blank and comment lines, CRLF, a BOM and a last line without '\n' where chunks
// end, lines straddling chunks, ranks without lines, files shorter than the number of ranks.
TEST_F(ParallelReader, RoundBoundariesAsTheSerialReader) {
  const std::vector<std::string> texts = {
      "1 1:1\n",
      "1 1:1",
      "1",
      "1\n",
      "\n1 1:2\n",
      "+1 1:0.5 3:2 \r\n\r\n# a whole-line comment\n-1\t2:1e-3   # tail comment\r\n   \n0\n2 1:-4 2:1e-400 3:.25",
      "\xEF\xBB\xBF-1 2:3\n1 1:1\n",
      "\xEF\xBB\xBF",
      "1 1:1\n\xEF\xBB\xBF-1 2:1\n",  // a BOM where a block starts, but not the file: an error
      "\n\n\n\n\n\n\n\n1 9:1\n\n\n\n",
      "# c\n# c\n1 1:1 2:2 3:3 4:4 5:5 6:6 7:7 8:8 9:9 10:10 11:11 12:12\n#\n-1 12:1\n",
      "1 1:1\r\n-1 2:2\r\n1 3:3\r\n",
      "1 1:1\n2 2:2\n3 3:3\n4 4:4\n5 5:5\n6 6:6\n7 7:7\n8 8:8\n9 9:9\n10 10:10\n11 11:11\n12 12:12",
      "1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 1:1\nx\n1 1:1\ny\n",  // the first of two errors
      "1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 2:1 1:1\n",
      "1 1:1\n1 1:1\n1 1:1\n\n1 1:1\0\n1 1:1\n",
      std::string("1 1:1\n-1 2:1\0junk", 18),
      "1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 1:1\n1 5:1 6:1\n",
  };
  int k = 0;
  for (const std::string& text : texts) {
    const std::string name = "round" + std::to_string(k++);
    for (const index_t dim : {index_t{0}, index_t{5}}) {
      expect_serial(write(name + ".svm", text), kSmallChunks, dim, true);
      expect_serial(write(name + ".gz", comm.rank() == 0 ? gzip_bytes(text) : std::string()), kSmallChunks, dim, true);
    }
  }
}

TEST_F(ParallelReader, ManyRoundsWithTinyChunks) {
  // 300 lines of varying length with blank lines and comments: many rounds of every kind.
  std::string text;
  for (int i = 1; i <= 300; ++i) {
    if (i % 17 == 0) text += "\n";
    if (i % 29 == 0) text += "# comment " + std::to_string(i) + "\n";
    text += std::to_string(i % 3 - 1);
    for (int j = 1 + i % 5; j <= 40; j += 1 + (i * j) % 7)
      text.append(" ").append(std::to_string(j)).append(":").append(std::to_string(i * j % 11)).append(".5");
    text += i % 2 == 0 ? "\r\n" : "\n";
  }
  expect_serial(write("many.svm", text), {1, 3, 31, 256, kDefaultChunk}, 0, true);
  expect_serial(write("many.gz", comm.rank() == 0 ? gzip_bytes(text) : std::string()), {1, 3, 31, 256}, 0, true);
}

TEST_F(ParallelReader, StatsCountTheTextOfEveryPass) {
  const std::string text = "1 1:1 2:2\n\n-1 3:1\n1 2:5\n";
  for (const bool gzip : {false, true})
    for (const index_t cache : {index_t{0}, kDefaultCache}) {
      const std::string path = write(gzip ? "stats.gz" : "stats.svm", comm.rank() == 0 ? (gzip ? gzip_bytes(text) : text) : std::string());
      LibsvmReader reader(comm, path, LibsvmOptions{0, 4, cache});
      EXPECT_EQ(reader.cached(), cache > 0);
      const auto total = [&](index_t v) { return comm.allreduce_sum(v); };
      EXPECT_EQ(total(reader.stats().bytes), static_cast<index_t>(text.size()));
      EXPECT_EQ(total(reader.stats().examples), 3);
      Example e;
      while (reader.next(e)) {
      }
      EXPECT_EQ(total(reader.stats().bytes), 2 * static_cast<index_t>(text.size()));
      EXPECT_EQ(total(reader.stats().examples), 6);
      const ParseStats& s = reader.stats();
      EXPECT_GE(s.read_seconds, 0.0);
      EXPECT_GE(s.parse_seconds, 0.0);
      EXPECT_GE(s.exchange_seconds, 0.0);
      EXPECT_EQ(s.seconds(), s.read_seconds + s.parse_seconds + s.exchange_seconds);
    }
}

TEST_F(ParallelReader, TheCacheIsKeptOnlyIfItFitsOnEveryRank) {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "1 1:1 2:2 3:3\n";
  const std::string path = write("cache.svm", text);
  EXPECT_TRUE(LibsvmReader(comm, path, LibsvmOptions{0, 64, kDefaultCache}).cached());
  EXPECT_FALSE(LibsvmReader(comm, path, LibsvmOptions{0, 64, 0}).cached());
  // 300 examples of 3 features: about 21 KB in all, more than 2 KB on some rank at any rank count.
  EXPECT_FALSE(LibsvmReader(comm, path, LibsvmOptions{0, 64, 2048}).cached());
}

TEST_F(ParallelReader, RejectsBadOptions) {
  const std::string path = write("ok.svm", "1 1:1\n");
  EXPECT_THROW(LibsvmReader(comm, path, LibsvmOptions{0, 0, 0}), InvalidArgument);
  EXPECT_THROW(LibsvmReader(comm, path, LibsvmOptions{0, (index_t{1} << 30) + 1, 0}), InvalidArgument);
  EXPECT_THROW(LibsvmReader(comm, path, LibsvmOptions{0, 1, -1}), InvalidArgument);
}

}  // namespace
