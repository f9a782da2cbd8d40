// Checkpoint files (checkpoint.hpp): a crash between the temporary file and the rename leaves the
// previous checkpoint intact; corrupt, truncated, foreign and mismatched files are refused with an
// InputError naming the file, on every rank, in one line.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "checkpoint_support.hpp"
#include "io/checkpoint_interrupted.hpp"  // lib/src: a crash before the rename
#include "format_checksums.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

TEST(Checkpoint, CrashBeforeRenameKeepsThePreviousCheckpoint) {
  const std::string path = shared_checkpoint_dir() + "/crash.ckpt";
  const StepData data = make_step_data(false);
  const LearnerSpec spec = checkpoint_spec("fast-rfd-son", false);
  auto a = make_learner(world(), kCheckpointDim, spec);
  run_steps(*a, data, 0, 6);
  save_checkpoint(path, *a, run_after(*a, 6));
  const std::vector<double> at_first = local_weights(*a);
  run_steps(*a, data, 6, 12);
  EXPECT_THROW(detail::save_checkpoint_interrupted(path, *a, run_after(*a, 12), [] { throw std::runtime_error("crash"); }),
               std::runtime_error);
  EXPECT_TRUE(std::filesystem::exists(path + ".tmp"));  // the complete new state, never renamed
  auto b = make_learner(world(), kCheckpointDim, spec);
  EXPECT_EQ(load_checkpoint(path, *b).run.state.examples, 6);
  EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*b), at_first)));
  // The temporary file of the interrupted save is overwritten by the next save.
  save_checkpoint(path, *a, run_after(*a, 12));
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
  const std::uint64_t h = fnv1a(b.data(), 0, 504);
  std::memcpy(b.data() + 504, &h, 8);
}

std::uint64_t word(const std::vector<char>& b, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

// Where the field table starts: after the header and the spec extension (uint32 size at 500).
std::size_t table_at(const std::vector<char>& b) {
  std::uint32_t extension = 0;
  std::memcpy(&extension, b.data() + 500, 4);
  return 512 + extension;
}

// Sets word `index` of field `name` to `value` and reseals the field's checksum (docs/formats.md:
// Σ_e splitmix64(word_e XOR splitmix64(e)) over its words), the table's (FNV-1a at 280) and the
// header's: a crafted file that only the reader's and the object's own checks can refuse.
void set_field_word(std::vector<char>& b, const std::string& name, std::size_t index, std::uint64_t value) {
  const std::size_t fields = word(b, 264), table = table_at(b);
  for (std::size_t i = 0; i < fields; ++i) {
    char* row = b.data() + table + 80 * i;
    if (std::string(row, strnlen(row, 32)) != name) continue;
    const std::size_t words = word(b, table + 80 * i + 40) * word(b, table + 80 * i + 48), at = word(b, table + 80 * i + 56);
    ASSERT_LT(index, words) << name;
    std::memcpy(b.data() + at + 8 * index, &value, 8);
    std::vector<std::uint64_t> values(words);
    std::memcpy(values.data(), b.data() + at, 8 * words);
    const std::uint64_t sum = word_checksum(values.data(), words);
    std::memcpy(row + 64, &sum, 8);
    const std::uint64_t h = fnv1a(b.data(), table, table + 80 * fields);
    std::memcpy(b.data() + 280, &h, 8);
    reseal(b);
    return;
  }
  FAIL() << "no field " << name;
}

void set_integer_field(std::vector<char>& b, const std::string& name, std::int64_t value) {
  set_field_word(b, name, 0, static_cast<std::uint64_t>(value));
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
  const std::string dir = shared_checkpoint_dir();
  const std::string good = dir + "/good.ckpt", bad = dir + "/bad.ckpt";
  const StepData data = make_step_data(true);
  const LearnerSpec spec = checkpoint_spec("ada-fd", true);
  auto a = make_learner(world(), kCheckpointDim, spec);
  run_steps(*a, data, 0, 9);
  save_checkpoint(good, *a, run_after(*a, 9));
  const std::vector<char> bytes = read_bytes(good);
  ASSERT_GT(bytes.size(), 1000u);

  write_bytes(bad, std::vector<char>(bytes.begin(), bytes.begin() + 1000));
  expect_refused(bad, spec, kCheckpointDim, "truncated checkpoint file");
  write_bytes(bad, std::vector<char>(bytes.begin(), bytes.begin() + 100));
  expect_refused(bad, spec, kCheckpointDim, "shorter than the 512-byte header");
  std::uint64_t fields = 0;
  std::memcpy(&fields, bytes.data() + 264, 8);
  const std::size_t table = table_at(bytes), table_end = table + 80 * fields;
  ASSERT_EQ(table, 512u + 56u);  // the extension of a spec without Oja γ values
  // The extension (λ₂), a table entry, the first replicated value after the step count, the last
  // block entry.
  for (const std::size_t at : {std::size_t{512 + 9}, table + 80 * 2 + 40, table_end + 8, bytes.size() - 3}) {
    std::vector<char> flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    write_bytes(bad, flipped);
    expect_refused(bad, spec, kCheckpointDim,
                   at < table ? "spec extension checksum" : at < table_end ? "field table checksum" : "checksum mismatch in field");
  }
  std::vector<char> header = bytes;
  header[140] = static_cast<char>(header[140] ^ 1);  // η
  write_bytes(bad, header);
  expect_refused(bad, spec, kCheckpointDim, "header checksum mismatch");
  header = bytes;
  header[8] = 5;  // version 5, resealed
  reseal(header);
  write_bytes(bad, header);
  expect_refused(bad, spec, kCheckpointDim, "version 5 is not supported (this build reads 2 to 4)");
  header = bytes;
  header[500] = 8;  // an extension too short for its fixed fields, resealed
  reseal(header);
  write_bytes(bad, header);
  expect_refused(bad, spec, kCheckpointDim, "bad spec extension size 8");
  write_bytes(bad, std::vector<char>(bytes.begin(), bytes.end() - 8));
  expect_refused(bad, spec, kCheckpointDim, "truncated checkpoint file");
  std::vector<char> longer = bytes;
  longer.resize(bytes.size() + 8, 0);
  write_bytes(bad, longer);
  expect_refused(bad, spec, kCheckpointDim, "corrupt checkpoint file");

  // Crafted, resealed counters: an index past the sketch's ℓ = 3 rows, a negative count.
  for (const auto& [field, value, needle] :
       {std::tuple<const char*, std::int64_t, const char*>{"fd.filled", 3, "field 'fd.filled' = 3 is outside [0, 2]"},
        {"fd.last_slot", -2, "field 'fd.last_slot' = -2 is outside [-1, 2]"},
        {"learner.steps", -1, "field 'learner.steps' = -1 is outside [0, 9223372036854775807]"}}) {
    std::vector<char> crafted = bytes;
    set_integer_field(crafted, field, value);
    write_bytes(bad, crafted);
    expect_refused(bad, spec, kCheckpointDim, needle);
  }
  // The same with a legal value loads (the resealing is right, the range is what refuses).
  {
    std::vector<char> crafted = bytes;
    set_integer_field(crafted, "fd.shrinks", 12345);
    write_bytes(bad, crafted);
    auto b = make_learner(world(), kCheckpointDim, spec);
    EXPECT_NO_THROW(load_checkpoint(bad, *b));
  }

  // A crafted state the reader cannot check alone: the sparse FD sketch's history must end at the
  // sketch's epoch; a base that does not is refused, on every rank, at the first step that reads it.
  {
    const LearnerSpec fd = checkpoint_spec("fd-son", false);
    const StepData rows = make_step_data(true);
    auto c = make_learner(world(), kCheckpointDim, fd);
    run_steps(*c, rows, 0, 9);
    ASSERT_EQ(c->spec().form, FormChoice::sparse);
    save_checkpoint(bad, *c, run_after(*c, 9));
    std::vector<char> crafted = read_bytes(bad);
    world().barrier();  // every rank has read it before rank 0 rewrites it
    set_integer_field(crafted, "fd.history_base", 1000000);
    write_bytes(bad, crafted);
    auto d = make_learner(world(), kCheckpointDim, fd);
    load_checkpoint(bad, *d);
    std::string what;
    try {
      run_steps(*d, rows, 9, 10);
    } catch (const InvalidArgument& e) {
      what = e.what();
    }
    EXPECT_NE(what.find("from epoch 1000000"), std::string::npos) << "message: '" << what << "'";
    EXPECT_NE(what.find("the restored state is corrupt"), std::string::npos) << "message: '" << what << "'";
  }

  save_model(*a, LabelMap(LabelMap::Kind::classes_from_zero, 3), bad);
  expect_refused(bad, spec, kCheckpointDim, "not an adasketch checkpoint file");
  expect_refused(dir + "/missing.ckpt", spec, kCheckpointDim, "cannot open");

  // Another learner: algorithm, ℓ, η, loss, d.
  LearnerSpec other = checkpoint_spec("rfd-son", false);
  expect_refused(good, other, kCheckpointDim, "does not fit the learner rfd-son: algorithm = ada-fd in the checkpoint, rfd-son here");
  other = spec;
  other.ell = 4;
  expect_refused(good, other, kCheckpointDim, "ell = 3 in the checkpoint, 4 here");
  other = spec;
  other.eta = 0.25;
  expect_refused(good, other, kCheckpointDim, "eta = 0.3 in the checkpoint, 0.25 here");
  other = checkpoint_spec("ada-fd", false);
  expect_refused(good, other, kCheckpointDim, "loss = softmax in the checkpoint, logistic here");
  expect_refused(good, spec, kCheckpointDim + 1, "d = 7 in the checkpoint, 8 here");

  // The header alone, as the driver reads it before building the learner.
  const CheckpointHeader h = read_checkpoint_header(world(), good);
  EXPECT_EQ(h.spec.algorithm, "ada-fd");
  EXPECT_EQ(h.classes, 3);
  EXPECT_EQ(h.dim, kCheckpointDim);
  EXPECT_EQ(h.ranks, world().size());
  EXPECT_TRUE(spec_differences(h.spec, a->spec()).empty());
  EXPECT_EQ(h.run.data_name, "memory");
  EXPECT_EQ(h.run.data_examples, kCheckpointExamples);
  world().barrier();
}


// Old files still load: version 2 checkpoints written by the build before the spec extension
// (tests/data/format_v2/README.md says how). The spec fields version 2 lacks take their defaults.
TEST(Checkpoint, Version2FilesStillLoad) {
  {  // fast-rfd-son: the checkpoint's weights are the model file the same run saved.
    const std::string path = data_path("format_v2/v2_son.ckpt");
    const CheckpointHeader h = read_checkpoint_header(world(), path);
    EXPECT_EQ(h.spec.algorithm, "fast-rfd-son");
    EXPECT_EQ(h.spec.loss, LossKind::squared);
    EXPECT_EQ(h.spec.ell, 3);
    EXPECT_EQ(h.dim, 12);
    EXPECT_EQ(h.spec.lambda1, 0.0);
    EXPECT_EQ(h.spec.tau, defaults::tau);
    EXPECT_FALSE(h.spec.diag_rescale);
    EXPECT_TRUE(h.spec.oja_gamma.empty());
    auto learner = make_learner(world(), h.dim, h.spec);
    EXPECT_EQ(load_checkpoint(path, *learner).run.state.examples, 40);
    const LinearModel model = LinearModel::load(world(), data_path("format_v2/v2_son.model"), learner->partition());
    const std::vector<double> saved(model.weights().begin(), model.weights().end());
    EXPECT_TRUE(everywhere(world(), bitwise_equal(local_weights(*learner), saved)));
  }
  {  // ada-fd, softmax, sparse form: its sketch's state is the compacted basis the sparse FD form kept
     // before it deferred its shrinks (docs/formats.md), refused as a file that does not fit.
    const std::string path = data_path("format_v2/v2_adafd.ckpt");
    const CheckpointHeader h = read_checkpoint_header(world(), path);
    EXPECT_EQ(h.spec.algorithm, "ada-fd");
    EXPECT_EQ(h.spec.form, FormChoice::sparse);
    expect_refused(path, h.spec, h.dim, "state fields");
  }
  world().barrier();
}
