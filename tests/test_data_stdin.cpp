// LIBSVM text from standard input ("-"): rank 0 reads it (plain or gzip) and the ranks receive the
// examples a file would give, pass after pass from the cache; a stream too large for the cache is
// refused on every rank.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/error.hpp"
#include "test_support.hpp"

using namespace adasketch;

namespace {

constexpr index_t kRows = 40, kDim = 8;

// Row i: label +1 for even i, −1 for odd; feature j (0-based) is (i·d + j)/4 unless (i + j) % 3 == 0.
bool present(index_t i, index_t j) { return (i + j) % 3 != 0; }
double value(index_t i, index_t j) { return static_cast<double>(i * kDim + j) / 4.0; }

std::string text() {
  std::string out;
  for (index_t i = 0; i < kRows; ++i) {
    out += i % 2 == 0 ? "+1" : "-1";
    for (index_t j = 0; j < kDim; ++j) {
      if (!present(i, j)) continue;
      char entry[48];
      std::snprintf(entry, sizeof entry, " %lld:%.17g", static_cast<long long>(j + 1), value(i, j));
      out.append(entry);
    }
    out += "\n";
  }
  return out;
}

// Rank 0: standard input now reads `path` from its start.
void redirect_stdin(const std::string& path) {
  if (test::world().rank() != 0) return;
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::dup2(fd, STDIN_FILENO), STDIN_FILENO);
  ::close(fd);
}

class StandardInput : public ::testing::Test {
 protected:
  void SetUp() override {
    const Communicator comm = test::world();
    std::array<char, 64> name{};
    if (comm.rank() == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "adasketch-stdin.XXXXXX").string();
      ASSERT_NE(mkdtemp(pattern.data()), nullptr);
      std::copy(pattern.begin(), pattern.end(), name.begin());
      std::FILE* f = std::fopen((std::string(name.data()) + "/d.svm").c_str(), "w");
      ASSERT_NE(f, nullptr);
      std::fputs(text().c_str(), f);
      std::fclose(f);
      gzFile g = gzopen((std::string(name.data()) + "/d.svm.gz").c_str(), "wb");
      ASSERT_NE(g, nullptr);
      gzputs(g, text().c_str());
      gzclose(g);
    }
    comm.broadcast(name, 0);
    dir_ = name.data();
  }
  void TearDown() override {
    test::world().barrier();
    if (test::world().rank() == 0) std::filesystem::remove_all(dir_);
  }
  std::string dir_;
};

TEST_F(StandardInput, GivesEveryRankItsFeaturesOfEveryRowPassAfterPass) {
  const Communicator comm = test::world();
  for (const char* name : {"/d.svm", "/d.svm.gz"}) {
    redirect_stdin(dir_ + name);
    LibsvmReader reader(comm, "-", {.chunk_bytes = 50});  // many rounds
    EXPECT_TRUE(reader.cached());
    EXPECT_EQ(reader.info().rows, kRows);
    ASSERT_EQ(reader.dim(), kDim);
    const index_t begin = reader.partition().begin(comm.rank()), end = reader.partition().end(comm.rank());
    for (int pass = 0; pass < 2; ++pass) {
      Example e;
      for (index_t i = 0; i < kRows; ++i) {
        ASSERT_TRUE(reader.next(e)) << name << ", pass " << pass;
        EXPECT_EQ(e.label, i % 2 == 0 ? 1.0 : -1.0);
        std::size_t at = 0;
        for (index_t j = begin; j < end; ++j) {
          if (!present(i, j)) continue;
          ASSERT_LT(at, e.indices.size());
          EXPECT_EQ(e.indices[at], j - begin);
          EXPECT_EQ(e.values[at], value(i, j));
          ++at;
        }
        EXPECT_EQ(at, e.indices.size());
      }
      EXPECT_FALSE(reader.next(e));
      reader.rewind();
    }
  }
}

TEST_F(StandardInput, TooLargeForTheCacheIsRefusedOnEveryRank) {
  const Communicator comm = test::world();
  redirect_stdin(dir_ + "/d.svm");
  try {
    LibsvmReader reader(comm, "-", {.cache_bytes = 64});
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "-");
    EXPECT_NE(std::string(e.what()).find("do not fit the cache budget (64 bytes per rank)"), std::string::npos) << e.what();
  }
}

}  // namespace
