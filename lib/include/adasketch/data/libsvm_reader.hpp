#pragma once
// Streaming LIBSVM/SVMlight reader (plain or gzip-compressed text).
//
// Line grammar: `label idx:val idx:val ... [# comment]`, indices 1-based and strictly ascending,
// label and values finite; blanks are spaces or tabs. Labels: ±1, 0/1, or class numbers 1..K (the raw
// value is returned; learners map it). A line with no features is an example with x = 0. Blank and
// comment-only lines are skipped (they still count for line numbers); "\r\n" line ends, a last
// line without "\n" and a UTF-8 byte order mark at the start are accepted; indices above 2^62 and
// NUL bytes are errors. Example::position is the 1-based line number. A truncated or corrupt gzip
// stream is an InputError, never a short read.
// Distribution: rank 0 first scans and validates the whole file (so a bad file fails on every rank
// together, with the same message), then every rank streams the file and keeps only its own
// features: memory is O(d/P + one example) per rank. next() itself does not communicate; it throws
// InputError (on the calling rank) only if the file changed after the scan.
#include <memory>
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch {

struct LibsvmOptions {
  /// d. 0 means "the largest index in the file". A test file with fewer features than its training
  /// file passes the training d; an index beyond a given dim is an error.
  index_t dim = 0;
};

/// Summary from the validating scan.
struct DatasetInfo {
  index_t rows = 0;
  index_t max_index = 0;  ///< largest 1-based feature index seen
  index_t nnz = 0;
  double label_min = 0.0, label_max = 0.0;
  bool labels_integral = true;
};

class LibsvmReader final : public ExampleSource {
 public:
  /// Collective over comm. Throws InputError (file and line) for a missing, empty or malformed file.
  LibsvmReader(const Communicator& comm, const std::string& path, const LibsvmOptions& options = {});
  ~LibsvmReader() override;

  index_t dim() const override { return partition_.dim(); }
  const BlockPartition& partition() const override { return partition_; }
  bool next(Example& out) override;
  void rewind() override;
  /// Reads the lines (decompressing a gzip file) but parses none: about the cost of reading n lines.
  index_t skip(index_t n) override;
  const DatasetInfo& info() const noexcept { return info_; }
  const std::string& path() const noexcept { return path_; }

 private:
  class LineSource;
  Communicator comm_;
  std::string path_;
  DatasetInfo info_;
  BlockPartition partition_;
  std::unique_ptr<LineSource> lines_;
};

}  // namespace adasketch
