#pragma once
// The names of an enum's values, written once: the public to_string and from_string of an enum read
// one table (internal).
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "adasketch/error.hpp"

namespace adasketch::detail {

/// An enum's values with their names, in the order messages list them.
template <class Enum, std::size_t N>
using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

/// The name of `value` ("?" for a value not in `names`).
template <class Enum, std::size_t N>
std::string name_of(const EnumNames<Enum, N>& names, Enum value) {
  for (const auto& [v, name] : names)
    if (v == value) return std::string(name);
  return "?";
}

/// The value named `text`. Throws InvalidArgument "unknown WHAT 'text' (expected a, b or c)".
template <class Enum, std::size_t N>
Enum value_named(const EnumNames<Enum, N>& names, std::string_view text, std::string_view what) {
  for (const auto& [v, name] : names)
    if (name == text) return v;
  std::string expected;
  for (std::size_t i = 0; i < N; ++i)
    expected += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i].second);
  throw InvalidArgument("unknown " + std::string(what) + " '" + std::string(text) + "' (expected " + expected + ")");
}

}  // namespace adasketch::detail
