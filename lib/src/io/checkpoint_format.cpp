#include "checkpoint_format.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "adasketch/error.hpp"
#include "adasketch/sketch/sketch.hpp"
#include "collective_file.hpp"

namespace adasketch::detail {

static_assert(std::endian::native == std::endian::little, "the checkpoint format assumes a little-endian host");

namespace {

// The header (version kFileFormatVersion; docs/formats.md, "Checkpoint files"), 8 bytes a row:
//
//  Adr ||   7    |   6    |   5    |   4    |   3    |   2    |   1    |   0    |
//    0 ||---------------------------- magic "ADSKCKPT" ---------------------------|
//    8 ||----------- label map (u32) -------|------------ version (u32) ----------|
//   16 ||-------------------------------- d (u64) --------------------------------|
//   24 ||-------------------------------- K (u64) --------------------------------|
//   32 ||------------------ algorithm name, NUL-padded (32 bytes) ----------------|
//   64 ||--------------------- loss name, NUL-padded (32 bytes) ------------------|
//   96 ||------------------------ writer's rank count (u64) ----------------------|
//  104 ||--- pass, position, examples, mistakes (u64); loss, seconds (f64) -------|  (6 rows)
//  152 ||--------- flags (u64): bit 0 every label ±1, bit 1 seen features --------|
//  160 ||-------------------------- planned passes (u64) -------------------------|
//  168 ||--------------------- examples per pass (u64; 0: unknown) ---------------|
//  176 ||------------------------------ bias B (f64) -----------------------------|
//  184 ||-------------------------- L label values (u64) -------------------------|
//  192 ||--------------------- S bytes of hyperparameter text (u64) --------------|
//  200 ||---------------------------- n state fields (u64) -----------------------|
//  208 ||------------------------------ file size (u64) --------------------------|
//  216 ||----------------------- FNV-1a of the field table (u64) -----------------|
//  224 ||------------- training file name, NUL-padded (256 bytes) ----------------|
//  480 ||------------------------------ zero (24 bytes) --------------------------|
//  504 ||------------------------- FNV-1a of bytes 0–503 (u64) -------------------|
//  512    spec block: S bytes "member=value\n" per hyperparameter in table order, NUL-padded to
//         a multiple of 8; the L label values (f64); FNV-1a of the block's other bytes (u64)
//         then the field table (n × 80 bytes), then the fields' data
constexpr std::size_t kNameBytes = 32;
constexpr std::size_t kLabelMapAt = 12, kDimAt = 16, kClassesAt = 24, kAlgorithmAt = 32, kLossAt = 64, kRanksAt = 96;
constexpr std::size_t kStateAt = 104, kFlagsAt = 152, kPassesAt = 160, kDataExamplesAt = 168, kBiasAt = 176;
constexpr std::size_t kLabelValuesAt = 184, kSpecTextAt = 192, kFieldsAt = 200, kSizeAt = 208, kTableSumAt = 216;
constexpr std::size_t kDataNameAt = 224, kDataNameBytes = 256, kZeroAt = 480, kHeaderSumAt = 504;
constexpr std::uint64_t kMaxFields = 4096, kMaxSpecText = std::uint64_t{1} << 24;

using Bytes = std::span<unsigned char>;
using ConstBytes = std::span<const unsigned char>;

InputError corrupt(const std::string& path, const std::string& what) {
  return InputError(path, 0, "corrupt checkpoint file: " + what);
}

// The data name: any bytes but control characters, then NULs; empty if malformed.
std::string get_data_name(ConstBytes h, bool& ok) {
  const unsigned char* p = h.data() + kDataNameAt;
  const std::size_t n = static_cast<std::size_t>(std::find(p, p + kDataNameBytes, 0) - p);
  ok = n < kDataNameBytes && std::all_of(p + n, p + kDataNameBytes, [](unsigned char c) { return c == 0; }) &&
       std::none_of(p, p + n, [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  return ok ? std::string(reinterpret_cast<const char*>(p), n) : std::string();
}

bool listed(LabelMap::Kind kind) {
  return kind == LabelMap::Kind::two_values || kind == LabelMap::Kind::listed_classes;
}

std::size_t padded(std::size_t bytes) { return (bytes + 7) / 8 * 8; }

// A crafted file's text, for a message: its first 64 bytes.
std::string shown(std::string_view text) {
  return text.size() <= 64 ? std::string(text) : std::string(text.substr(0, 64)) + "…";
}

// One "member=value\n" line per hyperparameter, in table order (the spec block's text).
std::string spec_text(const LearnerSpec& spec) {
  std::string text;
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, const auto& value) {
        text.append(h.member).append("=").append(hyperparameter_text(value)).append("\n");
      },
      spec);
  return text;
}

// The hyperparameters of `text` into `spec`, which holds the defaults: every line a table row's
// member, in table order, with its value as hyperparameter_text writes it (one encoding per spec);
// a member a file lacks (written before it existed) keeps its default.
void decode_spec_text(std::string_view text, LearnerSpec& spec, const std::string& path) {
  std::vector<std::pair<std::string_view, std::string_view>> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n'), equals = text.find('=');
    if (end == std::string_view::npos || equals > end) throw corrupt(path, "bad hyperparameter text");
    lines.emplace_back(text.substr(0, equals), text.substr(equals + 1, end - equals - 1));
    text.remove_prefix(end + 1);
  }
  std::size_t next = 0;
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, auto& value) {
        if (next < lines.size() && lines[next].first == h.member) {
          const std::string_view v = lines[next++].second;
          bool ok = parse_hyperparameter(v, value) && hyperparameter_text(value) == v;
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, index_t>) ok = ok && value >= 0 && value <= (index_t{1} << 40);
          if constexpr (std::is_same_v<T, int>) ok = ok && value >= 0 && value <= (1 << 30);
          if (!ok) throw corrupt(path, "bad value '" + shown(v) + "' of " + std::string(h.member));
        }
      },
      spec);
  if (next == lines.size()) return;
  const std::string member = shown(lines[next].first);
  bool known = false;
  for_each_hyperparameter([&](const HyperparameterInfo& h, const auto&) { known = known || h.member == member; },
                          std::as_const(spec));
  if (known) throw corrupt(path, "hyperparameter " + member + " repeated or out of order");
  throw InputError(path, 0, "the checkpoint sets the hyperparameter '" + member +
                                "', which this build does not know (a file of a newer build?)");
}

}  // namespace

std::size_t spec_block_bytes(const LearnerSpec& spec, const CheckpointRun& run) {
  return padded(spec_text(spec).size()) + 8 * run.labels.values().size() + 8;
}

std::vector<FieldEntry> layout(const std::vector<StateFields::Field>& fields, std::size_t block) {
  std::vector<FieldEntry> entries(fields.size());
  std::uint64_t at = kCheckpointHeaderBytes + block + kCheckpointEntryBytes * fields.size();
  for (const bool blocks : {false, true})
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const StateFields::Field& f = fields[i];
      if ((f.kind == StateFields::Kind::block) != blocks) continue;
      FieldEntry& e = entries[i];
      e.name = f.name;
      e.kind = static_cast<std::uint64_t>(f.kind);
      e.items = static_cast<std::uint64_t>(f.items);
      e.width = static_cast<std::uint64_t>(f.width);
      e.offset = at;
      at += 8 * e.items * e.width;
    }
  return entries;
}

std::uint64_t file_size(const std::vector<FieldEntry>& entries, std::size_t block) {
  std::uint64_t end = kCheckpointHeaderBytes + block + kCheckpointEntryBytes * entries.size();
  for (const FieldEntry& e : entries) end = std::max(end, e.offset + 8 * e.items * e.width);
  return end;
}

std::vector<unsigned char> encode_front(const CheckpointHeader& header, const std::vector<FieldEntry>& entries) {
  const std::string text = spec_text(header.spec);
  const std::span<const double> values = header.run.labels.values();
  const std::size_t text_bytes = padded(text.size()), block = text_bytes + 8 * values.size() + 8;
  std::vector<unsigned char> out(kCheckpointHeaderBytes + block + kCheckpointEntryBytes * entries.size(), 0);
  const Bytes h(out.data(), kCheckpointHeaderBytes);
  const TrainingState& t = header.run.state;
  std::memcpy(h.data(), kCheckpointMagic, sizeof kCheckpointMagic);
  put_at(h, 8, kFileFormatVersion);
  put_at(h, kLabelMapAt, static_cast<std::uint32_t>(header.run.labels.kind()));
  put_at(h, kDimAt, static_cast<std::uint64_t>(header.dim));
  put_at(h, kClassesAt, static_cast<std::uint64_t>(header.classes));
  put_name(h, kAlgorithmAt, kNameBytes, header.spec.algorithm);
  put_name(h, kLossAt, kNameBytes, to_string(header.spec.loss));
  put_at(h, kRanksAt, static_cast<std::uint64_t>(header.ranks));
  const std::uint64_t counts[4] = {static_cast<std::uint64_t>(t.pass), static_cast<std::uint64_t>(t.position),
                                   static_cast<std::uint64_t>(t.examples), static_cast<std::uint64_t>(t.mistakes)};
  for (std::size_t i = 0; i < 4; ++i) put_at(h, kStateAt + 8 * i, counts[i]);
  put_at(h, kStateAt + 32, t.cumulative_loss);
  put_at(h, kStateAt + 40, t.seconds);
  put_at(h, kFlagsAt, std::uint64_t{t.signs ? 1u : 0u} | std::uint64_t{header.run.original_dim > 0 ? 2u : 0u});
  put_at(h, kPassesAt, static_cast<std::uint64_t>(header.run.passes));
  put_at(h, kDataExamplesAt, static_cast<std::uint64_t>(header.run.data_examples));
  put_at(h, kBiasAt, header.run.bias);
  put_at(h, kLabelValuesAt, static_cast<std::uint64_t>(values.size()));
  put_at(h, kSpecTextAt, static_cast<std::uint64_t>(text_bytes));
  put_at(h, kFieldsAt, static_cast<std::uint64_t>(entries.size()));
  put_at(h, kSizeAt, file_size(entries, block));
  const std::string& name = header.run.data_name;
  const std::size_t keep = std::min(name.size(), kDataNameBytes - 1);
  std::memcpy(h.data() + kDataNameAt, name.data() + (name.size() - keep), keep);
  const Bytes x(out.data() + kCheckpointHeaderBytes, block);
  std::memcpy(x.data(), text.data(), text.size());
  for (std::size_t i = 0; i < values.size(); ++i) put_at(x, text_bytes + 8 * i, values[i]);
  put_at(x, block - 8, fnv1a(x.data(), block - 8));
  const std::size_t table_at = kCheckpointHeaderBytes + block;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Bytes row(out.data() + table_at + kCheckpointEntryBytes * i, kCheckpointEntryBytes);
    const FieldEntry& e = entries[i];
    put_name(row, 0, kNameBytes, e.name);
    const std::uint64_t words[5] = {e.kind, e.items, e.width, e.offset, e.checksum};
    for (std::size_t w = 0; w < 5; ++w) put_at(row, kNameBytes + 8 * w, words[w]);
  }
  put_at(h, kTableSumAt, fnv1a(out.data() + table_at, out.size() - table_at));
  put_at(h, kHeaderSumAt, fnv1a(h.data(), kHeaderSumAt));
  return out;
}

DecodedHeader decode_header(const unsigned char* bytes, const std::string& path, std::uint64_t actual_size) {
  const ConstBytes h(bytes, kCheckpointHeaderBytes);
  // (Every checkpoint version kept this checksum here, so an old file is named by its version.)
  if (get_at<std::uint64_t>(h, kHeaderSumAt) != fnv1a(h.data(), kHeaderSumAt)) throw corrupt(path, "header checksum mismatch");
  require_format_version(path, "checkpoint", get_at<std::uint32_t>(h, 8));
  DecodedHeader d;
  CheckpointHeader& out = d.header;
  LabelMap::Kind& labels = d.labels;
  if (!LabelMap::kind_from_code(get_at<std::uint32_t>(h, kLabelMapAt), labels)) throw corrupt(path, "unknown label map code");
  const auto dim = get_at<std::uint64_t>(h, kDimAt), classes = get_at<std::uint64_t>(h, kClassesAt);
  if (dim == 0 || dim > (std::uint64_t{1} << 50) || classes == 0 || classes > (1u << 20))
    throw corrupt(path, "bad dimensions d = " + number_text(dim) + ", K = " + number_text(classes));
  out.dim = static_cast<index_t>(dim);
  out.classes = static_cast<int>(classes);
  LearnerSpec& s = out.spec;
  s.algorithm = get_name(h, kAlgorithmAt, kNameBytes);
  const std::string loss_name = get_name(h, kLossAt, kNameBytes);
  if (s.algorithm.empty() || loss_name.empty()) throw corrupt(path, "bad algorithm or loss name");
  d.label_values = get_at<std::uint64_t>(h, kLabelValuesAt);
  d.spec_text = get_at<std::uint64_t>(h, kSpecTextAt);
  if (d.label_values > LabelMap::kMaxValues || d.spec_text % 8 != 0 || d.spec_text > kMaxSpecText)
    throw corrupt(path, "bad spec block: " + number_text(d.spec_text) + " bytes of text, " +
                            number_text(d.label_values) + " label values");
  if (listed(labels) != (d.label_values > 0))
    throw corrupt(path, "the label map code and its label values do not agree");
  d.block = d.spec_text + 8 * d.label_values + 8;
  try {
    s.loss = from_string<LossKind>(loss_name);
    const Loss loss(s.loss, std::max(out.classes, 2));
    if (loss.outputs() != out.classes) throw InvalidArgument("K");
    if (loss.kind() == LossKind::softmax) s.classes = out.classes;
    // A listed map's values are in the spec block (decode_spec_block); until then, the loss's own map.
    out.run.labels = listed(labels) ? LabelMap::of_loss(loss) : LabelMap(labels, std::max(out.classes, 2));
    if (!out.run.labels.fits(loss)) throw InvalidArgument("label map");
  } catch (const InvalidArgument&) {
    throw corrupt(path, "the loss '" + loss_name + "', K = " + number_text(classes) + " and the label map do not fit");
  }
  out.ranks = static_cast<int>(std::min<std::uint64_t>(get_at<std::uint64_t>(h, kRanksAt), 1u << 30));
  out.run.bias = get_at<double>(h, kBiasAt);
  if (!std::isfinite(out.run.bias) || out.run.bias < 0.0 || (out.run.bias > 0.0 && dim < 2)) throw corrupt(path, "bad bias");
  TrainingState& t = out.run.state;
  const auto pass = get_at<std::uint64_t>(h, kStateAt), flags = get_at<std::uint64_t>(h, kFlagsAt);
  const auto passes = get_at<std::uint64_t>(h, kPassesAt);
  const std::uint64_t limit = std::uint64_t{1} << 62;
  const auto position = get_at<std::uint64_t>(h, kStateAt + 8), examples = get_at<std::uint64_t>(h, kStateAt + 16),
             mistakes = get_at<std::uint64_t>(h, kStateAt + 24), data_examples = get_at<std::uint64_t>(h, kDataExamplesAt);
  if (pass == 0 || pass > 1000001 || passes == 0 || passes > 1000000 || flags > 3 || position > limit ||
      examples > limit || mistakes > examples || data_examples > limit)
    throw corrupt(path, "bad training state");
  t.pass = static_cast<int>(pass);
  t.position = static_cast<index_t>(position);
  t.examples = static_cast<index_t>(examples);
  t.mistakes = static_cast<index_t>(mistakes);
  t.cumulative_loss = get_at<double>(h, kStateAt + 32);
  t.seconds = get_at<double>(h, kStateAt + 40);
  t.signs = (flags & 1) != 0;
  d.compact = (flags & 2) != 0;
  out.run.passes = static_cast<int>(passes);
  out.run.data_examples = static_cast<index_t>(data_examples);
  bool name_ok = false;
  out.run.data_name = get_data_name(h, name_ok);
  if (!name_ok) throw corrupt(path, "bad data name");
  if (!std::all_of(h.begin() + kZeroAt, h.begin() + kHeaderSumAt, [](unsigned char c) { return c == 0; }))
    throw corrupt(path, "nonzero reserved bytes");
  d.fields = get_at<std::uint64_t>(h, kFieldsAt);
  d.size = get_at<std::uint64_t>(h, kSizeAt);
  d.table_sum = get_at<std::uint64_t>(h, kTableSumAt);
  if (d.fields == 0 || d.fields > kMaxFields) throw corrupt(path, "bad field count " + number_text(d.fields));
  if (d.size != actual_size || d.size < kCheckpointHeaderBytes + d.block + kCheckpointEntryBytes * d.fields)
    throw InputError(path, 0, std::string(actual_size < d.size ? "truncated" : "corrupt") + " checkpoint file: " +
                                  number_text(actual_size) + " bytes, the header says " + number_text(d.size));
  // Every learner keeps d × K weights (or their lazy part) as a block: a file too small for them
  // cannot be a checkpoint of this d (and the learner is never allocated for it). With compact
  // features d is the original one, and the blocks have one row per seen feature.
  if (!d.compact && dim > d.size / 8 / classes)
    throw corrupt(path, "d = " + number_text(dim) + ", K = " + number_text(classes) + " do not fit in " +
                            number_text(d.size) + " bytes");
  return d;
}

void decode_spec_block(const unsigned char* bytes, DecodedHeader& decoded, const std::string& path) {
  const auto n = static_cast<std::size_t>(decoded.block), text_bytes = static_cast<std::size_t>(decoded.spec_text);
  const ConstBytes x(bytes, n);
  if (get_at<std::uint64_t>(x, n - 8) != fnv1a(x.data(), n - 8)) throw corrupt(path, "spec block checksum mismatch");
  const char* text = reinterpret_cast<const char*>(bytes);
  const std::size_t length = static_cast<std::size_t>(std::find(text, text + text_bytes, '\0') - text);
  if (padded(length) != text_bytes || !std::all_of(text + length, text + text_bytes, [](char c) { return c == '\0'; }))
    throw corrupt(path, "bad hyperparameter text");
  decode_spec_text(std::string_view(text, length), decoded.header.spec, path);
  std::vector<double> v(static_cast<std::size_t>(decoded.label_values));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = get_at<double>(x, text_bytes + 8 * i);
  if (v.empty()) return;
  try {
    const LabelMap labels(decoded.labels, std::move(v));
    if (!labels.fits(Loss(decoded.header.spec.loss, std::max(decoded.header.classes, 2)))) throw InvalidArgument("label map");
    decoded.header.run.labels = labels;
  } catch (const InvalidArgument&) {
    throw corrupt(path, "bad label values");
  }
}

std::vector<FieldEntry> decode_table(const unsigned char* bytes, const DecodedHeader& decoded, const std::string& path) {
  const std::size_t n = static_cast<std::size_t>(decoded.fields);
  if (fnv1a(bytes, kCheckpointEntryBytes * n) != decoded.table_sum) throw corrupt(path, "field table checksum mismatch");
  std::vector<FieldEntry> entries(n);
  for (std::size_t i = 0; i < n; ++i) {
    const ConstBytes row(bytes + kCheckpointEntryBytes * i, kCheckpointEntryBytes);
    FieldEntry& e = entries[i];
    e.name = get_name(row, 0, kNameBytes);
    e.kind = get_at<std::uint64_t>(row, kNameBytes);
    e.items = get_at<std::uint64_t>(row, kNameBytes + 8);
    e.width = get_at<std::uint64_t>(row, kNameBytes + 16);
    e.offset = get_at<std::uint64_t>(row, kNameBytes + 24);
    e.checksum = get_at<std::uint64_t>(row, kNameBytes + 32);
    if (e.name.empty() || get_at<std::uint64_t>(row, kNameBytes + 40) != 0 || e.width == 0 ||
        e.items > decoded.size / 8 || e.width > decoded.size / 8 || e.items * e.width > decoded.size / 8 ||
        e.offset > decoded.size - 8 * e.items * e.width)
      throw corrupt(path, "bad field table entry " + number_text(i));
  }
  return entries;
}

std::string describe(const CheckpointHeader& header) {
  return header.spec.algorithm + " (" + to_string(header.spec.loss) + " loss, d = " + number_text(header.dim) +
         ", K = " + number_text(header.classes) + ", ell = " + number_text(header.spec.ell) + ")";
}

}  // namespace adasketch::detail
