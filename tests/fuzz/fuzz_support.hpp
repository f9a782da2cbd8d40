#pragma once
// Shared by the fuzz targets (tests/fuzz/): invariant checks that abort (a crash for libFuzzer and a
// failure for the replay test), MPI on MPI_COMM_SELF, a scratch file per process, and the file
// formats' checksums (tests/format_checksums.hpp) to reseal a mutated file.
#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "../format_checksums.hpp"

namespace adasketch::fuzz {

using test::fnv1a;
using test::word_checksum;

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

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace adasketch::fuzz
