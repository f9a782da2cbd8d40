#pragma once
// Numbers written as text that parses back to the same double: the shortest round-trip form
// (std::to_chars; "nan", "inf" included). Checkpoint defaults, tune's rows.
#include <charconv>
#include <string>

namespace adasketch::driver {

inline std::string shortest_text(double v) {
  char buf[32];  // the longest double (e.g. -2.2250738585072014e-308) takes 24
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace adasketch::driver
