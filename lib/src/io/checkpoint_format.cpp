#include "checkpoint_format.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "adasketch/error.hpp"
#include "adasketch/sketch/sketch.hpp"
#include "collective_file.hpp"

namespace adasketch::detail {

static_assert(std::endian::native == std::endian::little, "the checkpoint format assumes a little-endian host");

namespace {

// 2: the sketch form (auto, dense, sparse) at kFormAt; 3: the form as uint32 at kFormAt, the spec
// extension's size as uint32 at kExtensionAt, and the extension after the header; 4: the bias and the
// label values in the extension (written only when there is a bias or label values).
constexpr std::uint32_t kVersion = 4, kPlainVersion = 3, kOldestVersion = 2;
constexpr std::size_t kNameBytes = 32;
constexpr std::size_t kAlgorithmAt = 32, kLossAt = 64, kScheduleAt = 96;
constexpr std::size_t kSpecAt = 128, kRanksAt = 184, kStateAt = 192, kPassesAt = 248, kDataExamplesAt = 256;
constexpr std::size_t kFieldsAt = 264, kSizeAt = 272, kTableSumAt = 280;
constexpr std::size_t kDataNameAt = 288, kDataNameBytes = 208, kFormAt = 496, kExtensionAt = 500, kHeaderSumAt = 504;
constexpr std::uint64_t kMaxFields = 4096;
// The spec extension (version 3): λ₁, λ₂, τ (float64), flags (bit 0: diagonal rescaling), grid rows,
// n = |oja_gamma| (uint64), the n γ values (float64), (version 4) the bias B (float64), L (uint64) and
// the L label values (float64), then the FNV-1a of the bytes before it.
constexpr std::size_t kExtensionFixedBytes = 48, kRunExtensionBytes = 16;
constexpr std::uint64_t kMaxOjaGamma = std::uint64_t{1} << 20;

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

bool plain(const CheckpointRun& run) { return run.bias == 0.0 && run.labels.values().empty(); }

bool listed(LabelMap::Kind kind) {
  return kind == LabelMap::Kind::two_values || kind == LabelMap::Kind::listed_classes;
}

}  // namespace

std::size_t extension_bytes(const LearnerSpec& spec, const CheckpointRun& run) {
  const std::size_t base = kExtensionFixedBytes + 8 * spec.oja_gamma.size() + 8;
  return plain(run) ? base : base + kRunExtensionBytes + 8 * run.labels.values().size();
}

std::vector<FieldEntry> layout(const std::vector<StateFields::Field>& fields, std::size_t extension) {
  std::vector<FieldEntry> entries(fields.size());
  std::uint64_t at = kCheckpointHeaderBytes + extension + kCheckpointEntryBytes * fields.size();
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

std::uint64_t file_size(const std::vector<FieldEntry>& entries, std::size_t extension) {
  std::uint64_t end = kCheckpointHeaderBytes + extension + kCheckpointEntryBytes * entries.size();
  for (const FieldEntry& e : entries) end = std::max(end, e.offset + 8 * e.items * e.width);
  return end;
}

std::vector<unsigned char> encode_front(const CheckpointHeader& header, const std::vector<FieldEntry>& entries) {
  const LearnerSpec& s = header.spec;
  const std::size_t extension = extension_bytes(s, header.run);
  std::vector<unsigned char> out(kCheckpointHeaderBytes + extension + kCheckpointEntryBytes * entries.size(), 0);
  const Bytes h(out.data(), kCheckpointHeaderBytes);
  const TrainingState& t = header.run.state;
  std::memcpy(h.data(), kCheckpointMagic, sizeof kCheckpointMagic);
  put_at(h, 8, plain(header.run) ? kPlainVersion : kVersion);
  put_at(h, 12, static_cast<std::uint32_t>(header.run.labels.kind()));
  put_at(h, 16, static_cast<std::uint64_t>(header.dim));
  put_at(h, 24, static_cast<std::uint64_t>(header.classes));
  put_name(h, kAlgorithmAt, kNameBytes, s.algorithm);
  put_name(h, kLossAt, kNameBytes, to_string(s.loss));
  put_name(h, kScheduleAt, kNameBytes, to_string(s.eta_schedule));
  put_at(h, kSpecAt, static_cast<std::uint64_t>(s.ell));
  const double reals[5] = {s.eta, s.delta, s.alpha0, s.C, s.sigma};
  for (std::size_t i = 0; i < 5; ++i) put_at(h, kSpecAt + 8 + 8 * i, reals[i]);
  put_at(h, kSpecAt + 48, s.seed);
  put_at(h, kFormAt, static_cast<std::uint32_t>(s.form));
  put_at(h, kExtensionAt, static_cast<std::uint32_t>(extension));
  put_at(h, kRanksAt, static_cast<std::uint64_t>(header.ranks));
  put_at(h, kStateAt, static_cast<std::uint64_t>(t.pass));
  put_at(h, kStateAt + 8, static_cast<std::uint64_t>(t.position));
  put_at(h, kStateAt + 16, static_cast<std::uint64_t>(t.examples));
  put_at(h, kStateAt + 24, static_cast<std::uint64_t>(t.mistakes));
  put_at(h, kStateAt + 32, t.cumulative_loss);
  put_at(h, kStateAt + 40, t.seconds);
  // Flags: bit 0 every label so far ±1, bit 1 compact features.
  put_at(h, kStateAt + 48, std::uint64_t{t.signs ? 1u : 0u} | std::uint64_t{header.run.original_dim > 0 ? 2u : 0u});
  put_at(h, kPassesAt, static_cast<std::uint64_t>(header.run.passes));
  put_at(h, kDataExamplesAt, static_cast<std::uint64_t>(header.run.data_examples));
  put_at(h, kFieldsAt, static_cast<std::uint64_t>(entries.size()));
  put_at(h, kSizeAt, file_size(entries, extension));
  const std::string& name = header.run.data_name;
  const std::size_t keep = std::min(name.size(), kDataNameBytes - 1);
  std::memcpy(h.data() + kDataNameAt, name.data() + (name.size() - keep), keep);
  const Bytes x(out.data() + kCheckpointHeaderBytes, extension);
  const double reals3[3] = {s.lambda1, s.lambda2, s.tau};
  for (std::size_t i = 0; i < 3; ++i) put_at(x, 8 * i, reals3[i]);
  put_at(x, 24, std::uint64_t{s.diag_rescale ? 1u : 0u});
  put_at(x, 32, static_cast<std::uint64_t>(s.grid_rows));
  put_at(x, 40, static_cast<std::uint64_t>(s.oja_gamma.size()));
  for (std::size_t i = 0; i < s.oja_gamma.size(); ++i) put_at(x, kExtensionFixedBytes + 8 * i, s.oja_gamma[i]);
  if (!plain(header.run)) {
    const std::size_t at = kExtensionFixedBytes + 8 * s.oja_gamma.size();
    const std::span<const double> values = header.run.labels.values();
    put_at(x, at, header.run.bias);
    put_at(x, at + 8, static_cast<std::uint64_t>(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i) put_at(x, at + kRunExtensionBytes + 8 * i, values[i]);
  }
  put_at(x, extension - 8, fnv1a(x.data(), extension - 8));
  const std::size_t table_at = kCheckpointHeaderBytes + extension;
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
  if (get_at<std::uint64_t>(h, kHeaderSumAt) != fnv1a(h.data(), kHeaderSumAt)) throw corrupt(path, "header checksum mismatch");
  const auto version = get_at<std::uint32_t>(h, 8);
  if (version < kOldestVersion || version > kVersion)
    throw InputError(path, 0, "checkpoint format version " + number_text(version) + " is not supported (this build reads " +
                                  number_text(kOldestVersion) + " to " + number_text(kVersion) + ")");
  DecodedHeader d;
  CheckpointHeader& out = d.header;
  LabelMap::Kind& labels = d.labels;
  if (!LabelMap::kind_from_code(get_at<std::uint32_t>(h, 12), labels)) throw corrupt(path, "unknown label map code");
  d.version = version;
  const auto dim = get_at<std::uint64_t>(h, 16), classes = get_at<std::uint64_t>(h, 24);
  if (dim == 0 || dim > (std::uint64_t{1} << 50) || classes == 0 || classes > (1u << 20))
    throw corrupt(path, "bad dimensions d = " + number_text(dim) + ", K = " + number_text(classes));
  out.dim = static_cast<index_t>(dim);
  out.classes = static_cast<int>(classes);
  LearnerSpec& s = out.spec;
  s.algorithm = get_name(h, kAlgorithmAt, kNameBytes);
  const std::string loss_name = get_name(h, kLossAt, kNameBytes);
  const std::string schedule = get_name(h, kScheduleAt, kNameBytes);
  if (s.algorithm.empty() || loss_name.empty() || schedule.empty())
    throw corrupt(path, "bad algorithm, loss or schedule name");
  try {
    s.eta_schedule = from_string<EtaSchedule>(schedule);
  } catch (const InvalidArgument&) {
    throw corrupt(path, "bad algorithm, loss or schedule name");
  }
  const auto ell = get_at<std::uint64_t>(h, kSpecAt);
  if ((ell == 0 && version < 3) || ell > (std::uint64_t{1} << 40)) throw corrupt(path, "bad ell = " + number_text(ell));
  s.ell = static_cast<index_t>(ell);
  double* reals[5] = {&s.eta, &s.delta, &s.alpha0, &s.C, &s.sigma};
  for (std::size_t i = 0; i < 5; ++i) *reals[i] = get_at<double>(h, kSpecAt + 8 + 8 * i);
  s.seed = get_at<std::uint64_t>(h, kSpecAt + 48);
  const std::uint64_t form = version < 3 ? get_at<std::uint64_t>(h, kFormAt) : get_at<std::uint32_t>(h, kFormAt);
  if (form > static_cast<std::uint64_t>(FormChoice::sparse)) throw corrupt(path, "bad form code " + number_text(form));
  s.form = static_cast<FormChoice>(form);
  if (version >= 3) {
    d.extension = get_at<std::uint32_t>(h, kExtensionAt);
    const std::size_t run_bytes = version < kVersion ? 0 : kRunExtensionBytes + 8 * LabelMap::kMaxValues;
    if (d.extension < kExtensionFixedBytes + 8 || d.extension % 8 != 0 ||
        d.extension > kExtensionFixedBytes + 8 * kMaxOjaGamma + 8 + run_bytes)
      throw corrupt(path, "bad spec extension size " + number_text(d.extension));
  }
  try {
    s.loss = from_string<LossKind>(loss_name);
    const Loss loss(s.loss, std::max(out.classes, 2));
    if (loss.outputs() != out.classes) throw InvalidArgument("K");
    if (loss.kind() == LossKind::softmax) s.classes = out.classes;
    if (listed(labels) && version < kVersion) throw InvalidArgument("label values");
    // A listed map's values are in the extension (decode_extension); until then, the loss's own map.
    out.run.labels = listed(labels) ? LabelMap::of_loss(loss) : LabelMap(labels, std::max(out.classes, 2));
    if (!out.run.labels.fits(loss)) throw InvalidArgument("label map");
  } catch (const InvalidArgument&) {
    throw corrupt(path, "the loss '" + loss_name + "', K = " + number_text(classes) + " and the label map do not fit");
  }
  out.ranks = static_cast<int>(std::min<std::uint64_t>(get_at<std::uint64_t>(h, kRanksAt), 1u << 30));
  TrainingState& t = out.run.state;
  const auto pass = get_at<std::uint64_t>(h, kStateAt), flags = get_at<std::uint64_t>(h, kStateAt + 48);
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
  d.fields = get_at<std::uint64_t>(h, kFieldsAt);
  d.size = get_at<std::uint64_t>(h, kSizeAt);
  d.table_sum = get_at<std::uint64_t>(h, kTableSumAt);
  if (d.fields == 0 || d.fields > kMaxFields) throw corrupt(path, "bad field count " + number_text(d.fields));
  if (d.size != actual_size || d.size < kCheckpointHeaderBytes + d.extension)
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

void decode_extension(const unsigned char* bytes, DecodedHeader& decoded, const std::string& path) {
  const auto n = static_cast<std::size_t>(decoded.extension);
  const ConstBytes x(bytes, n);
  if (get_at<std::uint64_t>(x, n - 8) != fnv1a(x.data(), n - 8)) throw corrupt(path, "spec extension checksum mismatch");
  LearnerSpec& s = decoded.header.spec;
  s.lambda1 = get_at<double>(x, 0);
  s.lambda2 = get_at<double>(x, 8);
  s.tau = get_at<double>(x, 16);
  const auto flags = get_at<std::uint64_t>(x, 24), grid_rows = get_at<std::uint64_t>(x, 32);
  const auto gammas = get_at<std::uint64_t>(x, 40);
  const std::size_t run_at = kExtensionFixedBytes + 8 * static_cast<std::size_t>(std::min<std::uint64_t>(gammas, kMaxOjaGamma));
  const bool has_run = decoded.version >= kVersion;
  const std::uint64_t values = has_run && run_at + kRunExtensionBytes + 8 <= n ? get_at<std::uint64_t>(x, run_at + 8) : 0;
  if (flags > 1 || grid_rows > (1u << 30) || gammas > kMaxOjaGamma || values > LabelMap::kMaxValues ||
      run_at + (has_run ? kRunExtensionBytes + 8 * values : 0) + 8 != n)
    throw corrupt(path, "bad spec extension");
  s.diag_rescale = flags == 1;
  s.grid_rows = static_cast<int>(grid_rows);
  s.oja_gamma.resize(static_cast<std::size_t>(gammas));
  for (std::size_t i = 0; i < s.oja_gamma.size(); ++i) s.oja_gamma[i] = get_at<double>(x, kExtensionFixedBytes + 8 * i);
  if (!has_run) return;
  CheckpointRun& run = decoded.header.run;
  run.bias = get_at<double>(x, run_at);
  std::vector<double> v(static_cast<std::size_t>(values));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = get_at<double>(x, run_at + kRunExtensionBytes + 8 * i);
  if (!std::isfinite(run.bias) || run.bias < 0.0 || (run.bias > 0.0 && decoded.header.dim < 2))
    throw corrupt(path, "bad bias");
  if (listed(decoded.labels) != !v.empty()) throw corrupt(path, "the label map code and its label values do not agree");
  if (v.empty()) return;
  try {
    const LabelMap labels(decoded.labels, std::move(v));
    if (!labels.fits(Loss(s.loss, std::max(decoded.header.classes, 2)))) throw InvalidArgument("label map");
    run.labels = labels;
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
