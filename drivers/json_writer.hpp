#pragma once
// A minimal streaming JSON writer for the drivers' reports (no external dependency).
//   - strings are escaped (", \, control characters) and invalid UTF-8 is replaced by U+FFFD, so
//     the output is always valid JSON text;
//   - doubles are printed with %.17g, which round-trips every finite double exactly;
//   - NaN and ±Inf have no JSON representation and are written as null.
// Output is pretty-printed with one object member per line, so line tools (grep, awk) can pick out
// a top-level number without a JSON parser.
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace adasketch::driver {

class JsonWriter {
 public:
  JsonWriter() = default;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  /// The next member's name (inside an object only).
  void key(std::string_view name);

  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(const std::string& text) { value(std::string_view(text)); }
  void value(double number);
  void value(bool flag);
  void null();
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  void value(T number) {
    if constexpr (std::is_signed_v<T>)
      integer(static_cast<long long>(number));
    else
      unsigned_integer(static_cast<unsigned long long>(number));
  }

  /// key(name) followed by value(v).
  template <class T>
  void member(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  /// The document so far; complete once every object and array is closed.
  const std::string& str() const noexcept { return out_; }

  /// `text` as a quoted, escaped JSON string literal.
  static std::string quote(std::string_view text);
  /// `number` as a JSON number token (%.17g), or "null" when it is not finite.
  static std::string number(double number);

 private:
  enum class Scope { Object, Array };
  struct Level {
    Scope scope;
    bool empty = true;
  };
  void before_value();
  void newline_indent();
  void integer(long long number);
  void unsigned_integer(unsigned long long number);

  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

}  // namespace adasketch::driver
