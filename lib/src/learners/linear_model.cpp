#include "adasketch/learners/linear_model.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#include "adasketch/error.hpp"
#include "../data/file_kind.hpp"
#include "nonzeros.hpp"

namespace adasketch {

static_assert(std::endian::native == std::endian::little, "the model file format assumes a little-endian host");

namespace {

constexpr char kMagic[8] = {'A', 'D', 'S', 'K', 'M', 'O', 'D', 'L'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 128, kNameBytes = 32;
constexpr std::size_t kAlgorithmAt = 32, kLossAt = 64, kReservedAt = 96, kReservedBytes = 16;
constexpr std::size_t kWeightsSumAt = 112, kHeaderSumAt = 120;
constexpr index_t kChunk = index_t{1} << 26;  // doubles per MPI-IO call, far below INT_MAX

using HeaderBytes = std::array<unsigned char, kHeaderBytes>;

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(const unsigned char* p, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

// Collective: Σ_e mix(e, bits(w_e)) mod 2⁶⁴ over the whole W; `first` is the global index of w[0].
std::uint64_t weights_checksum(const Communicator& comm, std::span<const double> w, index_t first) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < w.size(); ++i)
    sum += splitmix64(std::bit_cast<std::uint64_t>(w[i]) ^ splitmix64(static_cast<std::uint64_t>(first) + i));
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, comm.get()), "MPI_Allreduce(sum)");
  return sum;
}

template <class T>
void put(HeaderBytes& h, std::size_t at, T v) {
  std::memcpy(h.data() + at, &v, sizeof v);
}
template <class T>
T get(const HeaderBytes& h, std::size_t at) {
  T v;
  std::memcpy(&v, h.data() + at, sizeof v);
  return v;
}

// A NUL-padded name field; empty when it is not printable ASCII followed by NULs only.
std::string get_name(const HeaderBytes& h, std::size_t at) {
  const unsigned char* p = h.data() + at;
  const std::size_t n = static_cast<std::size_t>(std::find(p, p + kNameBytes, 0) - p);
  if (n == kNameBytes || std::any_of(p + n, p + kNameBytes, [](unsigned char c) { return c != 0; }) ||
      std::any_of(p, p + n, [](unsigned char c) { return c < 0x21 || c > 0x7e; }))
    return {};
  return std::string(reinterpret_cast<const char*>(p), n);
}

std::string mpi_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<std::size_t>(length));
}

// An MPI-IO file whose every failure is agreed: each call's return code is reduced (max) over the
// ranks, so all of them throw the same error together and the destructor's collective close is safe.
class ModelFile {
 public:
  ModelFile(const Communicator& comm, std::string path, int mode, bool reading)
      : comm_(comm), path_(std::move(path)), reading_(reading) {
    if (reading_) {  // before MPI_File_open: a pipe blocks it, a directory fails only in the reads
      const std::string why = detail::not_a_regular_file(path_);
      if (agreed(why.empty() ? MPI_SUCCESS : MPI_ERR_FILE) != MPI_SUCCESS)
        throw InputError(path_, 0, "cannot read: " + (why.empty() ? std::string("not a regular file on another rank") : why));
    }
    const int rc = MPI_File_open(comm_.get(), path_.c_str(), mode, MPI_INFO_NULL, &file_);
    if (agreed(rc) != MPI_SUCCESS) {
      if (rc == MPI_SUCCESS) MPI_File_close(&file_);
      file_ = MPI_FILE_NULL;
      fail(reading_ ? "cannot open" : "cannot create", rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER);
    }
  }
  ~ModelFile() {
    if (file_ != MPI_FILE_NULL) MPI_File_close(&file_);
  }
  ModelFile(const ModelFile&) = delete;
  ModelFile& operator=(const ModelFile&) = delete;

  MPI_File get() const noexcept { return file_; }
  void check(int rc, const char* call) const {
    if (const int worst = agreed(rc); worst != MPI_SUCCESS) fail(call, worst);
  }
  void close() {
    const int rc = MPI_File_close(&file_);
    file_ = MPI_FILE_NULL;
    check(rc, "MPI_File_close");
  }
  /// Collective: reads `count` doubles at byte `offset` into data.
  void read(MPI_Offset offset, double* data, index_t count) const {
    chunked(offset, count, "MPI_File_read_at_all", [&](MPI_Offset where, index_t at, int n, MPI_Status* status) {
      return MPI_File_read_at_all(file_, where, data + at, n, MPI_DOUBLE, status);
    });
  }
  /// Collective: writes `count` doubles from data at byte `offset`.
  void write(MPI_Offset offset, const double* data, index_t count) const {
    chunked(offset, count, "MPI_File_write_at_all", [&](MPI_Offset where, index_t at, int n, MPI_Status* status) {
      return MPI_File_write_at_all(file_, where, data + at, n, MPI_DOUBLE, status);
    });
  }

 private:
  // Splits a transfer into chunks of at most kChunk doubles; every rank makes the same number of
  // calls (the collective ones need it), with n = 0 once its own data is done.
  template <class Call>
  void chunked(MPI_Offset offset, index_t count, const char* name, Call call) const {
    const index_t chunks = comm_.allreduce_max((count + kChunk - 1) / kChunk);
    for (index_t c = 0; c < chunks; ++c) {
      const index_t at = std::min(c * kChunk, count), n = std::min(kChunk, count - at);
      MPI_Status status;
      check(call(offset + static_cast<MPI_Offset>(8 * at), at, static_cast<int>(n), &status), name);
      int done = 0;
      check(MPI_Get_count(&status, MPI_DOUBLE, &done), "MPI_Get_count");
      if (comm_.allreduce_max(static_cast<index_t>(done != n)) != 0) fail(std::string(name) + ": short transfer", MPI_ERR_IO);
    }
  }
  int agreed(int rc) const {
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm_.get()), "MPI_Allreduce(max)");
    return rc;
  }
  [[noreturn]] void fail(const std::string& what, int rc) const {
    const std::string message = what + " (" + mpi_text(rc) + ")";
    if (reading_) throw InputError(path_, 0, message);
    throw Error(path_ + ": cannot write the model file: " + message);
  }

  Communicator comm_;
  std::string path_;
  bool reading_;
  MPI_File file_ = MPI_FILE_NULL;
};

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
  if (get<std::uint64_t>(h, kHeaderSumAt) != fnv1a(h.data(), kHeaderSumAt)) throw corrupt("header checksum mismatch");
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

LinearModel::LinearModel(const Communicator& comm, index_t dim, std::string algorithm, const Loss& loss,
                         const LabelMap& labels)
    : comm_(comm), partition_(dim, comm.size()), algorithm_(std::move(algorithm)), loss_(loss), labels_(labels) {
  ADASKETCH_REQUIRE(labels.fits(loss), "label map " + labels.describe() + " for loss " + loss.name());
  ADASKETCH_REQUIRE(!algorithm_.empty() && algorithm_.size() < kNameBytes, "algorithm = '" + algorithm_ + "'");
}

LinearModel::LinearModel(const Learner& learner, const LabelMap& labels)
    : LinearModel(learner.comm(), learner.partition().dim(), learner.name(), learner.loss(), labels) {
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
  put(h, kHeaderSumAt, fnv1a(h.data(), kHeaderSumAt));

  const std::string tmp = path + ".tmp";
  {
    ModelFile file(comm_, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, false);
    const auto total = static_cast<MPI_Offset>(kHeaderBytes) + static_cast<MPI_Offset>(8 * dim() * K);
    file.check(MPI_File_set_size(file.get(), total), "MPI_File_set_size");  // drops an older, longer FILE.tmp
    MPI_Status status;
    file.check(comm_.rank() == 0 ? MPI_File_write_at(file.get(), 0, h.data(), static_cast<int>(kHeaderBytes), MPI_BYTE, &status)
                                 : MPI_SUCCESS,
               "MPI_File_write_at(header)");
    file.write(static_cast<MPI_Offset>(kHeaderBytes + 8 * first), weights_.data(), static_cast<index_t>(weights_.size()));
    file.close();  // collective, and agreed: every rank's data is in the file after this
  }
  std::array<char, 256> failure{};
  if (comm_.rank() == 0 && std::rename(tmp.c_str(), path.c_str()) != 0)
    std::snprintf(failure.data(), failure.size(), "%s", std::strerror(errno));
  comm_.broadcast(failure, 0);
  if (failure[0] != '\0')
    throw Error(path + ": cannot write the model file: renaming " + tmp + " failed (" + failure.data() + ")");
}

LinearModel LinearModel::load(const Communicator& comm, const std::string& path) {
  ModelFile file(comm, path, MPI_MODE_RDONLY, true);
  MPI_Offset size = 0;
  file.check(MPI_File_get_size(file.get(), &size), "MPI_File_get_size");
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
      return Loss(header.loss, K);
    } catch (const InvalidArgument&) {
      throw InputError(path, 0, "corrupt model file: unknown loss '" + header.loss + "' with K = " + std::to_string(K));
    }
  }();
  const LabelMap labels(header.labels, std::max(K, 2));
  if (loss.outputs() != K || !labels.fits(loss))
    throw InputError(path, 0, "corrupt model file: K = " + std::to_string(K) + " and the label map " + labels.describe() +
                                  " do not fit the loss " + header.loss);
  LinearModel model(comm, static_cast<index_t>(header.dim), header.algorithm, loss, labels);
  const index_t first = K * model.partition_.begin(comm.rank());
  allocate_everywhere(comm, model.weights_, static_cast<std::size_t>(model.partition_.size(comm.rank()) * K));
  file.read(static_cast<MPI_Offset>(kHeaderBytes + 8 * first), model.weights_.data(),
            static_cast<index_t>(model.weights_.size()));
  file.close();
  if (weights_checksum(comm, model.weights_, first) != header.weights_sum)
    throw InputError(path, 0, "corrupt model file: weights checksum mismatch");
  return model;
}

void save_model(const Learner& learner, const LabelMap& labels, const std::string& path) {
  LinearModel(learner, labels).save(path);
}

}  // namespace adasketch
