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

#include "adasketch/error.hpp"
#include "collective_file.hpp"
#include "../learners/nonzeros.hpp"
#include "../learners/softmax_layout.hpp"

namespace adasketch {

static_assert(std::endian::native == std::endian::little, "the model file format assumes a little-endian host");

namespace {

constexpr char kMagic[8] = {'A', 'D', 'S', 'K', 'M', 'O', 'D', 'L'};
constexpr std::uint32_t kVersion = 2, kPlainVersion = 1;  // version 1: no label values, no bias
constexpr std::size_t kHeaderBytes = 128, kNameBytes = 32;
constexpr std::size_t kAlgorithmAt = 32, kLossAt = 64, kReservedAt = 96, kReservedBytes = 16;
constexpr std::size_t kValuesAt = 96, kBiasAt = 104;  // version 2's use of the reserved bytes
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

// The header checksum: FNV-1a of bytes 0..119, then (version 2) of the label values' bytes.
std::uint64_t header_checksum(const HeaderBytes& h, std::span<const double> values) {
  std::vector<unsigned char> bytes(h.begin(), h.begin() + kHeaderSumAt);
  const auto* v = reinterpret_cast<const unsigned char*>(values.data());
  bytes.insert(bytes.end(), v, v + 8 * values.size());
  return detail::fnv1a(bytes.data(), bytes.size());
}

struct Header {
  LabelMap::Kind labels = LabelMap::Kind::real;
  std::uint64_t dim = 0, classes = 0, weights_sum = 0;
  std::string algorithm, loss;
  double bias = 0.0;
};

// The label values a version 2 file holds at its end (L of them); none for version 1. Collective.
std::vector<double> read_label_values(const detail::CollectiveFile& file, const HeaderBytes& h, const std::string& path,
                                      MPI_Offset size) {
  if (get<std::uint32_t>(h, 8) != kVersion) return {};
  const auto count = get<std::uint64_t>(h, kValuesAt);
  if (count > LabelMap::kMaxValues || static_cast<MPI_Offset>(kHeaderBytes + 8 * count) > size)
    throw InputError(path, 0, "corrupt model file: bad number of label values " + number_text(count));
  std::vector<double> values(count);
  file.read_bytes(size - static_cast<MPI_Offset>(8 * count), reinterpret_cast<unsigned char*>(values.data()), 8 * count);
  return values;
}

// Validates everything a header with the right magic can tell (against the file size too); the
// same on every rank.
Header decode(const HeaderBytes& h, std::span<const double> values, const std::string& path, MPI_Offset size) {
  const auto corrupt = [&](const std::string& what) { return InputError(path, 0, "corrupt model file: " + what); };
  if (get<std::uint64_t>(h, kHeaderSumAt) != header_checksum(h, values)) throw corrupt("header checksum mismatch");
  const auto version = get<std::uint32_t>(h, 8);
  if (version != kVersion && version != kPlainVersion)
    throw InputError(path, 0, "model format version " + number_text(version) + " is not supported (this build reads " +
                                  number_text(kPlainVersion) + " and " + number_text(kVersion) + ")");
  Header out;
  if (!LabelMap::kind_from_code(get<std::uint32_t>(h, 12), out.labels)) throw corrupt("unknown label map code");
  out.dim = get<std::uint64_t>(h, 16);
  out.classes = get<std::uint64_t>(h, 24);
  out.weights_sum = get<std::uint64_t>(h, kWeightsSumAt);
  out.algorithm = get_name(h, kAlgorithmAt);
  out.loss = get_name(h, kLossAt);
  if (out.algorithm.empty() || out.loss.empty()) throw corrupt("bad algorithm or loss name");
  if (version == kPlainVersion &&
      std::any_of(h.begin() + kReservedAt, h.begin() + kReservedAt + kReservedBytes, [](unsigned char c) { return c != 0; }))
    throw corrupt("reserved bytes are not zero");
  if (version == kVersion) out.bias = get<double>(h, kBiasAt);
  if (!std::isfinite(out.bias) || out.bias < 0.0) throw corrupt("bad bias " + number_text(out.bias));
  const auto max = static_cast<std::uint64_t>(std::numeric_limits<MPI_Offset>::max());
  if (out.dim < (out.bias > 0.0 ? 2u : 1u) || out.classes == 0 || out.classes > (1u << 20) ||
      out.dim > (max - kHeaderBytes - 8 * values.size()) / 8 / out.classes)
    throw corrupt("bad dimensions d = " + number_text(out.dim) + ", K = " + number_text(out.classes));
  const auto expected = static_cast<MPI_Offset>(kHeaderBytes + 8 * out.dim * out.classes + 8 * values.size());
  if (size != expected)
    throw InputError(path, 0, std::string(size < expected ? "truncated" : "corrupt") + " model file: " +
                                  number_text(size) + " bytes, expected 128 + 8·d·K + 8·L = " + number_text(expected));
  return out;
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

}  // namespace

LinearModel::LinearModel(const Communicator& comm, const BlockPartition& partition, std::string algorithm,
                         const Loss& loss, const LabelMap& labels, double bias)
    : comm_(comm), partition_(partition), algorithm_(std::move(algorithm)), loss_(loss), labels_(labels), bias_(bias) {
  ADASKETCH_REQUIRE(labels.fits(loss), "label map " + labels.describe() + " for loss " + loss.name());
  ADASKETCH_REQUIRE(!algorithm_.empty() && algorithm_.size() < kNameBytes, "algorithm = '" + algorithm_ + "'");
  ADASKETCH_REQUIRE(std::isfinite(bias) && bias >= 0.0 && (bias == 0.0 || partition.dim() >= 2),
                    "bias = " + number_text(bias) + " with d = " + number_text(partition.dim()));
}

LinearModel::LinearModel(const Learner& learner, const LabelMap& labels, double bias)
    : LinearModel(learner.comm(), learner.partition(), learner.name(), learner.loss(), labels, bias) {
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
  const bool plain = values.empty() && bias_ == 0.0;  // a version 1 file, as before label values and biases
  HeaderBytes h{};
  std::memcpy(h.data(), kMagic, sizeof kMagic);
  put(h, 8, plain ? kPlainVersion : kVersion);
  put(h, 12, static_cast<std::uint32_t>(labels_.kind()));
  if (!plain) {
    put(h, kValuesAt, static_cast<std::uint64_t>(values.size()));
    put(h, kBiasAt, bias_);
  }
  put(h, 16, static_cast<std::uint64_t>(dim()));
  put(h, 24, static_cast<std::uint64_t>(K));
  std::memcpy(h.data() + kAlgorithmAt, algorithm_.data(), algorithm_.size());
  std::memcpy(h.data() + kLossAt, loss_.name().data(), loss_.name().size());
  put(h, kWeightsSumAt, weights_checksum(comm_, weights_, first));
  put(h, kHeaderSumAt, header_checksum(h, values));

  // FILE.tmp, synced, then renamed onto FILE: FILE is never partial. Failures are agreed by every
  // rank (CollectiveFile, replace_file), and rank 0 removes FILE.tmp again.
  const std::string tmp = path + ".tmp";
  try {
    {
      const auto values_at = static_cast<MPI_Offset>(kHeaderBytes) + static_cast<MPI_Offset>(8 * dim() * K);
      detail::CollectiveFile file(comm_, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, false, "the model file");
      file.set_size(values_at + static_cast<MPI_Offset>(8 * values.size()));  // drops an older, longer FILE.tmp
      file.write_bytes_root(0, h.data(), kHeaderBytes);
      file.write(static_cast<MPI_Offset>(kHeaderBytes + 8 * first), weights_.data(), static_cast<index_t>(weights_.size()));
      file.write_bytes_root(values_at, reinterpret_cast<const unsigned char*>(values.data()), 8 * values.size());
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
  if (have < kHeaderBytes)
    throw InputError(path, 0, "truncated model file: " + number_text(size) + " bytes, shorter than the 128-byte header");
  std::vector<double> values = read_label_values(file, h, path, size);
  const Header header = decode(h, values, path, size);
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
  LinearModel model(comm, partition != nullptr ? *partition : BlockPartition(dim, comm.size()), header.algorithm, loss,
                    labels, header.bias);
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

void save_model(const Learner& learner, const LabelMap& labels, const std::string& path, double bias) {
  LinearModel(learner, labels, bias).save(path);
}

}  // namespace adasketch
