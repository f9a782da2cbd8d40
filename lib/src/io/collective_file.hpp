#pragma once
// Shared by the model and checkpoint files (internal): an MPI-IO file whose every failure is
// agreed by all ranks, the order-free checksum of distributed arrays, FNV-1a for headers, and the
// atomic replacement of a file by its completed temporary copy.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "adasketch/comm/communicator.hpp"

namespace adasketch::detail {

/// The one format version of model and checkpoint files (docs/formats.md). Files of another version
/// are refused: older ones were written before the current layout, newer ones by a newer build.
inline constexpr std::uint32_t kFileFormatVersion = 5;
/// Throws InputError(path, 0, ...) naming `kind` ("model", "checkpoint") and `version` unless it is
/// kFileFormatVersion.
void require_format_version(const std::string& path, const char* kind, std::uint32_t version);

std::uint64_t splitmix64(std::uint64_t z) noexcept;
/// 64-bit FNV-1a of n bytes.
std::uint64_t fnv1a(const unsigned char* p, std::size_t n) noexcept;
/// Local part of the order-free checksum Σ_e splitmix64(word_e XOR splitmix64(e)) mod 2⁶⁴ of an
/// array whose words[i] has the global index first + i (a sum, so it does not depend on how the
/// array is split over ranks: add the parts with checksum_sum).
std::uint64_t checksum_part(std::span<const std::uint64_t> words, std::uint64_t first) noexcept;
std::uint64_t checksum_part(std::span<const double> values, std::uint64_t first) noexcept;
/// Collective: the sum of the ranks' parts.
std::uint64_t checksum_sum(const Communicator& comm, std::uint64_t part);

/// Little-endian fields of a byte header (the formats assume a little-endian host).
template <class T>
void put_at(std::span<unsigned char> bytes, std::size_t at, T v) noexcept {
  std::memcpy(bytes.data() + at, &v, sizeof v);
}
template <class T>
T get_at(std::span<const unsigned char> bytes, std::size_t at) noexcept {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}
/// Writes `name` NUL-padded into `width` bytes at `at` (name.size() < width).
void put_name(std::span<unsigned char> bytes, std::size_t at, std::size_t width, const std::string& name) noexcept;
/// A NUL-padded name of `width` bytes; empty unless it is 1..width−1 printable ASCII characters
/// without blanks, followed by NULs only.
std::string get_name(std::span<const unsigned char> bytes, std::size_t at, std::size_t width);

/// An MPI-IO file on comm whose failures are agreed: each call's return code is reduced (max) over
/// the ranks, so every rank throws the same error together and the destructor's collective close
/// is safe. Errors: InputError(path, 0, ...) when reading, Error("<path>: cannot write <what>: ...")
/// when writing.
class CollectiveFile {
 public:
  /// Collective. `what` names the file kind in write errors ("the model file").
  CollectiveFile(const Communicator& comm, std::string path, int mode, bool reading, std::string what);
  ~CollectiveFile();
  CollectiveFile(const CollectiveFile&) = delete;
  CollectiveFile& operator=(const CollectiveFile&) = delete;

  MPI_File get() const noexcept { return file_; }
  /// Collective: throws (on every rank) unless every rank's rc is MPI_SUCCESS.
  void check(int rc, const char* call) const;
  /// Collective: the file size.
  MPI_Offset size() const;
  /// Collective: sets the size (drops an older, longer file's tail).
  void set_size(MPI_Offset bytes) const;
  /// Collective: MPI_File_sync, the data on stable storage (fsync).
  void sync() const;
  void close();
  /// Collective: every rank reads `count` bytes at `offset` (count ≤ INT_MAX).
  void read_bytes(MPI_Offset offset, unsigned char* data, std::size_t count) const;
  /// Collective: rank 0 writes `count` bytes at `offset`; the others pass nothing.
  void write_bytes_root(MPI_Offset offset, const unsigned char* data, std::size_t count) const;
  /// Collective: reads `count` doubles at byte `offset` into data (count may differ by rank).
  void read(MPI_Offset offset, double* data, std::int64_t count) const;
  /// Collective: writes `count` doubles from data at byte `offset`.
  void write(MPI_Offset offset, const double* data, std::int64_t count) const;
  /// Throws the error for this file (InputError when reading, Error when writing).
  [[noreturn]] void fail(const std::string& what, int rc) const;

 private:
  template <class Call>
  void chunked(MPI_Offset offset, std::int64_t count, const char* name, Call call) const;
  int agreed(int rc) const;

  Communicator comm_;
  std::string path_, what_;
  bool reading_;
  MPI_File file_ = MPI_FILE_NULL;
};

/// Collective, after every rank closed `tmp`: rank 0 renames tmp to path and syncs the directory
/// (so the rename survives a crash); a failure throws Error("<path>: cannot write <what>: ...") on
/// every rank.
void replace_file(const Communicator& comm, const std::string& tmp, const std::string& path, const std::string& what);

}  // namespace adasketch::detail
