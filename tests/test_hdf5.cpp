// The parallel HDF5 reader: the examples the test wrote (float64 and float32), in chunks, at any rank
// count; training on it gives the weights of training on the same rows as LIBSVM text; bad files fail
// on every rank with the same InputError.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "adasketch/data/hdf5_reader.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/error.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/training/online_training.hpp"
#include "hdf5/hdf5_data.hpp"
#include "test_support.hpp"

using namespace adasketch;
using adasketch::test::Hdf5Data;

namespace {

constexpr long kRows = 37, kDim = 7;

// A directory made by rank 0 and shared with the others; removed at the end.
class Hdf5Files : public ::testing::Test {
 protected:
  void SetUp() override {
    const Communicator comm = test::world();
    std::array<char, 64> name{};
    if (comm.rank() == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "adasketch-h5.XXXXXX").string();
      ASSERT_NE(mkdtemp(pattern.data()), nullptr);
      ASSERT_LT(pattern.size(), name.size());
      std::copy(pattern.begin(), pattern.end(), name.begin());
    }
    comm.broadcast(name, 0);
    dir_ = name.data();
    data_ = test::make_hdf5_data(kRows, kDim, 11);
  }
  void TearDown() override {
    const Communicator comm = test::world();
    comm.barrier();
    if (comm.rank() == 0) std::filesystem::remove_all(dir_);
  }
  // Rank 0 writes with `write`; every rank gets the path.
  template <class Write>
  std::string file(const std::string& name, Write&& write) {
    const std::string path = dir_ + "/" + name;
    if (test::world().rank() == 0) write(path);
    test::world().barrier();
    return path;
  }
  std::string dir_;
  Hdf5Data data_;
};

TEST_F(Hdf5Files, EachRankReadsItsColumnsOfEveryRowInChunks) {
  const Communicator comm = test::world();
  for (const bool single : {false, true}) {
    const std::string path = file(single ? "f32.h5" : "f64.h5", [&](const std::string& p) { test::write_hdf5(p, data_, single); });
    Hdf5Reader reader(comm, path, {}, 5);  // chunks of 5 rows: 8 reads, the last one short
    ASSERT_EQ(reader.rows(), kRows);
    ASSERT_EQ(reader.dim(), kDim);
    const BlockPartition& part = reader.partition();
    for (int pass = 0; pass < 2; ++pass) {
      Example e;
      for (long i = 0; i < kRows; ++i) {
        ASSERT_TRUE(reader.next(e));
        EXPECT_EQ(e.position, i + 1);
        EXPECT_TRUE(e.dense);
        EXPECT_EQ(e.label, data_.labels[static_cast<std::size_t>(i)]);
        ASSERT_EQ(static_cast<index_t>(e.values.size()), part.size(comm.rank()));
        for (index_t j = part.begin(comm.rank()); j < part.end(comm.rank()); ++j)
          EXPECT_EQ(e.values[static_cast<std::size_t>(j - part.begin(comm.rank()))],
                    data_.x[static_cast<std::size_t>(i * kDim + j)]) << "row " << i << ", column " << j;
      }
      EXPECT_FALSE(reader.next(e));
      reader.rewind();
    }
    EXPECT_EQ(reader.skip(30), 30);
    Example e;
    ASSERT_TRUE(reader.next(e));
    EXPECT_EQ(e.position, 31);
    EXPECT_EQ(e.label, data_.labels[30]);
  }
}

TEST_F(Hdf5Files, RanksWithoutColumnsTakePartInTheCollectiveReads) {
  const Communicator comm = test::world();
  const Hdf5Data narrow = test::make_hdf5_data(9, 2, 5);  // at 3 ranks, the last one owns no feature
  const std::string path = file("narrow.h5", [&](const std::string& p) { test::write_hdf5(p, narrow); });
  Hdf5Reader reader(comm, path, {}, 4);
  const BlockPartition& part = reader.partition();
  Example e;
  for (long i = 0; i < narrow.n; ++i) {
    ASSERT_TRUE(reader.next(e));
    EXPECT_EQ(e.label, narrow.labels[static_cast<std::size_t>(i)]);
    ASSERT_EQ(static_cast<index_t>(e.values.size()), part.size(comm.rank()));
    for (std::size_t j = 0; j < e.values.size(); ++j)
      EXPECT_EQ(e.values[j], narrow.x[static_cast<std::size_t>(i * 2 + part.begin(comm.rank())) + j]);
  }
  EXPECT_FALSE(reader.next(e));
}

TEST_F(Hdf5Files, TrainsToTheWeightsOfTheSameRowsAsLibsvm) {
  const Communicator comm = test::world();
  const std::string h5 = file("d.h5", [&](const std::string& p) { test::write_hdf5(p, data_); });
  const std::string svm = file("d.svm", [&](const std::string& p) { test::write_libsvm(p, data_); });
  Hdf5Reader hdf5(comm, h5);
  LibsvmReader libsvm(comm, svm, {.dim = kDim});
  LearnerSpec spec;
  spec.algorithm = "ada-diag";
  spec.form = FormChoice::dense;
  const LabelMap labels = LabelMap::of_loss(Loss(spec.loss));
  auto a = make_learner(comm, kDim, spec), b = make_learner(comm, kDim, spec);
  const TrainingStats sa = train(*a, hdf5, labels, {.passes = 2}), sb = train(*b, libsvm, labels, {.passes = 2});
  EXPECT_EQ(sa.examples, 2 * kRows);
  EXPECT_EQ(sa.mistakes, sb.mistakes);
  std::vector<double> wa(static_cast<std::size_t>(a->local_dim())), wb(wa.size());
  a->weights(wa);
  b->weights(wb);
  for (std::size_t j = 0; j < wa.size(); ++j) EXPECT_NEAR(wa[j], wb[j], 1e-15 * std::max(1.0, std::abs(wb[j])));
}

// Every rank throws an InputError naming the file and containing `needle`.
template <class Open>
void expect_input_error(const std::string& path, const std::string& needle, Open&& open) {
  try {
    open();
    ADD_FAILURE() << "no error for " << path;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST_F(Hdf5Files, BadFilesFailOnEveryRank) {
  const Communicator comm = test::world();
  const auto open = [&](const std::string& path) { return [&comm, path] { Hdf5Reader r(comm, path); }; };
  const std::string missing = dir_ + "/missing.h5";
  expect_input_error(missing, "no such file", open(missing));
  const std::string text = file("text.h5", [&](const std::string& p) { test::write_libsvm(p, data_); });
  expect_input_error(text, "cannot open as an HDF5 file", open(text));
  const std::string names = file("names.h5", [&](const std::string& p) { test::write_hdf5(p, data_, false, "A", "y"); });
  expect_input_error(names, "no dataset 'X'", open(names));
  const std::string swapped = file("swapped.h5", [&](const std::string& p) { test::write_hdf5(p, data_, false, "y", "X"); });
  expect_input_error(swapped, "dataset 'X' is not two-dimensional", open(swapped));
  const std::string mismatch = file("mismatch.h5", [&](const std::string& p) {
    test::write_hdf5(p, data_);
    test::add_labels(p, "short", std::vector<double>(data_.labels.begin(), data_.labels.end() - 1));
  });
  expect_input_error(mismatch, "dataset 'short' has 36 labels for 37 rows of 'X'",
                     [&] { Hdf5Reader r(comm, mismatch, {.x = "X", .y = "short"}); });
  Hdf5Data bad = data_;
  bad.x[static_cast<std::size_t>(11 * kDim + kDim - 1)] = std::numeric_limits<double>::quiet_NaN();  // the last rank's column
  const std::string nan = file("nan.h5", [&](const std::string& p) { test::write_hdf5(p, bad); });
  expect_input_error(nan, "row 12: a value or the label is not finite", [&] {
    Hdf5Reader r(comm, nan, {}, 5);
    Example e;
    while (r.next(e)) {
    }
  });
  // Dataset names are options.
  const std::string renamed = file("renamed.h5", [&](const std::string& p) { test::write_hdf5(p, data_, false, "data", "target"); });
  Hdf5Reader r(comm, renamed, {.x = "data", .y = "target"});
  EXPECT_EQ(r.rows(), kRows);
}

}  // namespace
