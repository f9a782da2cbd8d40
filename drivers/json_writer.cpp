#include "json_writer.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "adasketch/error.hpp"

namespace adasketch::driver {

namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& j, int indent) { return j.dump(indent, ' ', false, Json::error_handler_t::replace); }

// A double as JSON: null when not finite; an integral value below 2⁵³ as an integer (106720, not
// 106720.0, as before); else the shortest text that reads back exactly.
Json number_json(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (std::trunc(v) == v && std::abs(v) < 0x1p53 && !(v == 0.0 && std::signbit(v))) return static_cast<std::int64_t>(v);
  return v;
}

}  // namespace

// The tree being written, and the path to the innermost open object or array. Only that one grows
// while it is open, so the pointers to its ancestors stay valid.
struct JsonWriter::Document {
  Json root;
  std::vector<Json*> open;
  std::string pending_key;
  bool after_key = false, started = false;
  mutable std::string text;

  // Where the next value goes (checking that one may go there).
  Json& slot() {
    if (open.empty()) {
      if (started) throw Error("JsonWriter: a second top-level value");
      started = true;
      return root;
    }
    Json& top = *open.back();
    if (top.is_array()) return top.emplace_back(nullptr);
    if (!after_key) throw Error("JsonWriter: object member without a key");
    after_key = false;
    return top[pending_key];
  }
};

JsonWriter::JsonWriter() : doc_(std::make_unique<Document>()) {}
JsonWriter::~JsonWriter() = default;
JsonWriter::JsonWriter(JsonWriter&&) noexcept = default;
JsonWriter& JsonWriter::operator=(JsonWriter&&) noexcept = default;

std::string JsonWriter::quote(std::string_view text) { return dump(Json(std::string(text)), -1); }

std::string JsonWriter::number(double number) { return dump(number_json(number), -1); }

void JsonWriter::key(std::string_view name) {
  Document& d = *doc_;
  if (d.open.empty() || !d.open.back()->is_object() || d.after_key) throw Error("JsonWriter: key outside an object");
  if (d.open.back()->contains(std::string(name))) throw Error("JsonWriter: key '" + std::string(name) + "' written twice");
  d.pending_key = name;
  d.after_key = true;
}

void JsonWriter::begin_object() {
  Json& j = doc_->slot();
  j = Json::object();
  doc_->open.push_back(&j);
}

void JsonWriter::begin_array() {
  Json& j = doc_->slot();
  j = Json::array();
  doc_->open.push_back(&j);
}

void JsonWriter::end_object() {
  Document& d = *doc_;
  if (d.open.empty() || !d.open.back()->is_object() || d.after_key) throw Error("JsonWriter: unbalanced end_object");
  d.open.pop_back();
}

void JsonWriter::end_array() {
  Document& d = *doc_;
  if (d.open.empty() || !d.open.back()->is_array()) throw Error("JsonWriter: unbalanced end_array");
  d.open.pop_back();
}

const std::string& JsonWriter::str() const {
  const Document& d = *doc_;
  d.text = d.started ? dump(d.root, 2) + (d.open.empty() ? "\n" : "") : std::string();
  return d.text;
}

void JsonWriter::value(std::string_view text) { doc_->slot() = std::string(text); }

void JsonWriter::value(double v) { doc_->slot() = number_json(v); }

void JsonWriter::value(bool flag) { doc_->slot() = flag; }

void JsonWriter::null() { doc_->slot() = nullptr; }

void JsonWriter::integer(long long v) { doc_->slot() = static_cast<std::int64_t>(v); }

void JsonWriter::unsigned_integer(unsigned long long v) { doc_->slot() = static_cast<std::uint64_t>(v); }

}  // namespace adasketch::driver
