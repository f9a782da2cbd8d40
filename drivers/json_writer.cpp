#include "json_writer.hpp"

#include <cmath>
#include <cstdio>

#include "adasketch/error.hpp"

namespace adasketch::driver {

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 if it is not well formed
// (overlong forms, surrogates and code points above U+10FFFF are rejected, as in RFC 3629).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

std::string JsonWriter::quote(std::string_view text) {
  std::string q;
  q.reserve(text.size() + 2);
  q.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': q += "\\\""; break;
        case '\\': q += "\\\\"; break;
        case '\b': q += "\\b"; break;
        case '\f': q += "\\f"; break;
        case '\n': q += "\\n"; break;
        case '\r': q += "\\r"; break;
        case '\t': q += "\\t"; break;
        default:
          if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
            q += buf;
          } else {
            q.push_back(static_cast<char>(c));
          }
      }
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      q += "\\ufffd";  // not UTF-8 (e.g. a Latin-1 file name): keep the document valid
      ++i;
    } else {
      q.append(text.substr(i, n));
      i += n;
    }
  }
  q.push_back('"');
  return q;
}

std::string JsonWriter::number(double number) {
  if (!std::isfinite(number)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", number);
  return buf;
}

void JsonWriter::newline_indent() {
  out_.push_back('\n');
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value() {
  if (stack_.empty()) {
    if (!out_.empty()) throw Error("JsonWriter: a second top-level value");
    return;
  }
  Level& top = stack_.back();
  if (top.scope == Scope::Object) {
    if (!after_key_) throw Error("JsonWriter: object member without a key");
    after_key_ = false;
    return;
  }
  if (!top.empty) out_.push_back(',');
  top.empty = false;
  newline_indent();
}

void JsonWriter::key(std::string_view name) {
  if (stack_.empty() || stack_.back().scope != Scope::Object || after_key_)
    throw Error("JsonWriter: key outside an object");
  Level& top = stack_.back();
  if (!top.empty) out_.push_back(',');
  top.empty = false;
  newline_indent();
  out_ += quote(name);
  out_ += ": ";
  after_key_ = true;
}

void JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  stack_.push_back({Scope::Object});
}

void JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  stack_.push_back({Scope::Array});
}

void JsonWriter::end_object() {
  if (stack_.empty() || stack_.back().scope != Scope::Object || after_key_)
    throw Error("JsonWriter: unbalanced end_object");
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline_indent();
  out_.push_back('}');
  if (stack_.empty()) out_.push_back('\n');
}

void JsonWriter::end_array() {
  if (stack_.empty() || stack_.back().scope != Scope::Array) throw Error("JsonWriter: unbalanced end_array");
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) newline_indent();
  out_.push_back(']');
  if (stack_.empty()) out_.push_back('\n');
}

void JsonWriter::value(std::string_view text) {
  before_value();
  out_ += quote(text);
}

void JsonWriter::value(double v) {
  before_value();
  out_ += number(v);
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

void JsonWriter::integer(long long v) {
  before_value();
  out_ += std::to_string(v);
}

void JsonWriter::unsigned_integer(unsigned long long v) {
  before_value();
  out_ += std::to_string(v);
}

}  // namespace adasketch::driver
