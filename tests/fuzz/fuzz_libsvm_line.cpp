// libFuzzer target: the LIBSVM line parser (lib/src/data/libsvm_line.cpp) on any bytes, without MPI.
// Byte 0 picks the dimension limit; the rest is the line. Checks: indices ascend inside the
// dimension, values and label are finite, the counts match the features, features are appended
// after what the vectors held, the same line parses the same way twice, and an error message is one
// short printable line.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "data/libsvm_line.hpp"
#include "fuzz_support.hpp"

using adasketch::index_t;
using namespace adasketch::detail;
using adasketch::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned mode = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const index_t max_index = (mode & 0x80) != 0 ? 1 + (mode & 0x0f) : 0;  // a --dim, or none

  LibsvmLine full;
  std::vector<index_t> indices{-7};  // a previous line's feature: appended after, never cleared
  std::vector<double> values{0.5};
  const LineKind kind = parse_libsvm_line(text, max_index, full, indices, values);
  require(indices.size() >= 1 && indices[0] == -7 && values.size() >= 1 && values[0] == 0.5, "earlier features lost");
  indices.erase(indices.begin());
  values.erase(values.begin());

  if (kind == LineKind::malformed) {
    require(!full.error.empty() && full.error.size() < 400, "error message empty or too long");
    for (const char c : full.error) require(c >= 0x20 && c < 0x7f, "error message is not printable ASCII");
  }
  if (kind == LineKind::example) {
    require(std::isfinite(full.label), "label not finite");
    require(static_cast<index_t>(indices.size()) == full.features, "feature count");
    require(indices.size() == values.size(), "index and value counts");
    for (std::size_t k = 0; k < indices.size(); ++k) {
      require(indices[k] >= 0 && (k == 0 || indices[k] > indices[k - 1]), "indices not strictly ascending");
      require(std::isfinite(values[k]), "value not finite");
      require(max_index == 0 || indices[k] < max_index, "index beyond the dimension");
    }
    require(full.last_index == (indices.empty() ? 0 : indices.back() + 1), "last index");
  }

  LibsvmLine again;  // a second parse into vectors that already hold this line's features
  const std::size_t held = indices.size();
  require(parse_libsvm_line(text, max_index, again, indices, values) == kind, "the second parse disagrees");
  if (kind == LineKind::malformed) require(again.error == full.error, "the second parse gives another error");
  if (kind != LineKind::example) return 0;
  require(again.features == full.features && again.last_index == full.last_index, "second parse counts");
  require(std::memcmp(&again.label, &full.label, sizeof(double)) == 0, "second parse label");
  require(indices.size() == 2 * held && std::equal(indices.begin(), indices.begin() + static_cast<std::ptrdiff_t>(held),
                                                   indices.begin() + static_cast<std::ptrdiff_t>(held)),
          "second parse features");
  return 0;
}
