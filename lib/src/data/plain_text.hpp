#pragma once
// Plain LIBSVM text: every rank reads its own chunks of the file (libsvm_text.hpp) with pread.
//
// pread rather than MPI-IO: each rank reads its byte ranges on its own, so a failed read is one more
// failure the round agrees on (like a parse error) instead of a collective call that some ranks never
// reach, and closing the file is not collective; the ranges are large and contiguous (what MPI-IO's
// collective buffering would make of them anyway); and a rank reads on past its chunk to the end of
// its last line, a length it learns only while reading.
#include <memory>
#include <string>

#include "libsvm_text.hpp"

namespace adasketch::detail {

/// An open file descriptor, closed on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  int get() const noexcept { return fd_; }
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/// Opens a regular file for reading; on failure returns no descriptor and sets `failure` (e.g.
/// "cannot open: No such file or directory", "cannot read: it is a directory").
FileDescriptor open_regular_file(const std::string& path, std::string& failure);

/// The file's `size` bytes (as rank 0 saw them when it opened the file) in chunks of `chunk` bytes.
std::unique_ptr<TextSource> plain_text(FileDescriptor file, index_t size, index_t chunk, int rank, int ranks);

}  // namespace adasketch::detail
