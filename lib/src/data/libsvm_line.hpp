#pragma once
// Parser for one line of LIBSVM/SVMlight text, `label idx:val idx:val ... [# comment]` (internal to
// LibsvmReader). Indices are 1-based and strictly ascending; labels and values finite.
#include <string>
#include <string_view>
#include <vector>

#include "adasketch/types.hpp"

namespace adasketch::detail {

/// The largest feature index accepted (2^62): d and d + P stay far from int64 overflow.
inline constexpr index_t kMaxFeatureIndex = index_t{1} << 62;

enum class LineKind { example, blank, malformed };

struct LibsvmLine {
  double label = 0.0;
  index_t features = 0;    ///< idx:val pairs on the line
  index_t last_index = 0;  ///< largest 1-based index on the line, 0 if none
  std::string error;       ///< the reason when the line is malformed
};

/// Parses `text` (without its line terminator); an index above `max_index` is an error if it is > 0.
/// A line that is empty, all blanks or only a `# comment` is LineKind::blank. The features are
/// appended to `indices` (0-based) and `values`, which are not cleared (the reader collects a block
/// of lines there); a malformed line may leave some appended.
LineKind parse_libsvm_line(std::string_view text, index_t max_index, LibsvmLine& line, std::vector<index_t>& indices,
                           std::vector<double>& values);

}  // namespace adasketch::detail
