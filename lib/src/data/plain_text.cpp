#include "plain_text.hpp"

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <vector>

#include "file_kind.hpp"

#include "adasketch/number_text.hpp"

namespace adasketch::detail {

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

FileDescriptor open_regular_file(const std::string& path, std::string& failure) {
  if (const std::string why = not_a_regular_file(path); !why.empty()) {
    failure = "cannot read: " + why;
    return {};
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) failure = std::string("cannot open: ") + std::strerror(errno);
  return FileDescriptor(fd);
}

namespace {

index_t ceil_div(index_t a, index_t b) { return a == 0 ? 0 : (a - 1) / b + 1; }

// A failed read: the block ends with a failure at no line.
struct IoError {
  std::string reason;
};

class PlainText final : public TextSource {
 public:
  PlainText(FileDescriptor file, index_t size, index_t chunk, int rank, int ranks)
      : file_(std::move(file)), size_(size), chunk_(chunk), rank_(rank), ranks_(ranks),
        chunks_(ceil_div(size, chunk)), rounds_(ceil_div(chunks_, ranks)) {}

  bool next(LineBlock& block) override {
    if (round_ >= rounds_) return false;
    const index_t index = round_++ * ranks_ + rank_;
    block = LineBlock{};
    block.file_start = index == 0;
    if (index < chunks_) read_chunk(index * chunk_, std::min(size_, (index + 1) * chunk_), block);
    return true;  // (the last round may have fewer chunks than ranks: an empty block)
  }
  void skip() override { ++round_; }
  void rewind() override { round_ = 0; }

 private:
  // The lines that start in [begin, end), read to the end of the last one.
  void read_chunk(index_t begin, index_t end, LineBlock& block) {
    length_ = 0;
    std::size_t first = 0;  // where the first line starts in buffer_
    try {
      const index_t from = begin == 0 ? 0 : begin - 1;  // the byte before begin: does a line start there?
      append(from, end - from);
      if (begin > 0) {
        // A '\n' at end − 1 would start a line at end, in the next chunk.
        const void* newline = std::memchr(buffer_.data(), '\n', static_cast<std::size_t>(end - 1 - from));
        if (newline == nullptr) return;  // inside a line that started before: no line starts here
        first = static_cast<std::size_t>(static_cast<const char*>(newline) - buffer_.data()) + 1;
      }
    } catch (const IoError& e) {
      block.failure = {TextFailure::Where::no_line, e.reason};
      return;
    } catch (const std::bad_alloc&) {
      block.failure = {TextFailure::Where::no_line, "not enough memory to read " + number_text(end - begin) + " bytes"};
      return;
    }
    std::size_t stop = length_;
    try {
      index_t at = end, step = kFirstStep;
      while (buffer_[length_ - 1] != '\n' && at < size_) {  // on to the end of the last line
        const index_t count = std::min(step, size_ - at);
        const std::size_t old = length_;
        append(at, count);
        at += count;
        step = std::min(2 * step, kLargestStep);
        if (const void* newline = std::memchr(buffer_.data() + old, '\n', static_cast<std::size_t>(count))) {
          stop = static_cast<std::size_t>(static_cast<const char*>(newline) - buffer_.data()) + 1;
          break;
        }
        stop = length_;
      }
    } catch (const IoError& e) {
      block.failure = {TextFailure::Where::no_line, e.reason};
      return;
    } catch (const std::bad_alloc&) {
      // The lines before the long one are text; the long one is the failure's line.
      const std::string_view read(buffer_.data() + first, length_ - first);
      const std::size_t last = read.rfind('\n') == std::string_view::npos ? 0 : read.rfind('\n') + 1;
      block.text = read.substr(0, last);
      block.failure = {TextFailure::Where::after_block,
                       "not enough memory for a line longer than " + number_text(read.size() - last) + " bytes"};
      return;
    }
    block.text = std::string_view(buffer_.data() + first, stop - first);
  }

  // Reads bytes [offset, offset + count) of the file to the end of buffer_.
  void append(index_t offset, index_t count) {
    const std::size_t need = length_ + static_cast<std::size_t>(count);
    if (need > buffer_.size()) buffer_.resize(std::max(need, 2 * buffer_.size()));
    char* to = buffer_.data() + length_;
    while (count > 0) {
      const ssize_t got = ::pread(file_.get(), to, static_cast<std::size_t>(std::min<index_t>(count, index_t{1} << 30)),
                                  static_cast<off_t>(offset));
      if (got < 0) {
        if (errno == EINTR) continue;
        throw IoError{std::string("cannot read: ") + std::strerror(errno)};
      }
      if (got == 0)
        throw IoError{"cannot read: the file ends at byte " + number_text(offset) + ", not " + number_text(size_) +
                      " as when it was opened (it changed)"};
      to += got;
      offset += got;
      count -= got;
      length_ += static_cast<std::size_t>(got);
    }
  }

  static constexpr index_t kFirstStep = index_t{1} << 12, kLargestStep = index_t{1} << 24;
  FileDescriptor file_;
  index_t size_, chunk_;
  int rank_, ranks_;
  index_t chunks_, rounds_;
  index_t round_ = 0;
  std::vector<char> buffer_;
  std::size_t length_ = 0;  // bytes of buffer_ in use
};

}  // namespace

std::unique_ptr<TextSource> plain_text(FileDescriptor file, index_t size, index_t chunk, int rank, int ranks) {
  return std::make_unique<PlainText>(std::move(file), size, chunk, rank, ranks);
}

}  // namespace adasketch::detail
