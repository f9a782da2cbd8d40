#pragma once
// Parsing a rank's block of lines into examples with global feature indices (internal to LibsvmReader).
#include <string>
#include <vector>

#include "adasketch/types.hpp"
#include "libsvm_rounds.hpp"
#include "libsvm_text.hpp"

namespace adasketch::detail {

/// Examples in file order, each with its line, label and features (0-based global indices).
struct ParsedExamples {
  std::vector<double> labels;
  std::vector<index_t> lines;    ///< 1-based line numbers
  std::vector<index_t> ends;     ///< example e's features are [ends[e − 1], ends[e]) (from 0 for e = 0)
  std::vector<index_t> indices;  ///< ascending within an example
  std::vector<double> values;

  index_t size() const noexcept { return static_cast<index_t>(labels.size()); }
  index_t begin_of(index_t e) const noexcept { return e == 0 ? 0 : ends[static_cast<std::size_t>(e - 1)]; }
  void clear() noexcept;
  /// Heap bytes held (capacities).
  std::size_t bytes() const noexcept;
  /// A copy without spare capacity.
  ParsedExamples compact() const;
};

/// Parses `block` line by line (NUL bytes, "\r\n", a BOM at the file's start, then the line grammar
/// of libsvm_line.hpp with indices up to `max_index` if > 0), appending its examples to `out` with
/// block-relative line numbers. Returns the block's status: its lines and examples, and the first
/// failure (the line's, or the text's after its lines), whose reason goes to `reason`.
RoundStatus parse_block(const LineBlock& block, index_t max_index, ParsedExamples& out, std::string& reason);

}  // namespace adasketch::detail
