#pragma once
/// @file
/// Streaming LIBSVM/SVMlight reader (plain or gzip-compressed text), parsed in parallel.
///
/// The format: docs/formats.md, "Data". Labels are returned raw (learners map them);
/// Example::position is the 1-based line number; a malformed line or gzip stream is an InputError.
///
/// Distribution: the text is read in rounds; in each, every rank parses the whole lines that start in
/// its chunk of `chunk_bytes` (plain files: read by each rank itself; gzip: decompressed on rank 0
/// and scattered), then one Alltoallv sends every example to every rank with the features it owns.
/// Every rank's next() delivers the examples in file order, each rank its own features. The
/// constructor runs one such pass that validates the whole file (the first error in file order is
/// thrown on every rank with the same message, at any rank count) and computes DatasetInfo; the
/// parsed examples of that pass are kept if they fit in `cache_bytes` on every rank (then each later
/// pass only exchanges them), else every pass parses the text again. Memory per rank: O(P ·
/// chunk_bytes) of text and examples in flight (plus the longest line), and the cache if kept.
/// next(), skip() and rewind() must be called alike on every rank (next() and skip() communicate).
///
/// The path "-" is standard input, read by rank 0 only (plain or gzip text, handed out as a gzip
/// file's is). It cannot be read twice, so the validating pass must keep its examples: a stream
/// whose examples exceed `cache_bytes` on some rank is an InputError after that pass.
#include <memory>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch {

/// The options of LibsvmReader.
struct LibsvmOptions {
  /// d. 0 means "the largest index in the file". A test file with fewer features than its training
  /// file passes the training d; an index beyond a given dim is an error.
  index_t dim = 0;
  /// Bytes of text each rank parses per round, in [1, 2^30]: a round (one Alltoallv) covers
  /// P · chunk_bytes of the file.
  index_t chunk_bytes = index_t{1} << 20;
  /// Per-rank budget for keeping the validating pass's examples (16 bytes a nonzero, 24 an example);
  /// 0 never keeps them.
  index_t cache_bytes = index_t{512} << 20;
};

/// Summary from the validating pass.
struct DatasetInfo {
  index_t rows = 0;       ///< examples in the file
  index_t max_index = 0;  ///< largest 1-based feature index seen
  index_t nnz = 0;        ///< entries (index:value pairs) of all examples
  ///@{
  /// The smallest and the largest label.
  double label_min = 0.0, label_max = 0.0;
  ///@}
  bool labels_integral = true;  ///< whether every label is an integer
  /// The distinct labels, ascending (at most LabelMap::kMaxValues + 1 of them are kept).
  std::vector<double> labels;
};

/// This rank's work in the reader since its construction (the validating pass included).
struct ParseStats {
  index_t bytes = 0;     ///< bytes of text this rank parsed, or replayed from the cache
  index_t examples = 0;  ///< examples this rank parsed, or replayed from the cache
  double read_seconds = 0.0;      ///< reading the file (gzip: decompressing on rank 0, or waiting for the text)
  double parse_seconds = 0.0;     ///< parsing the lines (and filling the cache)
  double exchange_seconds = 0.0;  ///< agreeing on each round and sending the examples to the ranks
  /// The sum of the three times.
  double seconds() const noexcept { return read_seconds + parse_seconds + exchange_seconds; }
};

/// LIBSVM/SVMlight text (plain or gzip), parsed in parallel (see the file description).
class LibsvmReader final : public ExampleSource {
 public:
  /// Collective over comm. Throws InputError (file and line) for a missing, empty or malformed file,
  /// InvalidArgument for bad options.
  LibsvmReader(const Communicator& comm, const std::string& path, const LibsvmOptions& options = {});
  ~LibsvmReader() override;

  index_t dim() const override { return partition_.dim(); }
  /// The uniform split of the d features over the ranks.
  const BlockPartition& partition() const override { return partition_; }
  bool next(Example& out) override;
  void rewind() override;
  /// Passes whole rounds by their example counts from the validating pass, without reading them
  /// (a gzip file is decompressed up to there on rank 0), and exchanges only the round it ends in.
  index_t skip(index_t n) override;
  /// The summary of the validating pass (the same on every rank).
  const DatasetInfo& info() const noexcept { return info_; }
  /// The path as given ("-": standard input).
  const std::string& path() const noexcept { return path_; }
  /// This rank's work so far.
  const ParseStats& stats() const noexcept { return stats_; }
  /// Whether the validating pass's examples were kept (on every rank alike).
  bool cached() const noexcept;

 private:
  class Rounds;
  Communicator comm_;
  std::string path_;
  ParseStats stats_;
  std::unique_ptr<Rounds> rounds_;  // before info_ and partition_, which come from its scan
  DatasetInfo info_;
  BlockPartition partition_;
};

}  // namespace adasketch
