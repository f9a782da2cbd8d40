#include "libsvm_serial_reference.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <new>
#include <string_view>

#include "data/file_kind.hpp"
#include "data/libsvm_line.hpp"

namespace adasketch::test {

namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

struct ReadFailure {
  index_t line;
  std::string reason;
};

// The serial reader's line source (gzgets over a plain or gzip file), as it was.
class Lines {
 public:
  explicit Lines(const std::string& path) : path_(path), file_(open(path)), buffer_(1 << 16) { gzbuffer(file_, 1 << 18); }
  ~Lines() {
    if (file_ != nullptr) gzclose(file_);
  }
  Lines(const Lines&) = delete;
  Lines& operator=(const Lines&) = delete;

  bool next_line(std::string_view& text) {
    std::size_t length = 0;
    for (;;) {
      if (buffer_.size() - length < 2) grow();
      const int room = static_cast<int>(std::min<std::size_t>(buffer_.size() - length, INT_MAX));
      char* chunk = buffer_.data() + length;
      const z_off_t before = gztell(file_);
      if (gzgets(file_, chunk, room) == nullptr) {
        check_stream();
        if (length == 0) return false;
        break;
      }
      const std::size_t got = std::strlen(chunk);
      if (static_cast<z_off_t>(got) != gztell(file_) - before) throw ReadFailure{line_ + 1, "NUL byte in the line (a binary file?)"};
      length += got;
      if (length > 0 && buffer_[length - 1] == '\n') break;
      if (got + 1 < static_cast<std::size_t>(room)) {
        check_stream();
        break;
      }
    }
    ++line_;
    if (length > 0 && buffer_[length - 1] == '\n') --length;
    if (length > 0 && buffer_[length - 1] == '\r') --length;
    std::size_t start = 0;
    if (line_ == 1 && std::string_view(buffer_.data(), length).starts_with(kUtf8Bom)) start = kUtf8Bom.size();
    text = std::string_view(buffer_.data() + start, length - start);
    return true;
  }

  void close() {
    const int rc = gzclose(file_);
    file_ = nullptr;
    if (rc != Z_OK) throw ReadFailure{line_ + 1, "error closing the compressed stream (zlib code " + std::to_string(rc) + ")"};
  }

  index_t line() const noexcept { return line_; }

 private:
  static gzFile open(const std::string& path) {
    if (const std::string why = detail::not_a_regular_file(path); !why.empty()) throw ReadFailure{0, "cannot read: " + why};
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) throw ReadFailure{0, std::string("cannot open: ") + std::strerror(errno)};
    return file;
  }
  void grow() {
    try {
      buffer_.resize(buffer_.size() * 2);
    } catch (const std::bad_alloc&) {
      throw ReadFailure{line_ + 1, "not enough memory for a line longer than " + std::to_string(buffer_.size()) + " bytes"};
    }
  }
  void check_stream() {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code == Z_OK) return;
    std::string reason = code == Z_ERRNO ? std::strerror(errno) : message;
    if (reason.starts_with(path_ + ": ")) reason.erase(0, path_.size() + 2);
    if (code == Z_BUF_ERROR) throw ReadFailure{line_ + 1, "compressed data ends early (truncated file): " + reason};
    if (code == Z_DATA_ERROR) throw ReadFailure{line_ + 1, "corrupt compressed data: " + reason};
    throw ReadFailure{line_ + 1, "cannot read: " + reason};
  }

  std::string path_;
  gzFile file_;
  std::vector<char> buffer_;
  index_t line_ = 0;
};

}  // namespace

SerialResult serial_libsvm(const std::string& path, index_t dim) {
  SerialResult result;
  DatasetInfo& info = result.info;
  try {
    Lines lines(path);
    std::string_view text;
    detail::LibsvmLine parsed;
    while (lines.next_line(text)) {
      SerialExample e;
      switch (detail::parse_libsvm_line(text, dim, parsed, e.indices, e.values)) {
        case detail::LineKind::blank: continue;
        case detail::LineKind::malformed: throw ReadFailure{lines.line(), parsed.error};
        case detail::LineKind::example: break;
      }
      e.label = parsed.label;
      e.position = lines.line();
      info.label_min = info.rows == 0 ? e.label : std::min(info.label_min, e.label);
      info.label_max = info.rows == 0 ? e.label : std::max(info.label_max, e.label);
      info.labels_integral = info.labels_integral && e.label == std::floor(e.label);
      info.max_index = std::max(info.max_index, parsed.last_index);
      info.nnz += parsed.features;
      ++info.rows;
      result.examples.push_back(std::move(e));
    }
    lines.close();
    if (info.rows == 0) throw ReadFailure{0, "no examples (empty file)"};
    if (dim == 0 && info.max_index == 0) throw ReadFailure{0, "no feature indices: give the dimension explicitly"};
  } catch (const ReadFailure& failure) {
    result.failed = true;
    result.line = failure.line;
    result.reason = failure.reason;
    result.examples.clear();
  }
  return result;
}

}  // namespace adasketch::test
