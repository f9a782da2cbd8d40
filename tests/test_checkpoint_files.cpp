// Checkpoint files (checkpoint.hpp): a crash between the temporary file and the rename leaves the
// previous checkpoint intact; corrupt, truncated, foreign and mismatched files are refused with an
// InputError naming the file, on every rank, in one line.
#include <gtest/gtest.h>

#include <algorithm>
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

// The spec block after the 512-byte header (docs/formats.md): S bytes of text (uint64 at 192), L
// label values (uint64 at 184), its checksum; then the field table.
std::size_t spec_text_bytes(const std::vector<char>& b) { return static_cast<std::size_t>(word(b, 192)); }
std::size_t table_at(const std::vector<char>& b) { return 512 + spec_text_bytes(b) + 8 * word(b, 184) + 8; }

// The file with the spec block's text replaced by `text` (NUL-padded to a multiple of 8), its
// checksum, S, the table's offsets, the file size and the checksums resealed.
std::vector<char> with_spec_text(const std::vector<char>& b, std::string text) {
  const std::size_t fields = word(b, 200), table = table_at(b), values = 8 * word(b, 184);
  text.resize((text.size() + 7) / 8 * 8, '\0');
  const std::size_t new_table = 512 + text.size() + values + 8;
  std::vector<char> out(new_table + (b.size() - table));
  std::copy_n(b.begin(), 512, out.begin());
  std::copy(text.begin(), text.end(), out.begin() + 512);
  std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(512 + spec_text_bytes(b)), values,
              out.begin() + static_cast<std::ptrdiff_t>(512 + text.size()));
  const std::uint64_t block_sum = fnv1a(out.data(), 512, new_table - 8);
  std::memcpy(out.data() + new_table - 8, &block_sum, 8);
  std::copy(b.begin() + static_cast<std::ptrdiff_t>(table), b.end(), out.begin() + static_cast<std::ptrdiff_t>(new_table));
  const std::uint64_t shift = new_table - table, size = out.size(), bytes = text.size();  // (mod 2⁶⁴)
  for (std::size_t i = 0; i < fields; ++i) {
    const std::uint64_t offset = word(out, new_table + 80 * i + 56) + shift;
    std::memcpy(out.data() + new_table + 80 * i + 56, &offset, 8);
  }
  const std::uint64_t table_sum = fnv1a(out.data(), new_table, new_table + 80 * fields);
  std::memcpy(out.data() + 192, &bytes, 8);
  std::memcpy(out.data() + 208, &size, 8);
  std::memcpy(out.data() + 216, &table_sum, 8);
  reseal(out);
  return out;
}

// Sets word `index` of field `name` to `value` and reseals the field's checksum (docs/formats.md:
// Σ_e splitmix64(word_e XOR splitmix64(e)) over its words), the table's (FNV-1a at 216) and the
// header's: a crafted file that only the reader's and the object's own checks can refuse.
void set_field_word(std::vector<char>& b, const std::string& name, std::size_t index, std::uint64_t value) {
  const std::size_t fields = word(b, 200), table = table_at(b);
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
    std::memcpy(b.data() + 216, &h, 8);
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
  const std::size_t fields = word(bytes, 200), table = table_at(bytes), table_end = table + 80 * fields;
  // The spec block's text: one "member=value" line per hyperparameter, in the table's order, numbers
  // in shortest form (checkpoint_spec's values that ada-fd reads), NUL-padded to a multiple of 8.
  const std::string text(bytes.data() + 512, strnlen(bytes.data() + 512, spec_text_bytes(bytes)));
  EXPECT_EQ(text.rfind("ell=3\neta=0.3\ndelta=0.5\nalpha0=10\nC=1\n", 0), 0u) << text;
  EXPECT_NE(text.find("\nform=sparse\n"), std::string::npos) << text;  // the form ada-fd took on sparse rows
  std::size_t members = 0;
  for_each_hyperparameter([&](const HyperparameterInfo&, const auto&) { ++members; }, std::as_const(spec));
  EXPECT_EQ(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')), members);
  EXPECT_EQ(spec_text_bytes(bytes), (text.size() + 7) / 8 * 8);
  EXPECT_EQ(word(bytes, 184), 0u);  // no label values: the loss's own map
  // The spec block (η's text), a table entry, the first replicated value after the step count, the
  // last block entry.
  for (const std::size_t at : {std::size_t{512 + 11}, table + 80 * 2 + 40, table_end + 8, bytes.size() - 3}) {
    std::vector<char> flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    write_bytes(bad, flipped);
    expect_refused(bad, spec, kCheckpointDim,
                   at < table ? "spec block checksum" : at < table_end ? "field table checksum" : "checksum mismatch in field");
  }
  std::vector<char> header = bytes;
  header[140] = static_cast<char>(header[140] ^ 1);  // the cumulative loss
  write_bytes(bad, header);
  expect_refused(bad, spec, kCheckpointDim, "header checksum mismatch");
  for (const auto& [version, needle] :
       {std::pair<char, const char*>{4, "checkpoint format version 4 is not supported: this build reads version 5 only "
                                        "(the file was written by an older build)"},
        {6, "checkpoint format version 6 is not supported: this build reads version 5 only (the file was written by a "
            "newer build, or is corrupt)"}}) {
    header = bytes;
    header[8] = version;
    reseal(header);
    write_bytes(bad, header);
    expect_refused(bad, spec, kCheckpointDim, needle);
  }
  header = bytes;
  header[192] = 12;  // S not a multiple of 8, resealed
  reseal(header);
  write_bytes(bad, header);
  expect_refused(bad, spec, kCheckpointDim, "bad spec block: 12 bytes of text, 0 label values");

  // Crafted, resealed hyperparameter text: a line the file lacks (written before its hyperparameter
  // existed) takes the default; an unknown, repeated or reordered member, or a value not in its
  // one written form, is refused.
  {
    std::string without_eta = text;
    without_eta.erase(without_eta.find("eta=0.3\n"), 8);
    write_bytes(bad, with_spec_text(bytes, without_eta));
    const CheckpointHeader h = read_checkpoint_header(world(), bad);
    EXPECT_EQ(h.spec.eta, LearnerSpec{}.eta);
    EXPECT_EQ(h.spec.delta, 0.5);
    expect_refused(bad, spec, kCheckpointDim, "eta = 0.1 in the checkpoint, 0.3 here");
  }
  const std::string delta_line = "delta=0.5\n";
  const std::size_t delta_at = text.find(delta_line);
  for (const auto& [edited, needle] : {
           std::pair<std::string, std::string>{text + "gamma=2\n", "sets the hyperparameter 'gamma', which this build does not know"},
           {text + "ell=3\n", "corrupt checkpoint file: hyperparameter ell repeated or out of order"},
           {std::string(text).replace(delta_at, delta_line.size(), "").insert(0, delta_line),
            "hyperparameter ell repeated or out of order"},
           {std::string(text).replace(text.find("eta=0.3"), 7, "eta=0.30"), "bad value '0.30' of eta"},
           {std::string(text).replace(0, 5, "ell=-1"), "bad value '-1' of ell"},
           {std::string(text).replace(0, 5, "ell:3"), "bad hyperparameter text"}}) {
    write_bytes(bad, with_spec_text(bytes, edited));
    expect_refused(bad, spec, kCheckpointDim, needle);
  }
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


// Files of an older format version are refused, naming their version: checkpoint and model files
// of version 2 and 1 written by an older build (tests/data/format_v2/README.md says how).
TEST(Checkpoint, OlderFormatVersionsAreRefused) {
  LearnerSpec spec = checkpoint_spec("fast-rfd-son", false);
  const std::string checkpoint = data_path("format_v2/v2_son.ckpt"), model = data_path("format_v2/v2_son.model");
  const std::string older = " is not supported: this build reads version 5 only (the file was written by an older build)";
  expect_refused(checkpoint, spec, 12, "checkpoint format version 2" + older);
  std::string what;
  try {
    read_checkpoint_header(world(), checkpoint);
  } catch (const InputError& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("checkpoint format version 2" + older), std::string::npos) << what;
  what.clear();
  try {
    LinearModel::load(world(), model);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), model);
    what = e.what();
  }
  EXPECT_NE(what.find("model format version 1" + older), std::string::npos) << what;
  world().barrier();
}
