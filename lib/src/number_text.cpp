#include "adasketch/number_text.hpp"

#include <charconv>

namespace adasketch {

void append_number_text(std::string& out, double value) {
  char text[32];  // the longest double (e.g. -2.2250738585072014e-308) takes 24
  const auto r = std::to_chars(text, text + sizeof text, value);
  out.append(text, r.ptr);
}

std::string number_text(double value) {
  std::string out;
  append_number_text(out, value);
  return out;
}

}  // namespace adasketch
