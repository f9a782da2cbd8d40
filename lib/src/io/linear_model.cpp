#include "adasketch/io/linear_model.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "adasketch/data/bias_source.hpp"
#include "adasketch/error.hpp"
#include "collective_file.hpp"
#include "../learners/nonzeros.hpp"
#include "../learners/softmax_layout.hpp"

namespace adasketch {

static_assert(std::endian::native == std::endian::little, "the model file format assumes a little-endian host");

namespace {

constexpr char kMagic[8] = {'A', 'D', 'S', 'K', 'M', 'O', 'D', 'L'};
// The one layout (docs/formats.md, "Model files"), little-endian, rows of 8 bytes; the version is
// detail::kFileFormatVersion:
//  Adr:
//        ||    7    |    6    |    5    |    4    |    3    |    2    |    1    |    0    |
//  0     ||------------------------------- magic ADSKMODL --------------------------------|
//        ||   15    |   14    |   13    |   12    |   11    |   10    |    9    |    8    |
//  1     ||-------------- label map --------------|-------------- version 5 --------------|
//  2     ||-------------------------------- d: rows of W ---------------------------------|
//  3     ||------------------------------- K: columns of W -------------------------------|
//  4-7   ||------------------------- algorithm name, NUL-padded --------------------------|
//  8-11  ||---------------------------- loss name, NUL-padded ----------------------------|
//  12    ||------------------------------- L: label values -------------------------------|
//  13    ||------------------------------ bias B (float64) -------------------------------|
//  14    ||------------------------------ weights checksum -------------------------------|
//  15    ||------------------------------- header checksum -------------------------------|
//  16    ||  W: d×K float64, feature-major, W[j, k] at byte 128 + 8(j·K + k)
//  then  ||  the L label values (float64, ascending)
//  then  ||  the trailer: D, the original d (uint64; 0: no list) | the list's checksum (uint64; 0 when D = 0)
//  then  ||  when D > 0, the list: the n = d − [B > 0] original indices (uint64, ascending, < D) of W's rows but the bias
// The header checksum is the FNV-1a of bytes 0–119 continued over the label values and the trailer.
constexpr std::size_t kHeaderBytes = 128, kNameBytes = 32, kTrailerBytes = 16;
constexpr std::size_t kAlgorithmAt = 32, kLossAt = 64, kValuesAt = 96, kBiasAt = 104;
constexpr std::size_t kWeightsSumAt = 112, kHeaderSumAt = 120;
using HeaderBytes = std::array<unsigned char, kHeaderBytes>;

// Collective: the order-free checksum of the whole W; `first` is the global index of w[0].
std::uint64_t weights_checksum(const Communicator& comm, std::span<const double> w, index_t first) {
  return detail::checksum_sum(comm, detail::checksum_part(w, static_cast<std::uint64_t>(first)));
}

template <class T>
void put(HeaderBytes& h, std::size_t at, T v) {
  detail::put_at(std::span<unsigned char>(h), at, v);
}
template <class T>
T get(const HeaderBytes& h, std::size_t at) {
  return detail::get_at<T>(std::span<const unsigned char>(h), at);
}
std::string get_name(const HeaderBytes& h, std::size_t at) { return detail::get_name(h, at, kNameBytes); }

// Every rank allocates; if any rank cannot, all throw.
void allocate_everywhere(const Communicator& comm, std::vector<double>& v, std::size_t n) {
  index_t failed = 0;
  try {
    v.assign(n, 0.0);
  } catch (const std::bad_alloc&) {
    failed = 1;
  }
  if (comm.allreduce_max(failed) != 0) throw Error("out of memory for the model weights (" + number_text(n) + " doubles per rank)");
}

// The trailer: the original d and the order-free checksum of the feature list.
using TrailerBytes = std::array<unsigned char, kTrailerBytes>;

// The header checksum: FNV-1a of bytes 0..119, then of the label values' bytes and of the trailer.
std::uint64_t header_checksum(const HeaderBytes& h, std::span<const double> values, const TrailerBytes& trailer) {
  std::vector<unsigned char> bytes(h.begin(), h.begin() + kHeaderSumAt);
  const auto* v = reinterpret_cast<const unsigned char*>(values.data());
  bytes.insert(bytes.end(), v, v + 8 * values.size());
  bytes.insert(bytes.end(), trailer.begin(), trailer.end());
  return detail::fnv1a(bytes.data(), bytes.size());
}

// The checksum of a feature list split over ranks; `first` is the position of features[0].
std::uint64_t features_checksum(const Communicator& comm, std::span<const std::uint64_t> features, index_t first) {
  return detail::checksum_sum(comm, detail::checksum_part(features, static_cast<std::uint64_t>(first)));
}

struct Header {
  LabelMap::Kind labels = LabelMap::Kind::real;
  std::uint64_t dim = 0, classes = 0, weights_sum = 0;
  std::string algorithm, loss;
  double bias = 0.0;
  std::uint64_t original_dim = 0, features_sum = 0;  ///< the trailer (D = 0: no feature list)
};

// The L label values after W and the trailer after them. Collective.
std::vector<double> read_tail(const detail::CollectiveFile& file, const HeaderBytes& h, const std::string& path,
                              MPI_Offset size, TrailerBytes& trailer) {
  const auto count = get<std::uint64_t>(h, kValuesAt);
  const auto rows = get<std::uint64_t>(h, 16), classes = get<std::uint64_t>(h, 24);
  const auto max = static_cast<std::uint64_t>(std::numeric_limits<MPI_Offset>::max());
  if (count > LabelMap::kMaxValues)
    throw InputError(path, 0, "corrupt model file: bad number of label values " + number_text(count));
  // W and a feature list of at most d entries: d·(K + 1) words.
  if (classes == 0 || classes > (1u << 20) || rows > (max - kHeaderBytes - 8 * count - kTrailerBytes) / 8 / (classes + 1))
    throw InputError(path, 0, "corrupt model file: bad dimensions d = " + number_text(rows) + ", K = " + number_text(classes));
  const auto at = static_cast<MPI_Offset>(kHeaderBytes + 8 * rows * classes);
  const auto end = at + static_cast<MPI_Offset>(8 * count + kTrailerBytes);
  if (end > size)
    throw InputError(path, 0, "truncated model file: " + number_text(size) +
                                  " bytes, expected at least 128 + 8·d·K + 8·L + 16 = " + number_text(end));
  std::vector<double> values(count);
  file.read_bytes(at, reinterpret_cast<unsigned char*>(values.data()), 8 * count);
  file.read_bytes(end - static_cast<MPI_Offset>(kTrailerBytes), trailer.data(), kTrailerBytes);
  return values;
}

// Validates everything the header, the label values and the trailer of a file of this version can
// tell (against the file size too); the same on every rank.
Header decode(const HeaderBytes& h, std::span<const double> values, const TrailerBytes& trailer, const std::string& path,
              MPI_Offset size) {
  const auto corrupt = [&](const std::string& what) { return InputError(path, 0, "corrupt model file: " + what); };
  if (get<std::uint64_t>(h, kHeaderSumAt) != header_checksum(h, values, trailer)) throw corrupt("header checksum mismatch");
  Header out;
  if (!LabelMap::kind_from_code(get<std::uint32_t>(h, 12), out.labels)) throw corrupt("unknown label map code");
  out.dim = get<std::uint64_t>(h, 16);
  out.classes = get<std::uint64_t>(h, 24);
  out.weights_sum = get<std::uint64_t>(h, kWeightsSumAt);
  out.algorithm = get_name(h, kAlgorithmAt);
  out.loss = get_name(h, kLossAt);
  if (out.algorithm.empty() || out.loss.empty()) throw corrupt("bad algorithm or loss name");
  out.bias = get<double>(h, kBiasAt);
  if (!std::isfinite(out.bias) || out.bias < 0.0) throw corrupt("bad bias " + number_text(out.bias));
  if (out.dim < (out.bias > 0.0 ? 2u : 1u))  // the upper bounds: read_tail
    throw corrupt("bad dimensions d = " + number_text(out.dim) + ", K = " + number_text(out.classes));
  const std::span<const unsigned char> trailer_bytes(trailer);
  out.original_dim = detail::get_at<std::uint64_t>(trailer_bytes, 0);
  out.features_sum = detail::get_at<std::uint64_t>(trailer_bytes, 8);
  // D > 0 lists one original index for each row of W but the bias feature's.
  const std::uint64_t listed = out.original_dim > 0 ? out.dim - (out.bias > 0.0 ? 1 : 0) : 0;
  if (out.original_dim == 0 && out.features_sum != 0) throw corrupt("a feature list checksum without a feature list (D = 0)");
  if (out.original_dim > 0 &&
      (out.original_dim < listed || out.original_dim > static_cast<std::uint64_t>(std::numeric_limits<index_t>::max())))
    throw corrupt("original d = " + number_text(out.original_dim) + " with " + number_text(listed) + " listed features");
  const auto expected =
      static_cast<MPI_Offset>(kHeaderBytes + 8 * out.dim * out.classes + 8 * values.size() + kTrailerBytes + 8 * listed);
  if (size != expected)
    throw InputError(path, 0, std::string(size < expected ? "truncated" : "corrupt") + " model file: " +
                                  number_text(size) + " bytes, expected 128 + 8·d·K + 8·L + 16 + 8·n = " +
                                  number_text(expected));
  return out;
}

// Collective. The position in the file's ascending feature list (n entries at byte `at`) of the
// first feature ≥ f, every rank its own f: a binary search of single reads, the same number of
// collective reads on every rank.
index_t first_listed_at_least(const detail::CollectiveFile& file, MPI_Offset at, std::uint64_t n, std::uint64_t f) {
  std::uint64_t lo = 0, hi = n;
  for (std::uint64_t span = n; ; span /= 2) {
    std::uint64_t value = 0;
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const bool searching = lo < hi;
    file.read_bytes(at + static_cast<MPI_Offset>(8 * mid), reinterpret_cast<unsigned char*>(&value), searching ? 8 : 0);
    if (searching) (value < f ? lo = mid + 1 : hi = mid);
    if (span == 0) break;
  }
  return static_cast<index_t>(lo);
}

// The map a header and its label values describe; InputError for a combination save() never writes.
LabelMap decoded_map(const Header& header, std::vector<double> values, const std::string& path) {
  const bool listed = header.labels == LabelMap::Kind::two_values || header.labels == LabelMap::Kind::listed_classes;
  try {
    if (listed) return LabelMap(header.labels, std::move(values));
    if (values.empty()) return LabelMap(header.labels, std::max(static_cast<int>(header.classes), 2));
  } catch (const InvalidArgument&) {
  }
  throw InputError(path, 0, "corrupt model file: the label map code and its " + number_text(values.size()) +
                                " label values do not agree");
}

// Collective. The feature map of a file whose list starts at byte `at`: each rank reads the
// listed features of its block of the original d split over comm.
std::shared_ptr<const FeatureMap> read_feature_list(const Communicator& comm, const detail::CollectiveFile& file,
                                                    const std::string& path, const Header& header, MPI_Offset at) {
  const std::uint64_t n = header.dim - (header.bias > 0.0 ? 1 : 0);
  const BlockPartition original(static_cast<index_t>(header.original_dim), comm.size());
  const index_t begin = original.begin(comm.rank()), end = original.end(comm.rank());
  const index_t lo = first_listed_at_least(file, at, n, static_cast<std::uint64_t>(begin));
  const index_t hi = first_listed_at_least(file, at, n, static_cast<std::uint64_t>(end));
  std::vector<double> words(sz(hi - lo));
  file.read(at + static_cast<MPI_Offset>(8 * lo), words.data(), hi - lo);
  std::vector<std::uint64_t> listed(words.size());
  std::transform(words.begin(), words.end(), listed.begin(), [](double w) { return std::bit_cast<std::uint64_t>(w); });
  // An unsorted list could make the ranks' slices overlap or miss entries: the checksum and the count
  // over the slices find it.
  bool ordered = true;
  for (std::size_t i = 0; i < listed.size(); ++i)
    ordered = ordered && listed[i] >= static_cast<std::uint64_t>(begin) && listed[i] < static_cast<std::uint64_t>(end) &&
              (i == 0 || listed[i - 1] < listed[i]);
  const index_t disordered = comm.allreduce_max(index_t{ordered ? 0 : 1});
  const index_t count = comm.allreduce_sum(hi - lo);
  if (disordered != 0 || count != static_cast<index_t>(n) || features_checksum(comm, listed, lo) != header.features_sum)
    throw InputError(path, 0, "corrupt model file: the feature list is not " + number_text(n) +
                                  " ascending original indices below d = " + number_text(header.original_dim) +
                                  " with its checksum");
  std::vector<index_t> local(listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) local[i] = static_cast<index_t>(listed[i]) - begin;
  return std::make_shared<const FeatureMap>(comm, original, std::move(local));
}

}  // namespace

LinearModel::LinearModel(const Communicator& comm, const BlockPartition& partition, std::string algorithm,
                         const Loss& loss, const LabelMap& labels, double bias)
    : comm_(comm), partition_(partition), algorithm_(std::move(algorithm)), loss_(loss), labels_(labels), bias_(bias) {
  ADASKETCH_REQUIRE(labels.fits(loss), "label map " + labels.describe() + " for loss " + loss.name());
  ADASKETCH_REQUIRE(!algorithm_.empty() && algorithm_.size() < kNameBytes, "algorithm = '" + algorithm_ + "'");
  ADASKETCH_REQUIRE(std::isfinite(bias) && bias >= 0.0 && (bias == 0.0 || partition.dim() >= 2),
                    "bias = " + number_text(bias) + " with d = " + number_text(partition.dim()));
}

LinearModel::LinearModel(const Learner& learner, const LabelMap& labels, double bias,
                         std::shared_ptr<const FeatureMap> features)
    : LinearModel(learner.comm(), learner.partition(), learner.name(), learner.loss(), labels, bias) {
  if (features) {
    const BlockPartition& kept = features->partition();
    bool same = kept.parts() == partition_.parts() && kept.dim() == data_dim();
    for (int p = 0; same && p < kept.parts(); ++p) same = kept.begin(p) == partition_.begin(p);
    ADASKETCH_REQUIRE(same, "the learner's d = " + number_text(data_dim()) + " (without the bias feature) is not split "
                            "as the " + number_text(kept.dim()) + " compact features");
    features_ = std::move(features);
  }
  weights_.assign(static_cast<std::size_t>(learner.local_dim() * outputs()), 0.0);
  learner.weights(weights_);
}

void LinearModel::predict(const LocalRow& x, std::span<double> scores) const {
  const auto K = static_cast<std::size_t>(outputs());
  ADASKETCH_REQUIRE(scores.size() >= K, "scores.size() = " + number_text(scores.size()));
  std::fill(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(K), 0.0);
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k) scores[k] += v * weights_[class_entry(j, k, K)];
  });
  comm_.allreduce_sum(scores.first(K));
}

void LinearModel::save(const std::string& path) const {
  const bool local_bad = std::any_of(weights_.begin(), weights_.end(), [](double w) { return !std::isfinite(w); });
  if (comm_.allreduce_max(index_t{local_bad ? 1 : 0}) != 0)
    throw NumericError(path + ": not saving the model: some weights are not finite (the training diverged)");
  const auto K = static_cast<index_t>(outputs());
  const index_t first = K * partition_.begin(comm_.rank());
  const std::span<const double> values = labels_.values();
  // A model of compact features: this rank's original feature indices, and the list's place and
  // checksum; else D = 0 and no list.
  std::vector<std::uint64_t> listed;
  index_t listed_first = 0;
  TrailerBytes trailer{};
  if (features_) {
    const index_t begin = features_->original_partition().begin(comm_.rank());
    for (const index_t j : features_->local_features()) listed.push_back(static_cast<std::uint64_t>(begin + j));
    listed_first = features_->partition().begin(comm_.rank());
    detail::put_at(std::span<unsigned char>(trailer), 0, static_cast<std::uint64_t>(features_->original_dim()));
    detail::put_at(std::span<unsigned char>(trailer), 8, features_checksum(comm_, listed, listed_first));
  }
  HeaderBytes h{};
  std::memcpy(h.data(), kMagic, sizeof kMagic);
  put(h, 8, detail::kFileFormatVersion);
  put(h, 12, static_cast<std::uint32_t>(labels_.kind()));
  put(h, 16, static_cast<std::uint64_t>(dim()));
  put(h, 24, static_cast<std::uint64_t>(K));
  std::memcpy(h.data() + kAlgorithmAt, algorithm_.data(), algorithm_.size());
  std::memcpy(h.data() + kLossAt, loss_.name().data(), loss_.name().size());
  put(h, kValuesAt, static_cast<std::uint64_t>(values.size()));
  put(h, kBiasAt, bias_);
  put(h, kWeightsSumAt, weights_checksum(comm_, weights_, first));
  put(h, kHeaderSumAt, header_checksum(h, values, trailer));

  // FILE.tmp, synced, then renamed onto FILE: FILE is never partial. Failures are agreed by every
  // rank (CollectiveFile, replace_file), and rank 0 removes FILE.tmp again.
  const std::string tmp = path + ".tmp";
  try {
    {
      const auto values_at = static_cast<MPI_Offset>(kHeaderBytes) + static_cast<MPI_Offset>(8 * dim() * K);
      detail::CollectiveFile file(comm_, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, false, "the model file");
      const MPI_Offset trailer_at = values_at + static_cast<MPI_Offset>(8 * values.size());
      const MPI_Offset list_at = trailer_at + static_cast<MPI_Offset>(kTrailerBytes);
      const index_t count = features_ ? features_->partition().dim() : 0;
      file.set_size(list_at + static_cast<MPI_Offset>(8 * count));  // drops an older, longer FILE.tmp
      file.write_bytes_root(0, h.data(), kHeaderBytes);
      file.write(static_cast<MPI_Offset>(kHeaderBytes + 8 * first), weights_.data(), static_cast<index_t>(weights_.size()));
      file.write_bytes_root(values_at, reinterpret_cast<const unsigned char*>(values.data()), 8 * values.size());
      file.write_bytes_root(trailer_at, trailer.data(), kTrailerBytes);
      // The 8-byte words as they are (CollectiveFile moves doubles; the bits are not converted).
      std::vector<double> words(listed.size());
      std::transform(listed.begin(), listed.end(), words.begin(), [](std::uint64_t f) { return std::bit_cast<double>(f); });
      file.write(list_at + static_cast<MPI_Offset>(8 * listed_first), words.data(), static_cast<index_t>(words.size()));
      file.sync();
      file.close();  // collective, and agreed: every rank's data is in the file after this
    }
    detail::replace_file(comm_, tmp, path, "the model file");
  } catch (const Error&) {
    if (comm_.rank() == 0) std::remove(tmp.c_str());
    throw;
  }
}

LinearModel LinearModel::load(const Communicator& comm, const std::string& path) { return load(comm, path, nullptr); }

LinearModel LinearModel::load(const Communicator& comm, const std::string& path, const BlockPartition& partition) {
  partition.require_parts_for(comm);
  return load(comm, path, &partition);
}

LinearModel LinearModel::load(const Communicator& comm, const std::string& path, const BlockPartition* partition) {
  detail::CollectiveFile file(comm, path, MPI_MODE_RDONLY, true, "the model file");
  const MPI_Offset size = file.size();
  HeaderBytes h{};
  const auto have = static_cast<std::size_t>(std::min<MPI_Offset>(size, static_cast<MPI_Offset>(kHeaderBytes)));
  MPI_Status status;
  file.check(MPI_File_read_at_all(file.get(), 0, h.data(), static_cast<int>(have), MPI_BYTE, &status),
             "MPI_File_read_at_all(header)");
  if (std::memcmp(h.data(), kMagic, std::min(have, sizeof kMagic)) != 0 || have == 0)
    throw InputError(path, 0, "not an adasketch model file (magic \"ADSKMODL\" missing)");
  // The version (bytes 8–11) first: the rest of another version's file has another layout.
  if (have >= 12) detail::require_format_version(path, "model", get<std::uint32_t>(h, 8));
  if (have < kHeaderBytes)
    throw InputError(path, 0, "truncated model file: " + number_text(size) + " bytes, shorter than the 128-byte header");
  TrailerBytes trailer{};
  std::vector<double> values = read_tail(file, h, path, size, trailer);
  const Header header = decode(h, values, trailer, path, size);
  const auto K = static_cast<int>(header.classes);
  const auto loss = [&] {
    try {
      return Loss(from_string<LossKind>(header.loss), K);
    } catch (const InvalidArgument&) {
      throw InputError(path, 0, "corrupt model file: unknown loss '" + header.loss + "' with K = " + number_text(K));
    }
  }();
  const LabelMap labels = decoded_map(header, std::move(values), path);
  if (loss.outputs() != K || !labels.fits(loss))
    throw InputError(path, 0, "corrupt model file: K = " + number_text(K) + " and the label map " + labels.describe() +
                                  " do not fit the loss " + header.loss);
  const auto dim = static_cast<index_t>(header.dim);
  if (partition != nullptr && partition->dim() != dim)
    throw InputError(path, 0, "the model has d = " + number_text(dim) + ", the given partition d = " +
                                  number_text(partition->dim()));
  std::shared_ptr<const FeatureMap> features;
  if (header.original_dim > 0) {
    const auto listed_at = static_cast<MPI_Offset>(kHeaderBytes + 8 * header.dim * header.classes + 8 * labels.values().size() +
                                                   kTrailerBytes);
    features = read_feature_list(comm, file, path, header, listed_at);
  }
  const BlockPartition default_partition = !features               ? BlockPartition(dim, comm.size())
                                           : header.bias > 0.0 ? with_bias_feature(features->partition())
                                                               : features->partition();
  LinearModel model(comm, partition != nullptr ? *partition : default_partition, header.algorithm, loss, labels,
                    header.bias);
  model.features_ = std::move(features);
  const index_t first = K * model.partition_.begin(comm.rank());
  allocate_everywhere(comm, model.weights_, static_cast<std::size_t>(model.partition_.size(comm.rank()) * K));
  file.read(static_cast<MPI_Offset>(kHeaderBytes + 8 * first), model.weights_.data(),
            static_cast<index_t>(model.weights_.size()));
  file.close();
  if (weights_checksum(comm, model.weights_, first) != header.weights_sum)
    throw InputError(path, 0, "corrupt model file: weights checksum mismatch");
  // save() never writes a non-finite weight: such a file was crafted (its checksums recomputed).
  const auto bad = std::find_if(model.weights_.begin(), model.weights_.end(), [](double w) { return !std::isfinite(w); });
  const index_t none = std::numeric_limits<index_t>::max();
  const index_t first_bad = comm.allreduce_min(bad == model.weights_.end() ? none : first + (bad - model.weights_.begin()));
  if (first_bad != none)
    throw InputError(path, 0, "corrupt model file: weight W[" + number_text(first_bad / K) + ", " +
                                  number_text(first_bad % K) + "] is not finite");
  return model;
}

void save_model(const Learner& learner, const LabelMap& labels, const std::string& path, double bias,
                std::shared_ptr<const FeatureMap> features) {
  LinearModel(learner, labels, bias, std::move(features)).save(path);
}

}  // namespace adasketch
