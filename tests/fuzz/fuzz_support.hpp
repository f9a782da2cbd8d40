#pragma once
// Shared by the fuzz targets (tests/fuzz/): invariant checks that abort (a crash for libFuzzer and a
// failure for the replay test), MPI on MPI_COMM_SELF, a scratch file per process, and the checksums
// of the model and checkpoint formats written out again from the README (not the library's code),
// so that the targets can reseal a mutated file and reach the checks behind its checksums.
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace adasketch::fuzz {

/// Aborts with a message when an invariant of the code under test fails.
inline void require(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

/// MPI_Init once for the whole process (finalized at exit); the targets use MPI_COMM_SELF.
inline void init_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return;
  require(MPI_Init(nullptr, nullptr) == MPI_SUCCESS, "MPI_Init");
  std::atexit([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  });
}

/// The start of each file target's run: false for an input to skip (empty, or over 1 MB), else
/// MPI is up (on the first input).
inline bool start_input(std::size_t size) {
  if (size == 0 || size > (std::size_t{1} << 20)) return false;
  init_mpi();
  return true;
}

/// A per-process scratch path in $TMPDIR (default /tmp): <dir>/adasketch-fuzz-<pid>-<name>.
inline std::string scratch_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/adasketch-fuzz-" + std::to_string(getpid()) + "-" + name;
}

inline void write_file(const std::string& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  require(static_cast<bool>(out), "writing the scratch file");
}

/// splitmix64, as the README's model and checkpoint checksums use it.
inline std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// 64-bit FNV-1a of bytes [begin, end) of `file`.
inline std::uint64_t fnv1a(const unsigned char* file, std::size_t begin, std::size_t end) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = begin; i < end; ++i) h = (h ^ file[i]) * 0x100000001b3ull;
  return h;
}

/// Σ_e splitmix64(word_e XOR splitmix64(e)) mod 2⁶⁴ over the `words` little-endian 8-byte words at `at`.
inline std::uint64_t word_checksum(const unsigned char* at, std::size_t words) {
  std::uint64_t sum = 0;
  for (std::size_t e = 0; e < words; ++e) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, at + 8 * e, 8);
    sum += splitmix64(bits ^ splitmix64(e));
  }
  return sum;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace adasketch::fuzz
