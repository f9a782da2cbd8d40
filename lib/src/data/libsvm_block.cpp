#include "libsvm_block.hpp"

#include <cstring>
#include <new>
#include <string_view>

#include "libsvm_line.hpp"

#include "adasketch/number_text.hpp"

namespace adasketch::detail {

namespace {
// A UTF-8 byte order mark, as some editors write at the start of a text file: skipped.
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
}  // namespace

void ParsedExamples::clear() noexcept {
  labels.clear();
  lines.clear();
  ends.clear();
  indices.clear();
  values.clear();
}

std::size_t ParsedExamples::bytes() const noexcept {
  return labels.capacity() * sizeof(double) + (lines.capacity() + ends.capacity() + indices.capacity()) * sizeof(index_t) +
         values.capacity() * sizeof(double);
}

ParsedExamples ParsedExamples::compact() const {
  ParsedExamples out;
  out.labels.assign(labels.begin(), labels.end());
  out.lines.assign(lines.begin(), lines.end());
  out.ends.assign(ends.begin(), ends.end());
  out.indices.assign(indices.begin(), indices.end());
  out.values.assign(values.begin(), values.end());
  return out;
}

RoundStatus parse_block(const LineBlock& block, index_t max_index, ParsedExamples& out, std::string& reason) {
  LibsvmLine parsed;
  RoundStatus status;
  const char* at = block.text.data();
  const char* const end = at + block.text.size();
  while (at < end) {
    const auto* newline = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
    std::string_view text(at, static_cast<std::size_t>((newline != nullptr ? newline : end) - at));
    at = newline != nullptr ? newline + 1 : end;
    ++status.lines;
    if (std::memchr(text.data(), '\0', text.size()) != nullptr) {
      reason = "NUL byte in the line (a binary file?)";
      status.failure = RoundStatus::at_line;
      status.line = status.lines;
      return status;
    }
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (status.lines == 1 && block.file_start && text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
    LineKind kind = LineKind::malformed;
    try {
      kind = parse_libsvm_line(text, max_index, parsed, out.indices, out.values);
      if (kind == LineKind::example) {
        out.labels.push_back(parsed.label);
        out.lines.push_back(status.lines);
        out.ends.push_back(static_cast<index_t>(out.indices.size()));
        ++status.examples;
      }
    } catch (const std::bad_alloc&) {  // a failure like the others, which every rank learns of
      parsed.error = "not enough memory for the features of the line (" + number_text(text.size()) + " bytes)";
    }
    if (kind == LineKind::malformed) {
      const std::size_t kept = out.ends.empty() ? 0 : static_cast<std::size_t>(out.ends.back());
      out.indices.resize(kept);
      out.values.resize(kept);
      out.labels.resize(out.ends.size());
      out.lines.resize(out.ends.size());
      reason = parsed.error;
      status.failure = RoundStatus::at_line;
      status.line = status.lines;
      return status;
    }
  }
  status.fail(block.failure);
  if (block.failure.where != TextFailure::Where::none) reason = block.failure.reason;
  return status;
}

}  // namespace adasketch::detail
