// libFuzzer target: the LIBSVM line parser (lib/src/data/libsvm_line.cpp) on any bytes, without MPI.
// Byte 0 picks the dimension limit and the kept block of features; the rest is the line. The parser
// runs as the reader runs it: a validating parse that keeps every feature, rank 0's scan (keeps
// none), and, for a valid line, a rank's streaming parse (validated, keeps its block only). Checks:
// the three agree (kind, label, counts, the block's features), kept indices ascend inside the
// block, values are finite, and an error message is one short printable line.
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
  const index_t begin = 1 + (mode & 0x07), end = begin + ((mode >> 3) & 0x0f);

  LibsvmLineFilter all;
  all.keep_end = kMaxFeatureIndex + 1;
  all.max_index = max_index;
  LibsvmLine full;
  std::vector<index_t> indices;
  std::vector<double> values;
  const LineKind kind = parse_libsvm_line(text, all, full, indices, values);

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

  LibsvmLineFilter none;  // rank 0's scan
  none.max_index = max_index;
  LibsvmLine scan;
  std::vector<index_t> no_indices;
  std::vector<double> no_values;
  require(parse_libsvm_line(text, none, scan, no_indices, no_values) == kind, "scan and full parse disagree");
  require(no_indices.empty() && no_values.empty(), "the scan kept features");
  if (kind == LineKind::malformed) require(scan.error == full.error, "scan and full parse give different errors");
  if (kind != LineKind::example) return 0;
  require(scan.features == full.features && scan.last_index == full.last_index, "scan counts");
  require(std::memcmp(&scan.label, &full.label, sizeof(double)) == 0, "scan label");

  LibsvmLineFilter block;  // one rank's streaming parse after the scan passed
  block.keep_begin = begin;
  block.keep_end = end;
  block.max_index = max_index;
  block.validated = true;
  LibsvmLine stream;
  std::vector<index_t> kept;
  std::vector<double> kept_values;
  require(parse_libsvm_line(text, block, stream, kept, kept_values) == LineKind::example, "stream rejects a valid line");
  require(std::memcmp(&stream.label, &full.label, sizeof(double)) == 0, "stream label");
  std::size_t at = 0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] + 1 < begin || indices[k] + 1 >= end) continue;
    require(at < kept.size() && kept[at] == indices[k] + 1 - begin, "stream kept other indices");
    require(std::memcmp(&kept_values[at], &values[k], sizeof(double)) == 0, "stream kept other values");
    ++at;
  }
  require(at == kept.size() && kept.size() == kept_values.size(), "stream kept extra features");
  return 0;
}
