#pragma once
/// @file
/// The index type of features and examples, and the enum parser from_string.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace adasketch {
/// Global feature and example indices (d may exceed 2^31).
using index_t = std::int64_t;

/// A non-negative index_t as a container size or offset (std::size_t).
constexpr std::size_t sz(index_t n) noexcept { return static_cast<std::size_t>(n); }

/// The enumerator whose to_string() is `text`: the one parser of each enum's names (CLI options, C
/// and Python strings, file headers). Throws InvalidArgument naming the value and the accepted
/// names. Each enum declares its specialization next to itself (SketchForm, FormChoice, SketchKind,
/// LossKind, EtaSchedule).
template <class Enum>
Enum from_string(std::string_view text);
}  // namespace adasketch
