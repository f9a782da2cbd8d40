#include "adasketch/data/libsvm_reader.hpp"

#include <chrono>
#include <optional>

#include "adasketch/error.hpp"
#include "libsvm_exchange.hpp"
#include "libsvm_scan.hpp"
#include "libsvm_text.hpp"

namespace adasketch {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

const LibsvmOptions& checked(const LibsvmOptions& o) {
  if (o.dim < 0) throw InvalidArgument("LibsvmReader: the dimension must be >= 0 (got " + number_text(o.dim) + ")");
  if (o.chunk_bytes < 1 || o.chunk_bytes > index_t{1} << 30)
    throw InvalidArgument("LibsvmReader: chunk_bytes must be in [1, 2^30] (got " + number_text(o.chunk_bytes) + ")");
  if (o.cache_bytes < 0)
    throw InvalidArgument("LibsvmReader: cache_bytes must be >= 0 (got " + number_text(o.cache_bytes) + ")");
  return o;
}

}  // namespace

/// The rounds of the file after the validating pass: each parsed again (or taken from the cache) and
/// exchanged when next() or skip() reach it.
class LibsvmReader::Rounds {
 public:
  Rounds(const Communicator& comm, const std::string& path, const LibsvmOptions& options, ParseStats& stats)
      : path_(path), text_(detail::open_text(comm, path, options.chunk_bytes)),
        scan_(detail::scan_text(comm, *text_, path, options.dim, options.cache_bytes, stats)) {
    if (scan_.cached) text_.reset();  // every pass replays the cache
    else if (path == detail::kStandardInput)
      throw InputError(path, 0, "standard input is read once, so its examples are kept in memory, but they do not fit "
                                "the cache budget (" + number_text(options.cache_bytes) +
                                " bytes per rank): read the data from a file");
    else text_->rewind();
  }

  const DatasetInfo& info() const noexcept { return scan_.info; }
  bool cached() const noexcept { return scan_.cached; }
  /// Once d is known: the partition the examples go out by.
  void start(const Communicator& comm, const BlockPartition& partition) {
    dim_ = partition.dim();
    exchange_.emplace(comm, partition);
  }

  bool next(Example& out, ParseStats& stats) {
    while (!exchange_->next(out)) {
      if (round_ == scan_.index.rounds()) return false;
      load(stats);
    }
    return true;
  }

  index_t skip(index_t n, ParseStats& stats) {
    index_t done = exchange_->skip(n);
    const detail::RoundIndex& index = scan_.index;
    while (done < n && round_ < index.rounds()) {
      const auto k = static_cast<std::size_t>(round_);
      const index_t examples = index.first_example[k + 1] - index.first_example[k];
      if (examples <= n - done) {  // the whole round: not read (a gzip one only decompressed)
        if (text_) text_->skip();
        ++round_;
        done += examples;
      } else {
        load(stats);
        done += exchange_->skip(n - done);
      }
    }
    return done;
  }

  void rewind() {
    round_ = 0;
    exchange_->clear();
    if (text_) text_->rewind();
  }

 private:
  // Collective: parses (or takes from the cache) this rank's block of the next round and exchanges.
  void load(ParseStats& stats) {
    const detail::RoundIndex& index = scan_.index;
    const auto k = static_cast<std::size_t>(round_++);
    detail::RoundStatus status;
    std::string reason;
    const detail::ParsedExamples* mine = &parsed_;
    if (scan_.cached) {
      mine = &scan_.cache[k];
      status.lines = index.my_lines[k];
      status.examples = mine->size();
    } else {
      detail::LineBlock block;
      auto start = Clock::now();
      const bool more = text_->next(block);
      stats.read_seconds += seconds_since(start);
      start = Clock::now();
      parsed_.clear();
      if (more) status = detail::parse_block(block, dim_, parsed_, reason);
      if (status.failure == detail::RoundStatus::none && (!more || status.lines != index.my_lines[k] || status.examples != index.my_examples[k])) {
        status.failure = detail::RoundStatus::at_line;
        status.line = 0;
        reason = "the file changed after it was validated";
      }
      for (index_t& line : parsed_.lines) line += index.my_first_line[k] - 1;
      stats.parse_seconds += seconds_since(start);
    }
    stats.bytes += index.my_bytes[k];
    stats.examples += mine->size();
    const auto start = Clock::now();
    exchange_->exchange(*mine, status, reason, index.first_line[k], path_);
    stats.exchange_seconds += seconds_since(start);
  }

  std::string path_;
  std::unique_ptr<detail::TextSource> text_;  // none when cached
  detail::ScanResult scan_;
  std::optional<detail::EntryExchange> exchange_;
  detail::ParsedExamples parsed_;  // this rank's block of the round, when not cached
  index_t round_ = 0;              // the next round to load
  index_t dim_ = 0;                // d: an index above it is an error when parsing again
};

LibsvmReader::LibsvmReader(const Communicator& comm, const std::string& path, const LibsvmOptions& options)
    : comm_(comm),
      path_(path),
      rounds_(std::make_unique<Rounds>(comm, path, checked(options), stats_)),
      info_(rounds_->info()),
      partition_(options.dim > 0 ? options.dim : info_.max_index, comm.size()) {
  rounds_->start(comm_, partition_);
}

LibsvmReader::~LibsvmReader() = default;

bool LibsvmReader::cached() const noexcept { return rounds_->cached(); }

bool LibsvmReader::next(Example& out) { return rounds_->next(out, stats_); }

index_t LibsvmReader::skip(index_t n) {
  ADASKETCH_REQUIRE(n >= 0, "n = " + number_text(n));
  return rounds_->skip(n, stats_);
}

void LibsvmReader::rewind() { rounds_->rewind(); }

}  // namespace adasketch
