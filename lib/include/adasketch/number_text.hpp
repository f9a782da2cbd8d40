#pragma once
/// @file
/// Numbers as text: the one formatter of messages, reports, checkpoint defaults and output files.
#include <concepts>
#include <string>

namespace adasketch {

/// @brief The shortest text that parses back to the same double (std::to_chars): "0.1", "1e-20",
/// "-0", "nan", "inf". Never rounds a small number to "0.000000" as std::to_string does.
std::string number_text(double value);

/// @brief An integer as text (std::to_string), so that a message can call number_text on any
/// arithmetic value.
template <std::integral T>
std::string number_text(T value) {
  return std::to_string(value);
}

/// @brief Appends number_text(value) to out, without a temporary string.
void append_number_text(std::string& out, double value);

}  // namespace adasketch
