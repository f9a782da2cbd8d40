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

/// Which features to store and how much to check.
struct LibsvmLineFilter {
  index_t keep_begin = 1;  ///< store the 1-based indices in [keep_begin, keep_end) ...
  index_t keep_end = 1;    ///< ... as keep_begin-relative (0-based local) indices
  index_t max_index = 0;   ///< > 0: an index above it is an error
  /// The file already passed a full scan: values outside the kept range are not converted and
  /// parsing stops at the first index >= keep_end (so `features` and `last_index` are partial).
  bool validated = false;
};

struct LibsvmLine {
  double label = 0.0;
  index_t features = 0;    ///< idx:val pairs on the line
  index_t last_index = 0;  ///< largest 1-based index on the line, 0 if none
  std::string error;       ///< the reason when the line is malformed
};

/// Parses `text` (without its line terminator). A line that is empty, all blanks or only a
/// `# comment` is LineKind::blank. Kept features are appended to `indices`/`values` after they are
/// cleared.
LineKind parse_libsvm_line(std::string_view text, const LibsvmLineFilter& filter, LibsvmLine& line,
                           std::vector<index_t>& indices, std::vector<double>& values);

}  // namespace adasketch::detail
