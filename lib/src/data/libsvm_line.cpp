#include "libsvm_line.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "adasketch/number_text.hpp"

namespace adasketch::detail {

namespace {

enum class Number { ok, malformed, non_finite };

bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

// Joins message pieces (append only: GCC 12 gives a false -Wrestrict on prepending operator+).
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}

// A token for a message: bytes outside printable ASCII as \xNN, at most kShown of them.
std::string quoted(std::string_view token) {
  constexpr std::size_t kShown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out.append({'\\', 'x', kHex[c >> 4], kHex[c & 15]});
    }
  }
  out += "'";
  if (token.size() > kShown) out.append(" (").append(number_text(token.size())).append(" bytes, the first 40 shown)");
  return out;
}

// The whole token must be a finite double (an optional leading '+' is allowed, as in "+1").
Number parse_finite(std::string_view token, double& value) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '+' && token[1] != '-') token.remove_prefix(1);
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range)) return Number::malformed;
  // Out of range: strtod tells overflow (±HUGE_VAL, rejected below) from underflow (a tiny value).
  if (ec == std::errc::result_out_of_range) value = std::strtod(std::string(token).c_str(), nullptr);
  return std::isfinite(value) ? Number::ok : Number::non_finite;
}

}  // namespace

LineKind parse_libsvm_line(std::string_view text, index_t max_index, LibsvmLine& line, std::vector<index_t>& indices,
                           std::vector<double>& values) {
  line.features = 0;
  line.last_index = 0;
  if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
  std::size_t pos = 0;
  // Next blank-separated token, or an empty view at the end of the line.
  const auto next_token = [&]() {
    while (pos < text.size() && is_blank(text[pos])) ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && !is_blank(text[pos])) ++pos;
    return text.substr(start, pos - start);
  };
  const auto fail = [&](std::string reason) {
    line.error = std::move(reason);
    return LineKind::malformed;
  };

  const std::string_view label = next_token();
  if (label.empty()) return LineKind::blank;
  switch (parse_finite(label, line.label)) {
    case Number::ok: break;
    case Number::malformed: return fail(concat("invalid label ", quoted(label), " (expected a number)"));
    case Number::non_finite: return fail(concat("label ", quoted(label), " is not finite"));
  }

  for (std::string_view token = next_token(); !token.empty(); token = next_token()) {
    const auto colon = token.find(':');
    if (colon == std::string_view::npos)
      return fail(concat("feature ", quoted(token), " has no ':' (expected index:value)"));
    const std::string_view index_text = token.substr(0, colon), value_text = token.substr(colon + 1);
    index_t index = 0;
    const char* index_end = index_text.data() + index_text.size();
    const auto [ptr, ec] = std::from_chars(index_text.data(), index_end, index);
    if (index_text == "qid") return fail("qid: tokens (SVMlight ranking data) are not supported");
    if (ec == std::errc::result_out_of_range && ptr == index_end && index_text[0] != '-')
      index = kMaxFeatureIndex + 1;  // all digits, beyond int64: too large, reported below
    else if (ec != std::errc() || ptr != index_end)
      return fail(concat("invalid feature index ", quoted(index_text), " (expected a positive integer)"));
    if (index > kMaxFeatureIndex)
      return fail(concat("feature index ", quoted(index_text), " is too large (the largest is 2^62 = ",
                         number_text(kMaxFeatureIndex), ")"));
    if (index < 1) return fail(concat("feature index ", number_text(index), " is not >= 1 (indices are 1-based)"));
    if (index == line.last_index) return fail(concat("duplicate feature index ", number_text(index)));
    if (index < line.last_index)
      return fail(concat("feature index ", number_text(index), " follows ", number_text(line.last_index),
                         " (indices must be strictly ascending)"));
    if (max_index > 0 && index > max_index)
      return fail(concat("feature index ", number_text(index), " exceeds the dimension ", number_text(max_index)));
    line.last_index = index;
    ++line.features;
    double value = 0.0;
    switch (parse_finite(value_text, value)) {
      case Number::ok: break;
      case Number::malformed:
        return fail(concat("invalid value ", quoted(value_text), " for feature ", number_text(index)));
      case Number::non_finite:
        return fail(concat("value ", quoted(value_text), " for feature ", number_text(index), " is not finite"));
    }
    indices.push_back(index - 1);
    values.push_back(value);
  }
  return LineKind::example;
}

}  // namespace adasketch::detail
