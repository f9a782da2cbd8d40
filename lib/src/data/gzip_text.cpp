#include "gzip_text.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <new>
#include <span>
#include <string_view>
#include <vector>

#include "adasketch/number_text.hpp"

namespace adasketch::detail {

namespace {

// Decompressed bytes asked of zlib at a time: below twice its buffer (gzbuffer, 256 KiB), so zlib
// decompresses through its own buffer whatever the round size, and a broken stream fails after the
// same bytes at any rank count (and as the serial reader's gzgets saw it).
constexpr unsigned kRead = 1u << 18;

// Why the stream stopped: empty at its clean end.
std::string stream_failure(gzFile file, const std::string& path) {
  int code = Z_OK;
  const char* message = gzerror(file, &code);
  if (code == Z_OK) return {};
  std::string reason = code == Z_ERRNO ? std::strerror(errno) : message;
  if (reason.starts_with(path + ": ")) reason.erase(0, path.size() + 2);  // zlib prefixes the path
  if (code == Z_BUF_ERROR) return "compressed data ends early (truncated file): " + reason;
  if (code == Z_DATA_ERROR) return "corrupt compressed data: " + reason;
  return "cannot read: " + reason;
}

class GzipText final : public TextSource {
 public:
  GzipText(const Communicator& comm, gzFile file, const std::string& path, index_t chunk)
      : comm_(comm), file_(file), path_(path), chunk_(chunk), cuts_(static_cast<std::size_t>(comm.size()) + 1) {}
  ~GzipText() override {
    if (file_ != nullptr) gzclose(file_);
  }
  GzipText(const GzipText&) = delete;
  GzipText& operator=(const GzipText&) = delete;

  bool next(LineBlock& block) override {
    block = LineBlock{};
    const auto ranks = static_cast<std::size_t>(comm_.size());
    std::vector<index_t> sizes(2 * ranks);  // per rank: its block's bytes, 1 if there is a round
    std::array<index_t, 2> mine{};
    bool failing = false;
    if (comm_.rank() == 0 && cut_round(failing)) {
      for (std::size_t r = 0; r < ranks; ++r) {
        sizes[2 * r] = cuts_[r + 1] - cuts_[r];
        sizes[2 * r + 1] = 1;
      }
    }
    comm_.scatter(sizes, mine, 0);
    if (mine[1] == 0) return false;
    const std::size_t size = static_cast<std::size_t>(mine[0]);
    if (comm_.rank() == 0) {
      comm_.scatterv(std::span<const char>(buffer_.data(), static_cast<std::size_t>(fill_)), cuts_, {}, 0);
      if (failing) block.failure = {TextFailure::Where::after_round, failure_};
      if (ranks > 1) read_ahead();  // while the others parse
    } else {
      if (buffer_.size() < size) buffer_.resize(size);
      comm_.scatterv({}, {}, std::span<char>(buffer_.data(), size), 0);
    }
    block.text = std::string_view(buffer_.data(), size);  // (rank 0's is at 0 too, and empty if P > 1)
    block.file_start = round_ == 0 && comm_.rank() == first_parser();
    ++round_;
    return true;
  }

  void skip() override {
    bool failing = false;
    if (comm_.rank() == 0) (void)cut_round(failing);
    ++round_;
  }

  void rewind() override {
    round_ = 0;
    if (comm_.rank() != 0) return;
    begin_ = fill_ = 0;
    ended_ = reported_ = false;
    failure_.clear();
    if (gzrewind(file_) != 0) fail("cannot rewind the file");
  }

 private:
  // Rank 0 parses only when it is alone; else it decompresses the next round while the others parse.
  int first_parser() const noexcept { return comm_.size() == 1 ? 0 : 1; }
  // Rank 0: the text of a round for every rank that parses.
  index_t round_bytes() const noexcept { return (comm_.size() - first_parser()) * chunk_; }

  // Rank 0: the next round's cuts (cuts_[r] to cuts_[r + 1] is rank r's block, from 0 in buffer_);
  // false when there is nothing left. `failing`: the stream's failure comes after this round's lines.
  bool cut_round(bool& failing) {
    drop_round();
    while (fill_ < round_bytes() && !ended_) read_more();
    if (ended_ && lines_end_ == 0 && (failure_.empty() || reported_)) return false;
    const int first = first_parser();
    std::fill(cuts_.begin(), cuts_.begin() + first + 1, 0);
    for (int r = first + 1; r <= comm_.size(); ++r) {
      const auto at = static_cast<std::size_t>(r);
      cuts_[at] = std::max(cuts_[at - 1], line_start((r - first) * chunk_));
    }
    begin_ = cuts_.back();
    failing = ended_ && !failure_.empty() && begin_ == lines_end_;
    reported_ = reported_ || failing;
    return true;
  }

  // Rank 0: drops the text up to begin_ (the last round's).
  void drop_round() {
    if (begin_ == 0) return;
    std::memmove(buffer_.data(), buffer_.data() + begin_, static_cast<std::size_t>(fill_ - begin_));
    fill_ -= begin_;
    if (ended_) lines_end_ -= begin_;
    begin_ = 0;
  }

  // Rank 0, after scattering a round it has no block of: decompresses the next round's text.
  void read_ahead() {
    drop_round();
    while (fill_ < round_bytes() && !ended_) read_more();
  }

  // The first line start at or after byte x ≥ 1 (or the end of the lines), reading on as needed.
  index_t line_start(index_t x) {
    index_t from = x - 1;
    for (;;) {
      if (from < fill_) {
        const auto* at = static_cast<const char*>(
            std::memchr(buffer_.data() + from, '\n', static_cast<std::size_t>(fill_ - from)));
        if (at != nullptr) return at - buffer_.data() + 1;
        from = fill_;
      }
      if (ended_) return lines_end_;
      read_more();
    }
  }

  // Where the last line in buffer_ starts.
  index_t last_line_start() const {
    const void* last = memrchr(buffer_.data(), '\n', static_cast<std::size_t>(fill_));
    return last == nullptr ? 0 : static_cast<const char*>(last) - buffer_.data() + 1;
  }

  // Appends up to kRead decompressed bytes; at the end of the stream, or its failure, sets ended_.
  void read_more() {
    try {
      const std::size_t need = static_cast<std::size_t>(fill_) + kRead;
      if (buffer_.size() < need) buffer_.resize(std::max(need, 2 * buffer_.size()));
    } catch (const std::bad_alloc&) {
      fail("not enough memory for a line longer than " + number_text(fill_ - last_line_start()) + " bytes");
      return;
    }
    const int got = gzread(file_, buffer_.data() + fill_, kRead);
    if (got > 0) fill_ += got;
    else fail(stream_failure(file_, path_));
  }

  // The end of the stream, with the reason of its failure (empty at its clean end).
  void fail(std::string reason) {
    ended_ = true;
    failure_ = std::move(reason);
    lines_end_ = failure_.empty() ? fill_ : last_line_start();  // a failure's line is not text
  }

  Communicator comm_;
  gzFile file_;  // rank 0
  std::string path_;
  index_t chunk_;
  std::vector<char> buffer_;  // rank 0: decompressed text from the round's start; others: their block
  index_t begin_ = 0, fill_ = 0;  // rank 0: the next round starts at begin_; bytes in buffer_
  bool ended_ = false;            // rank 0: the stream gave all it will
  index_t lines_end_ = 0;         // rank 0, once ended_: where the lines end in buffer_
  bool reported_ = false;         // rank 0: failure_ went out with a round
  std::string failure_;           // rank 0: why the stream stopped, empty at its clean end
  std::vector<index_t> cuts_;
  index_t round_ = 0;
};

}  // namespace

std::unique_ptr<TextSource> gzip_text(const Communicator& comm, gzFile file, const std::string& path, index_t chunk) {
  return std::make_unique<GzipText>(comm, file, path, chunk);
}

}  // namespace adasketch::detail
