#include "adasketch/data/libsvm_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <new>
#include <span>
#include <string_view>
#include <vector>

#include "adasketch/error.hpp"
#include "file_kind.hpp"
#include "libsvm_line.hpp"

namespace adasketch {

namespace {

// A UTF-8 byte order mark, as some editors write at the start of a text file: skipped.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// A read or parse failure at a 1-based line (0: none); becomes an InputError, on rank 0's scan only
// after it has been broadcast so that every rank throws the same message.
struct ReadFailure {
  index_t line;
  std::string reason;
};

// What rank 0 broadcasts after its scan: the DatasetInfo or the failure (message sent separately).
struct ScanHeader {
  std::int64_t failed = 0, line = 0, message_size = 0;
  std::int64_t rows = 0, max_index = 0, nnz = 0, labels_integral = 1;
  double label_min = 0.0, label_max = 0.0;
};

}  // namespace

namespace detail {

/// The open file (plain or gzip, through zlib) and the parsing scratch of one example.
class LibsvmLines {
 public:
  LibsvmLines(const std::string& path, const LibsvmLineFilter& filter)
      : path_(path), file_(open(path)), filter_(filter), buffer_(1 << 16) {
    gzbuffer(file_, 1 << 18);
  }
  ~LibsvmLines() {
    if (file_ != nullptr) gzclose(file_);
  }
  LibsvmLines(const LibsvmLines&) = delete;
  LibsvmLines& operator=(const LibsvmLines&) = delete;

  /// Next line without "\n" or "\r\n"; false at the end of the data.
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
      // gzgets copies NUL bytes too; strlen stops at the first one.
      if (static_cast<z_off_t>(got) != gztell(file_) - before)
        throw ReadFailure{line_ + 1, "NUL byte in the line (a binary file?)"};
      length += got;
      if (length > 0 && buffer_[length - 1] == '\n') break;
      if (got + 1 < static_cast<std::size_t>(room)) {  // the data ends without a newline
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

  /// Parses the next example line with the filter into `parsed()` and the kept features; false at
  /// the end of the data.
  bool next_example(std::vector<index_t>& indices, std::vector<double>& values) {
    std::string_view text;
    while (next_line(text)) {
      switch (parse_libsvm_line(text, filter_, parsed_, indices, values)) {
        case LineKind::example: return true;
        case LineKind::blank: continue;
        case LineKind::malformed: throw ReadFailure{line_, parsed_.error};
      }
    }
    return false;
  }

  /// Moves past up to n example lines without parsing them (the file passed the validating scan:
  /// a line is an example unless it is blank or a comment); returns how many there were.
  index_t skip_examples(index_t n) {
    index_t done = 0;
    std::string_view text;
    while (done < n && next_line(text)) {
      const std::size_t first = text.find_first_not_of(" \t");
      if (first != std::string_view::npos && text[first] != '#') ++done;
    }
    return done;
  }

  void rewind() {
    if (gzrewind(file_) != 0) throw ReadFailure{0, "cannot rewind the file"};
    line_ = 0;
  }

  /// Closes the file, reporting a failure of the final flush or check.
  void close() {
    const int rc = gzclose(file_);
    file_ = nullptr;
    if (rc != Z_OK) throw ReadFailure{line_ + 1, "error closing the compressed stream (zlib code " + std::to_string(rc) + ")"};
  }

  index_t line() const noexcept { return line_; }
  static gzFile open(const std::string& path) {
    if (const std::string why = not_a_regular_file(path); !why.empty()) throw ReadFailure{0, "cannot read: " + why};
    gzFile file = gzopen(path.c_str(), "rb");
    if (file == nullptr) throw ReadFailure{0, std::string("cannot open: ") + std::strerror(errno)};
    return file;
  }
  const LibsvmLine& parsed() const noexcept { return parsed_; }

 private:
  // Doubles the line buffer; a line too long for the memory is an error naming it.
  void grow() {
    try {
      buffer_.resize(buffer_.size() * 2);
    } catch (const std::bad_alloc&) {
      throw ReadFailure{line_ + 1, "not enough memory for a line longer than " + std::to_string(buffer_.size()) + " bytes"};
    }
  }

  // At the end of the data: a truncated or corrupt gzip stream is an error, not a short file.
  void check_stream() {
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code == Z_OK) return;
    std::string reason = code == Z_ERRNO ? std::strerror(errno) : message;
    if (reason.starts_with(path_ + ": ")) reason.erase(0, path_.size() + 2);  // zlib prefixes the path
    if (code == Z_BUF_ERROR) throw ReadFailure{line_ + 1, "compressed data ends early (truncated file): " + reason};
    if (code == Z_DATA_ERROR) throw ReadFailure{line_ + 1, "corrupt compressed data: " + reason};
    throw ReadFailure{line_ + 1, "cannot read: " + reason};
  }

  std::string path_;
  gzFile file_;
  LibsvmLineFilter filter_;
  std::vector<char> buffer_;
  index_t line_ = 0;
  LibsvmLine parsed_;
};

}  // namespace detail

class LibsvmReader::LineSource : public detail::LibsvmLines {
  using LibsvmLines::LibsvmLines;
};

namespace {

// Rank 0's validating pass over the whole file.
DatasetInfo scan(const std::string& path, index_t dim) {
  detail::LibsvmLineFilter filter;
  filter.max_index = dim;
  detail::LibsvmLines lines(path, filter);
  DatasetInfo info;
  std::vector<index_t> no_indices;
  std::vector<double> no_values;
  while (lines.next_example(no_indices, no_values)) {
    const double label = lines.parsed().label;
    info.label_min = info.rows == 0 ? label : std::min(info.label_min, label);
    info.label_max = info.rows == 0 ? label : std::max(info.label_max, label);
    info.labels_integral = info.labels_integral && label == std::floor(label);
    info.max_index = std::max(info.max_index, lines.parsed().last_index);
    info.nnz += lines.parsed().features;
    ++info.rows;
  }
  lines.close();
  if (info.rows == 0) throw ReadFailure{0, "no examples (empty file)"};
  if (dim == 0 && info.max_index == 0) throw ReadFailure{0, "no feature indices: give the dimension explicitly"};
  return info;
}

// Rank 0 scans; then every rank returns the same DatasetInfo or throws the same InputError.
DatasetInfo shared_scan(const Communicator& comm, const std::string& path, index_t dim) {
  if (dim < 0) throw InvalidArgument("LibsvmReader: the dimension must be >= 0 (got " + std::to_string(dim) + ")");
  ScanHeader header;
  std::string message;
  if (comm.rank() == 0) {
    try {
      const DatasetInfo info = scan(path, dim);
      header.rows = info.rows;
      header.max_index = info.max_index;
      header.nnz = info.nnz;
      header.labels_integral = info.labels_integral ? 1 : 0;
      header.label_min = info.label_min;
      header.label_max = info.label_max;
    } catch (const ReadFailure& failure) {
      header.failed = 1;
      header.line = failure.line;
      message = failure.reason;
    } catch (const std::exception& e) {  // e.g. bad_alloc: still release the other ranks
      header.failed = 1;
      message = e.what();
    }
    header.message_size = static_cast<std::int64_t>(message.size());
  }
  std::array<char, sizeof(ScanHeader)> bytes;
  std::memcpy(bytes.data(), &header, sizeof header);
  comm.broadcast(bytes, 0);
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.failed != 0) {
    message.resize(static_cast<std::size_t>(header.message_size));
    comm.broadcast(std::span<char>(message.data(), message.size()), 0);
    throw InputError(path, header.line, message);
  }
  DatasetInfo info;
  info.rows = header.rows;
  info.max_index = header.max_index;
  info.nnz = header.nnz;
  info.labels_integral = header.labels_integral != 0;
  info.label_min = header.label_min;
  info.label_max = header.label_max;
  return info;
}

}  // namespace

LibsvmReader::LibsvmReader(const Communicator& comm, const std::string& path, const LibsvmOptions& options)
    : comm_(comm),
      path_(path),
      info_(shared_scan(comm, path, options.dim)),
      partition_(options.dim > 0 ? options.dim : info_.max_index, comm.size()) {
  detail::LibsvmLineFilter filter;
  filter.keep_begin = partition_.begin(comm_.rank()) + 1;
  filter.keep_end = partition_.end(comm_.rank()) + 1;
  filter.max_index = partition_.dim();
  filter.validated = true;
  std::string failure;
  try {
    lines_ = std::make_unique<LineSource>(path_, filter);
  } catch (const ReadFailure& f) {
    failure = "on rank " + std::to_string(comm_.rank()) + ", " + f.reason;
  }
  // Rank 0 could read the file; make sure every rank can before anyone streams.
  if (comm_.allreduce_max(static_cast<index_t>(failure.empty() ? 0 : 1)) != 0)
    throw InputError(path_, 0, failure.empty() ? "cannot open the file on another rank" : failure);
}

LibsvmReader::~LibsvmReader() = default;

bool LibsvmReader::next(Example& out) {
  try {
    if (!lines_->next_example(out.indices, out.values)) return false;
  } catch (const ReadFailure& failure) {  // only if the file changed after the scan
    throw InputError(path_, failure.line, failure.reason);
  }
  out.label = lines_->parsed().label;
  out.dense = false;
  out.position = lines_->line();
  return true;
}

index_t LibsvmReader::skip(index_t n) {
  ADASKETCH_REQUIRE(n >= 0, "n = " + std::to_string(n));
  try {
    return lines_->skip_examples(n);
  } catch (const ReadFailure& failure) {
    throw InputError(path_, failure.line, failure.reason);
  }
}

void LibsvmReader::rewind() {
  try {
    lines_->rewind();
  } catch (const ReadFailure& failure) {
    throw InputError(path_, failure.line, failure.reason);
  }
}

}  // namespace adasketch
