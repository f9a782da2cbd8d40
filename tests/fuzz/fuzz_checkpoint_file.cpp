// libFuzzer target: the checkpoint reader (read_checkpoint_header, then load_checkpoint into the
// learner make_learner builds from the header, as `adasketch train --resume` does) on MPI_COMM_SELF.
// Byte 0 picks which checksums this target recomputes, by the formulas of docs/formats.md, before writing the
// rest as the file (bit 0: every field's checksum, from the field table; bit 1: the table's and the
// spec block's; bit 2: the header's), so that mutations also reach the checks behind them and
// the state a crafted file installs. Invariants:
//   - the readers throw only InputErrors, each one line; a header whose spec names no learner (only a
//     crafted file: the header checksum covers it) may make make_learner throw InvalidArgument, and a
//     state the reader cannot check alone (the sparse FD sketch's history against its epoch, checked
//     where the state is first read, as tests/test_checkpoint_files.cpp shows) makes the save back
//     throw InvalidArgument naming "the restored state is corrupt";
//   - a checkpoint that loads saves back to the same bytes, but for the writer's rank count and the
//     header checksum over it (the format has one encoding per state); one whose spec text lacks a
//     hyperparameter (which then takes its default) or has another layout (grid_rows) saves with the
//     learner's, and that file loads and saves back to itself;
//   - the loaded learner steps (dense and sparse examples) without a crash or a sanitizer report:
//     what the reader accepts is a state the learner continues from, or one whose numbers (a NaN, a
//     Gram that is no Gram) end in a typed error of the library's checks, LAPACK or the numeric
//     guards; the checksums only catch accidents, not a crafted file.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/learner.hpp"
#include "fuzz_support.hpp"

using namespace adasketch;
using fuzz::require;

namespace {

constexpr std::size_t kHeader = 512, kEntry = 80;
constexpr std::size_t kRanksAt = 96, kLabelValuesAt = 184, kSpecTextAt = 192, kFieldsAt = 200, kTableSumAt = 216;
constexpr std::size_t kHeaderSumAt = 504;

std::uint64_t word_at(const std::vector<unsigned char>& file, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, file.data() + at, 8);
  return v;
}

void put_word(std::vector<unsigned char>& file, std::size_t at, std::uint64_t v) { std::memcpy(file.data() + at, &v, 8); }

// The bytes of the spec block between the header and the table: S bytes of text, L label values,
// its checksum (0 when the header's S and L cannot be a block of this file).
std::size_t block_of(const std::vector<unsigned char>& file) {
  const std::uint64_t text = word_at(file, kSpecTextAt), values = word_at(file, kLabelValuesAt);
  const std::uint64_t room = (file.size() - kHeader) / 8;
  if (text % 8 != 0 || text / 8 > room || values > room - text / 8 || room - text / 8 - values < 1) return 0;
  return static_cast<std::size_t>(text + 8 * values + 8);
}

void fix_checksums(std::vector<unsigned char>& file, unsigned mode) {
  if (file.size() < kHeader) return;
  const std::uint64_t fields = word_at(file, kFieldsAt);
  const std::size_t block = block_of(file), table = kHeader + block;
  if (block == 0) return;
  const bool table_fits = fields <= (file.size() - table) / kEntry;
  if ((mode & 2) != 0)  // the block's own FNV-1a, in its last word
    put_word(file, table - 8, fuzz::fnv1a(file.data(), kHeader, table - 8));
  if ((mode & 1) != 0 && table_fits) {
    for (std::size_t i = 0; i < fields; ++i) {  // each entry: name, kind, items, width, offset, checksum
      const std::size_t row = table + kEntry * i;
      const std::uint64_t items = word_at(file, row + 40), width = word_at(file, row + 48), offset = word_at(file, row + 56);
      if (offset > file.size() || width == 0 || items > (file.size() - offset) / 8 / width) continue;
      put_word(file, row + 64, fuzz::word_checksum(file.data() + offset, items * width));
    }
  }
  if ((mode & 2) != 0 && table_fits) put_word(file, kTableSumAt, fuzz::fnv1a(file.data(), table, table + kEntry * fields));
  if ((mode & 4) != 0) put_word(file, kHeaderSumAt, fuzz::fnv1a(file.data(), 0, kHeaderSumAt));
}

// The spec block's text (up to its NUL padding); empty if the header's S does not fit the file.
template <class Bytes>
std::string spec_text_of(const Bytes& file) {
  if (file.size() < kHeader) return {};
  std::uint64_t text = 0;
  std::memcpy(&text, file.data() + kSpecTextAt, 8);
  if (text > file.size() - kHeader) return {};
  const char* p = reinterpret_cast<const char*>(file.data()) + kHeader;
  return std::string(p, strnlen(p, static_cast<std::size_t>(text)));
}

// Whether `fewer`'s lines are `more`'s without some of them (the hyperparameters a file lacks).
bool fewer_lines(const std::string& fewer, const std::string& more) {
  std::size_t at = 0;  // a line start of `more`
  for (std::size_t begin = 0; begin < fewer.size();) {
    const std::size_t end = std::min(fewer.find('\n', begin), fewer.size() - 1) + 1;
    const std::string line = fewer.substr(begin, end - begin);
    while (at < more.size() && more.compare(at, line.size(), line) != 0)
      at = std::min(more.find('\n', at), more.size() - 1) + 1;
    if (at >= more.size()) return false;
    at += line.size();
    begin = end;
  }
  return fewer.size() < more.size();
}

// The spec text without its layout rows (grid_rows: how the run was laid out, which a learner saves
// as it is laid out now, and which a learner that does not read it saves as its default).
std::string without_layout(const std::string& text) {
  std::string out;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size() - 1) + 1;
    const std::string line = text.substr(begin, end - begin);
    bool layout = false;
    const LearnerSpec any;
    for_each_hyperparameter(
        [&](const HyperparameterInfo& h, const auto&) {
          layout = layout || (h.role == HyperparameterRole::layout && line.starts_with(std::string(h.member) + "="));
        },
        any);
    if (!layout) out += line;
    begin = end;
  }
  return out;
}

// Outside the writer's rank count and the header checksum, a and b are the same bytes.
bool same_but_ranks(const std::string& a, const std::vector<unsigned char>& b) {
  if (a.size() != b.size() || a.size() < kHeader) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(a.data());
  return std::equal(p, p + kRanksAt, b.data()) && std::equal(p + kRanksAt + 8, p + kHeaderSumAt, b.data() + kRanksAt + 8) &&
         std::equal(p + kHeader, p + a.size(), b.data() + kHeader);
}

// A few steps on examples every loss accepts: dense ones, then sparse ones on the first features.
void step_a_little(Learner& learner, const CheckpointHeader& header) {
  const double label = header.spec.loss == LossKind::softmax ? 0.0 : header.run.labels.kind() == LabelMap::Kind::real ? 0.5 : 1.0;
  const std::vector<double> dense(static_cast<std::size_t>(header.dim), 0.25);
  const std::vector<index_t> indices = {0, header.dim - 1};
  const std::vector<double> values = {1.0, -2.0};
  const std::size_t nnz = header.dim > 1 ? 2 : 1;
  try {
    for (int t = 0; t < 3; ++t) learner.step(LocalRow::dense(dense), t == 1 ? -label : label);
    for (int t = 0; t < 3; ++t)
      learner.step(LocalRow::sparse({indices.data(), nnz}, {values.data(), nnz}), t == 1 ? -label : label);
  } catch (const Error& e) {  // a crafted state may fail a check, LAPACK or the numeric guards
    require(std::strchr(e.what(), '\n') == nullptr, "multi-line error message");
  }
}

// Reads, loads, saves back and steps the checkpoint at `path` (the bytes `file`).
void try_checkpoint(const std::string& path, const std::vector<unsigned char>& file) {
  const Communicator self(MPI_COMM_SELF);
  try {
    const CheckpointHeader header = read_checkpoint_header(self, path);
    require(header.dim >= 1 && header.classes >= 1 && header.spec.ell >= 0, "header sizes");
    // The reader bounds d·K by the file size; ℓ only by what the learner can allocate, and SON's
    // set-up costs O(ℓ³): a fuzzer runs only small learners (the seeds have ℓ = 2).
    if (header.spec.ell > 64 || header.dim * (2 * header.spec.ell + header.classes) > (1 << 20)) return;
    std::unique_ptr<Learner> learner;
    try {
      learner = make_learner(self, header.dim, header.spec);
    } catch (const InvalidArgument& e) {
      require(std::strchr(e.what(), '\n') == nullptr, "multi-line error message");
      return;
    }
    const CheckpointHeader loaded = load_checkpoint(path, *learner);
    require(loaded.dim == header.dim && loaded.run.state.examples == header.run.state.examples, "header read twice");
    const std::string copy = fuzz::scratch_path("checkpoint-copy");
    try {
      save_checkpoint(copy, *learner, loaded.run);
    } catch (const InvalidArgument& e) {  // a state checked where it is first read (the sparse FD history)
      require(std::strchr(e.what(), '\n') == nullptr && std::strstr(e.what(), "the restored state is corrupt") != nullptr,
              "a loaded checkpoint does not save");
      return;
    }
    const std::string saved = fuzz::read_file(copy);
    const std::string text = spec_text_of(file), saved_text = spec_text_of(saved);
    if (text == saved_text) {
      require(same_but_ranks(saved, file), "a loaded checkpoint does not save back to the same bytes");
    } else {  // a spec text without some hyperparameters, or with another layout, saves with the learner's,
              // and then back to itself
      const std::string learner_text = without_layout(text), learner_saved = without_layout(saved_text);
      require(learner_text == learner_saved || fewer_lines(learner_text, learner_saved),
              "a loaded checkpoint saves other hyperparameters");
      const std::string bytes = fuzz::read_file(copy);
      auto again = make_learner(self, header.dim, header.spec);
      load_checkpoint(copy, *again);
      save_checkpoint(copy, *again, loaded.run);
      require(fuzz::read_file(copy) == bytes, "an upgraded checkpoint does not save back to the same bytes");
    }
    std::remove(copy.c_str());
    step_a_little(*learner, loaded);
  } catch (const InputError& e) {
    require(std::strchr(e.what(), '\n') == nullptr, "multi-line error message");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (!fuzz::start_input(size)) return 0;
  std::vector<unsigned char> file(data + 1, data + size);
  fix_checksums(file, data[0]);
  const std::string path = fuzz::scratch_path("checkpoint");
  fuzz::write_file(path, file.data(), file.size());
  try_checkpoint(path, file);
  std::remove(path.c_str());
  return 0;
}
