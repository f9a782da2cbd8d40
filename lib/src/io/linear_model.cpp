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

namespace adasketch {

static_assert(std::endian::native == std::endian::little, "the model file format assumes a little-endian host");

namespace {

constexpr char kMagic[8] = {'A', 'D', 'S', 'K', 'M', 'O', 'D', 'L'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 128, kNameBytes = 32;
constexpr std::size_t kAlgorithmAt = 32, kLossAt = 64, kReservedAt = 96, kReservedBytes = 16;
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
  if (comm.allreduce_max(failed) != 0) throw Error("out of memory for the model weights (" + std::to_string(n) + " doubles per rank)");
}

struct Header {
  LabelMap::Kind labels = LabelMap::Kind::real;
  std::uint64_t dim = 0, classes = 0, weights_sum = 0;
  std::string algorithm, loss;
};

// Validates everything a header with the right magic can tell (against the file size too); the
// same on every rank.
Header decode(const HeaderBytes& h, const std::string& path, MPI_Offset size) {
  const auto corrupt = [&](const std::string& what) { return InputError(path, 0, "corrupt model file: " + what); };
  if (get<std::uint64_t>(h, kHeaderSumAt) != detail::fnv1a(h.data(), kHeaderSumAt)) throw corrupt("header checksum mismatch");
  if (const auto version = get<std::uint32_t>(h, 8); version != kVersion)
    throw InputError(path, 0, "model format version " + std::to_string(version) + " is not supported (this build reads " +
                                  std::to_string(kVersion) + ")");
  Header out;
  if (!LabelMap::kind_from_code(get<std::uint32_t>(h, 12), out.labels)) throw corrupt("unknown label map code");
  out.dim = get<std::uint64_t>(h, 16);
  out.classes = get<std::uint64_t>(h, 24);
  out.weights_sum = get<std::uint64_t>(h, kWeightsSumAt);
  out.algorithm = get_name(h, kAlgorithmAt);
  out.loss = get_name(h, kLossAt);
  if (out.algorithm.empty() || out.loss.empty()) throw corrupt("bad algorithm or loss name");
  if (std::any_of(h.begin() + kReservedAt, h.begin() + kReservedAt + kReservedBytes, [](unsigned char c) { return c != 0; }))
    throw corrupt("reserved bytes are not zero");
  const auto max = static_cast<std::uint64_t>(std::numeric_limits<MPI_Offset>::max());
  if (out.dim == 0 || out.classes == 0 || out.classes > (1u << 20) || out.dim > (max - kHeaderBytes) / 8 / out.classes)
    throw corrupt("bad dimensions d = " + std::to_string(out.dim) + ", K = " + std::to_string(out.classes));
  const auto expected = static_cast<MPI_Offset>(kHeaderBytes + 8 * out.dim * out.classes);
  if (size != expected)
    throw InputError(path, 0, std::string(size < expected ? "truncated" : "corrupt") + " model file: " +
                                  std::to_string(size) + " bytes, expected 128 + 8·d·K = " + std::to_string(expected));
  return out;
}

}  // namespace

LinearModel::LinearModel(const Communicator& comm, const BlockPartition& partition, std::string algorithm,
                         const Loss& loss, const LabelMap& labels)
    : comm_(comm), partition_(partition), algorithm_(std::move(algorithm)), loss_(loss), labels_(labels) {
  ADASKETCH_REQUIRE(labels.fits(loss), "label map " + labels.describe() + " for loss " + loss.name());
  ADASKETCH_REQUIRE(!algorithm_.empty() && algorithm_.size() < kNameBytes, "algorithm = '" + algorithm_ + "'");
}

LinearModel::LinearModel(const Learner& learner, const LabelMap& labels)
    : LinearModel(learner.comm(), learner.partition(), learner.name(), learner.loss(), labels) {
  weights_.assign(static_cast<std::size_t>(learner.local_dim() * outputs()), 0.0);
  learner.weights(weights_);
}

void LinearModel::predict(const LocalRow& x, std::span<double> scores) const {
  const auto K = static_cast<std::size_t>(outputs());
  ADASKETCH_REQUIRE(scores.size() >= K, "scores.size() = " + std::to_string(scores.size()));
  std::fill(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(K), 0.0);
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k) scores[k] += v * weights_[j * K + k];
  });
  comm_.allreduce_sum(scores.first(K));
}

void LinearModel::save(const std::string& path) const {
  const bool local_bad = std::any_of(weights_.begin(), weights_.end(), [](double w) { return !std::isfinite(w); });
  if (comm_.allreduce_max(index_t{local_bad ? 1 : 0}) != 0)
    throw NumericError(path + ": not saving the model: some weights are not finite (the training diverged)");
  const auto K = static_cast<index_t>(outputs());
  const index_t first = K * partition_.begin(comm_.rank());
  HeaderBytes h{};
  std::memcpy(h.data(), kMagic, sizeof kMagic);
  put(h, 8, kVersion);
  put(h, 12, static_cast<std::uint32_t>(labels_.kind()));
  put(h, 16, static_cast<std::uint64_t>(dim()));
  put(h, 24, static_cast<std::uint64_t>(K));
  std::memcpy(h.data() + kAlgorithmAt, algorithm_.data(), algorithm_.size());
  std::memcpy(h.data() + kLossAt, loss_.name().data(), loss_.name().size());
  put(h, kWeightsSumAt, weights_checksum(comm_, weights_, first));
  put(h, kHeaderSumAt, detail::fnv1a(h.data(), kHeaderSumAt));

  // FILE.tmp, synced, then renamed onto FILE: FILE is never partial. Failures are agreed by every
  // rank (CollectiveFile, replace_file), and rank 0 removes FILE.tmp again.
  const std::string tmp = path + ".tmp";
  try {
    {
      detail::CollectiveFile file(comm_, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, false, "the model file");
      file.set_size(static_cast<MPI_Offset>(kHeaderBytes) + static_cast<MPI_Offset>(8 * dim() * K));  // drops an older, longer FILE.tmp
      file.write_bytes_root(0, h.data(), kHeaderBytes);
      file.write(static_cast<MPI_Offset>(kHeaderBytes + 8 * first), weights_.data(), static_cast<index_t>(weights_.size()));
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
    throw InputError(path, 0, "truncated model file: " + std::to_string(size) + " bytes, shorter than the 128-byte header");
  const Header header = decode(h, path, size);
  const auto K = static_cast<int>(header.classes);
  const auto loss = [&] {
    try {
      return Loss(from_string<LossKind>(header.loss), K);
    } catch (const InvalidArgument&) {
      throw InputError(path, 0, "corrupt model file: unknown loss '" + header.loss + "' with K = " + std::to_string(K));
    }
  }();
  const LabelMap labels(header.labels, std::max(K, 2));
  if (loss.outputs() != K || !labels.fits(loss))
    throw InputError(path, 0, "corrupt model file: K = " + std::to_string(K) + " and the label map " + labels.describe() +
                                  " do not fit the loss " + header.loss);
  const auto dim = static_cast<index_t>(header.dim);
  if (partition != nullptr && partition->dim() != dim)
    throw InputError(path, 0, "the model has d = " + std::to_string(dim) + ", the given partition d = " +
                                  std::to_string(partition->dim()));
  LinearModel model(comm, partition != nullptr ? *partition : BlockPartition(dim, comm.size()), header.algorithm, loss,
                    labels);
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
    throw InputError(path, 0, "corrupt model file: weight W[" + std::to_string(first_bad / K) + ", " +
                                  std::to_string(first_bad % K) + "] is not finite");
  return model;
}

void save_model(const Learner& learner, const LabelMap& labels, const std::string& path) {
  LinearModel(learner, labels).save(path);
}

}  // namespace adasketch
