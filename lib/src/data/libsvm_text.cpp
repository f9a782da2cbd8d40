#include "libsvm_text.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "adasketch/error.hpp"
#include "gzip_text.hpp"
#include "libsvm_rounds.hpp"
#include "plain_text.hpp"

namespace adasketch::detail {

namespace {

// Collective. If `failure` is set on any rank, every rank throws the same InputError: the lowest
// failing rank's reason, which names that rank unless it is rank 0.
void agree_open(const Communicator& comm, const std::string& path, const std::string& failure) {
  const index_t first = comm.allreduce_min(static_cast<index_t>(failure.empty() ? comm.size() : comm.rank()));
  if (first == comm.size()) return;
  const std::string reason = broadcast_text(comm, failure, static_cast<int>(first));
  throw InputError(path, 0, first == 0 ? reason : "on rank " + number_text(first) + ", " + reason);
}

// The file's size and whether it starts with the gzip magic bytes.
std::array<index_t, 2> size_and_kind(int fd, std::string& failure) {
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    failure = std::string("cannot read: ") + std::strerror(errno);
    return {};
  }
  unsigned char magic[2] = {0, 0};
  const ssize_t got = status.st_size >= 2 ? ::pread(fd, magic, 2, 0) : 0;
  if (got < 0) failure = std::string("cannot read: ") + std::strerror(errno);
  return {static_cast<index_t>(status.st_size), got == 2 && magic[0] == 0x1f && magic[1] == 0x8b ? 1 : 0};
}

}  // namespace

std::unique_ptr<TextSource> open_text(const Communicator& comm, const std::string& path, index_t chunk) {
  std::string failure;
  if (path == kStandardInput) {  // read like a gzip stream: zlib passes plain text through as it is
    gzFile stream = nullptr;
    if (comm.rank() == 0) {
      const int fd = ::dup(STDIN_FILENO);
      stream = fd < 0 ? nullptr : gzdopen(fd, "rb");
      if (stream == nullptr) {
        failure = std::string("cannot read standard input: ") + std::strerror(errno);
        if (fd >= 0) ::close(fd);
      } else {
        gzbuffer(stream, 1 << 18);
      }
    }
    agree_open(comm, path, failure);
    return gzip_text(comm, stream, path, chunk);
  }
  FileDescriptor file;
  std::array<index_t, 2> header{};  // size, gzip
  if (comm.rank() == 0) {
    file = open_regular_file(path, failure);
    if (failure.empty()) header = size_and_kind(file.get(), failure);
  }
  agree_open(comm, path, failure);
  comm.broadcast(header, 0);
  if (header[1] != 0) {
    gzFile stream = nullptr;
    if (comm.rank() == 0) {
      file = FileDescriptor();
      stream = gzopen(path.c_str(), "rb");  // by name: zlib's messages start with it, and are trimmed
      if (stream == nullptr) failure = std::string("cannot open: ") + std::strerror(errno);
      else gzbuffer(stream, 1 << 18);
    }
    agree_open(comm, path, failure);  // only rank 0 can fail here
    return gzip_text(comm, stream, path, chunk);
  }
  if (comm.rank() != 0) file = open_regular_file(path, failure);
  agree_open(comm, path, failure);
  return plain_text(std::move(file), header[0], chunk, comm.rank(), comm.size());
}

}  // namespace adasketch::detail
