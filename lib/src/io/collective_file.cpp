#include "collective_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "../data/file_kind.hpp"
#include "adasketch/error.hpp"
#include "adasketch/number_text.hpp"

namespace adasketch::detail {

namespace {

constexpr std::int64_t kChunk = std::int64_t{1} << 26;  // doubles per MPI-IO call, far below INT_MAX

std::string mpi_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) return "MPI error " + number_text(rc);
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace

std::uint64_t splitmix64(std::uint64_t z) noexcept {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(const unsigned char* p, std::size_t n) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::uint64_t checksum_part(std::span<const std::uint64_t> words, std::uint64_t first) noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < words.size(); ++i) sum += splitmix64(words[i] ^ splitmix64(first + i));
  return sum;
}

std::uint64_t checksum_part(std::span<const double> values, std::uint64_t first) noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < values.size(); ++i)
    sum += splitmix64(std::bit_cast<std::uint64_t>(values[i]) ^ splitmix64(first + i));
  return sum;
}

std::uint64_t checksum_sum(const Communicator& comm, std::uint64_t part) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &part, 1, MPI_UINT64_T, MPI_SUM, comm.get()), "MPI_Allreduce(sum)");
  return part;
}

void put_name(std::span<unsigned char> bytes, std::size_t at, std::size_t width, const std::string& name) noexcept {
  std::fill_n(bytes.data() + at, width, static_cast<unsigned char>(0));
  std::memcpy(bytes.data() + at, name.data(), std::min(name.size(), width - 1));
}

void require_format_version(const std::string& path, const char* kind, std::uint32_t version) {
  if (version == kFileFormatVersion) return;
  const char* why = version < kFileFormatVersion ? "the file was written by an older build"
                                                 : "the file was written by a newer build, or is corrupt";
  throw InputError(path, 0, std::string(kind) + " format version " + number_text(version) +
                                " is not supported: this build reads version " + number_text(kFileFormatVersion) +
                                " only (" + why + ")");
}

std::string get_name(std::span<const unsigned char> bytes, std::size_t at, std::size_t width) {
  const unsigned char* p = bytes.data() + at;
  const std::size_t n = static_cast<std::size_t>(std::find(p, p + width, 0) - p);
  if (n == 0 || n == width || std::any_of(p + n, p + width, [](unsigned char c) { return c != 0; }) ||
      std::any_of(p, p + n, [](unsigned char c) { return c < 0x21 || c > 0x7e; }))
    return {};
  return std::string(reinterpret_cast<const char*>(p), n);
}

CollectiveFile::CollectiveFile(const Communicator& comm, std::string path, int mode, bool reading, std::string what)
    : comm_(comm), path_(std::move(path)), what_(std::move(what)), reading_(reading) {
  if (reading_) {  // before MPI_File_open: a pipe blocks it, a directory fails only in the reads
    const std::string why = not_a_regular_file(path_);
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

CollectiveFile::~CollectiveFile() {
  if (file_ != MPI_FILE_NULL) MPI_File_close(&file_);
}

void CollectiveFile::check(int rc, const char* call) const {
  if (const int worst = agreed(rc); worst != MPI_SUCCESS) fail(call, worst);
}

MPI_Offset CollectiveFile::size() const {
  MPI_Offset bytes = 0;
  check(MPI_File_get_size(file_, &bytes), "MPI_File_get_size");
  return bytes;
}

void CollectiveFile::set_size(MPI_Offset bytes) const { check(MPI_File_set_size(file_, bytes), "MPI_File_set_size"); }

void CollectiveFile::sync() const { check(MPI_File_sync(file_), "MPI_File_sync"); }

void CollectiveFile::close() {
  const int rc = MPI_File_close(&file_);
  file_ = MPI_FILE_NULL;
  check(rc, "MPI_File_close");
}

void CollectiveFile::read_bytes(MPI_Offset offset, unsigned char* data, std::size_t count) const {
  if (count > static_cast<std::size_t>(INT_MAX)) fail("read of " + number_text(count) + " bytes", MPI_ERR_COUNT);
  MPI_Status status;
  check(MPI_File_read_at_all(file_, offset, data, static_cast<int>(count), MPI_BYTE, &status), "MPI_File_read_at_all");
  int done = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &done), "MPI_Get_count");
  if (comm_.allreduce_max(static_cast<std::int64_t>(done != static_cast<int>(count))) != 0)
    fail("MPI_File_read_at_all: short read", MPI_ERR_IO);
}

void CollectiveFile::write_bytes_root(MPI_Offset offset, const unsigned char* data, std::size_t count) const {
  if (count > static_cast<std::size_t>(INT_MAX)) fail("write of " + number_text(count) + " bytes", MPI_ERR_COUNT);
  const int n = comm_.rank() == 0 ? static_cast<int>(count) : 0;
  MPI_Status status;
  check(MPI_File_write_at_all(file_, offset, data, n, MPI_BYTE, &status), "MPI_File_write_at_all");
}

void CollectiveFile::read(MPI_Offset offset, double* data, std::int64_t count) const {
  chunked(offset, count, "MPI_File_read_at_all", [&](MPI_Offset where, std::int64_t at, int n, MPI_Status* status) {
    return MPI_File_read_at_all(file_, where, data + at, n, MPI_DOUBLE, status);
  });
}

void CollectiveFile::write(MPI_Offset offset, const double* data, std::int64_t count) const {
  chunked(offset, count, "MPI_File_write_at_all", [&](MPI_Offset where, std::int64_t at, int n, MPI_Status* status) {
    return MPI_File_write_at_all(file_, where, data + at, n, MPI_DOUBLE, status);
  });
}

// Splits a transfer into chunks of at most kChunk doubles; every rank makes the same number of
// calls (the collective ones need it), with n = 0 once its own data is done.
template <class Call>
void CollectiveFile::chunked(MPI_Offset offset, std::int64_t count, const char* name, Call call) const {
  const std::int64_t chunks = comm_.allreduce_max((count + kChunk - 1) / kChunk);
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t at = std::min(c * kChunk, count), n = std::min(kChunk, count - at);
    MPI_Status status;
    // [the call's error code, short transfer]: agreed in one Allreduce.
    int outcome[2] = {call(offset + static_cast<MPI_Offset>(8 * at), at, static_cast<int>(n), &status), 0};
    int done = 0;
    if (outcome[0] == MPI_SUCCESS) outcome[0] = MPI_Get_count(&status, MPI_DOUBLE, &done);
    outcome[1] = outcome[0] == MPI_SUCCESS && done != n ? 1 : 0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, outcome, 2, MPI_INT, MPI_MAX, comm_.get()), "MPI_Allreduce(max)");
    if (outcome[0] != MPI_SUCCESS) fail(name, outcome[0]);
    if (outcome[1] != 0) fail(std::string(name) + ": short transfer", MPI_ERR_IO);
  }
}

int CollectiveFile::agreed(int rc) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm_.get()), "MPI_Allreduce(max)");
  return rc;
}

void CollectiveFile::fail(const std::string& what, int rc) const {
  const std::string message = what + " (" + mpi_text(rc) + ")";
  if (reading_) throw InputError(path_, 0, message);
  throw Error(path_ + ": cannot write " + what_ + ": " + message);
}

void replace_file(const Communicator& comm, const std::string& tmp, const std::string& path, const std::string& what) {
  std::array<char, 256> failure{};
  if (comm.rank() == 0) {
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      std::snprintf(failure.data(), failure.size(), "renaming %s failed (%s)", tmp.c_str(), std::strerror(errno));
    } else {
      // The rename is durable once the directory entry is on disk (POSIX fsync of the directory).
      const std::filesystem::path parent = std::filesystem::path(path).parent_path();
      const int dir = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY);
      if (dir >= 0) {
        if (::fsync(dir) != 0 && errno != EINVAL)
          std::snprintf(failure.data(), failure.size(), "fsync of the directory failed (%s)", std::strerror(errno));
        ::close(dir);
      }
    }
  }
  comm.broadcast(failure, 0);
  if (failure[0] != '\0') throw Error(path + ": cannot write " + what + ": " + failure.data());
}

}  // namespace adasketch::detail
