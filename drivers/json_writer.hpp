#pragma once
// A streaming JSON writer for the drivers' reports, on nlohmann-json (ordered_json: members stay in
// the order they were written).
//   - strings are escaped (", \, control characters) and invalid UTF-8 is replaced by U+FFFD, so
//     the output is always valid JSON text;
//   - doubles are printed as the shortest text that reads back as the same double (0.1, not
//     0.10000000000000001), integral ones below 2⁵³ as integers (3, not 3.0);
//   - NaN and ±Inf have no JSON representation and are written as null.
// Output is pretty-printed with one object member per line, so line tools (grep, awk) can pick out
// a top-level number without a JSON parser.
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace adasketch::driver {

class JsonWriter {
 public:
  JsonWriter();
  ~JsonWriter();
  JsonWriter(JsonWriter&&) noexcept;
  JsonWriter& operator=(JsonWriter&&) noexcept;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  /// The next member's name (inside an object only; each name once per object).
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
  const std::string& str() const;

  /// `text` as a quoted, escaped JSON string literal.
  static std::string quote(std::string_view text);
  /// `number` as a JSON number token (shortest round trip), or "null" when it is not finite.
  static std::string number(double number);

 private:
  struct Document;
  void integer(long long number);
  void unsigned_integer(unsigned long long number);

  std::unique_ptr<Document> doc_;
};

}  // namespace adasketch::driver
