#pragma once
// The validating pass of the parallel LIBSVM reader (internal to LibsvmReader): every round of the
// text parsed by the ranks, the first failure in file order thrown on every rank, DatasetInfo from
// reductions, where each round starts, and the parsed examples if they fit the cache budget.
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "libsvm_block.hpp"
#include "libsvm_text.hpp"

namespace adasketch::detail {

/// Where the rounds begin (the same on every rank) and this rank's blocks in them.
struct RoundIndex {
  std::vector<index_t> first_line;     ///< per round, and one past the last: number of its first line
  std::vector<index_t> first_example;  ///< per round, and one past the last: examples before it
  std::vector<index_t> my_first_line, my_lines, my_examples, my_bytes;  ///< per round: this rank's block
  index_t rounds() const noexcept { return static_cast<index_t>(my_lines.size()); }
};

struct ScanResult {
  DatasetInfo info;
  RoundIndex index;
  bool cached = false;  ///< on every rank alike
  /// If cached: the examples of this rank's block of each round (global line numbers).
  std::vector<ParsedExamples> cache;
};

/// Collective. Reads `text` from its first round to its last, parsing with indices up to `dim` if > 0.
/// Throws InputError naming `path`, the same on every rank, for the first bad line in file order, a
/// failure of the text, or a file without examples (or, with dim 0, without feature indices).
/// Adds its work to `stats`.
ScanResult scan_text(const Communicator& comm, TextSource& text, const std::string& path, index_t dim,
                     index_t cache_bytes, ParseStats& stats);

}  // namespace adasketch::detail
