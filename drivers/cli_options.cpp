#include "cli_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <utility>

#include "adasketch/error.hpp"

namespace adasketch::driver {

namespace {

const char* type_word(OptionType type) {
  switch (type) {
    case OptionType::Integer: return "an integer";
    case OptionType::Unsigned: return "a non-negative integer";
    case OptionType::Real: return "a finite number";
    case OptionType::Flag: return "true or false";
    case OptionType::String: break;
  }
  return "a value";
}

}  // namespace

std::int64_t parse_integer(const std::string& text, const std::string& what) {
  std::int64_t v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && *first == '+') ++first;  // from_chars rejects a leading '+'
  const auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || end != last)
    throw InvalidArgument(what + ": expected an integer, got '" + text + "'");
  return v;
}

std::uint64_t parse_unsigned(const std::string& text, const std::string& what) {
  std::uint64_t v = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || end != last)
    throw InvalidArgument(what + ": expected a non-negative integer, got '" + text + "'");
  return v;
}

double parse_real(const std::string& text, const std::string& what) {
  double v = 0.0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && *first == '+') ++first;
  const auto [end, ec] = std::from_chars(first, last, v);
  if (text.empty() || ec != std::errc() || end != last || !std::isfinite(v))
    throw InvalidArgument(what + ": expected a finite number, got '" + text + "'");
  return v;
}

OptionParser::OptionParser(std::string command, std::string synopsis, std::string description)
    : command_(std::move(command)), synopsis_(std::move(synopsis)), description_(std::move(description)) {}

OptionParser::Spec& OptionParser::add(std::string name, OptionType type, std::string value_name, std::string help) {
  if (find(name) != nullptr || name == "help") throw Error("OptionParser: option --" + name + " declared twice");
  Spec s;
  s.name = std::move(name);
  s.type = type;
  s.value_name = std::move(value_name);
  s.help = std::move(help);
  specs_.push_back(std::move(s));
  return specs_.back();
}

void OptionParser::optional(std::string name, OptionType type, std::string value_name, std::string default_value,
                            std::string help) {
  Spec& s = add(std::move(name), type, std::move(value_name), std::move(help));
  validate(s, default_value);
  s.default_value = std::move(default_value);
  s.has_default = true;
}

void OptionParser::optional(std::string name, std::string value_name, std::string help) {
  add(std::move(name), OptionType::String, std::move(value_name), std::move(help));
}

void OptionParser::required(std::string name, OptionType type, std::string value_name, std::string help) {
  add(std::move(name), type, std::move(value_name), std::move(help)).required = true;
}

void OptionParser::flag(std::string name, std::string help) {
  Spec& s = add(std::move(name), OptionType::Flag, "", std::move(help));
  s.default_value = "false";
  s.has_default = true;
}

OptionParser::Spec* OptionParser::find(const std::string& name) {
  const auto it = std::find_if(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
  return it == specs_.end() ? nullptr : &*it;
}

const OptionParser::Spec& OptionParser::spec(const std::string& name) const {
  const auto it = std::find_if(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
  if (it == specs_.end()) throw Error("OptionParser: option --" + name + " was never declared");
  return *it;
}

void OptionParser::validate(const Spec& s, const std::string& value) {
  const std::string what = "option --" + s.name;
  switch (s.type) {
    case OptionType::Integer: parse_integer(value, what); break;
    case OptionType::Unsigned: parse_unsigned(value, what); break;
    case OptionType::Real: parse_real(value, what); break;
    case OptionType::Flag:
      if (value != "true" && value != "false") throw InvalidArgument(what + ": expected true or false, got '" + value + "'");
      break;
    case OptionType::String:
      if (value.empty()) throw InvalidArgument(what + ": expected a non-empty value");
      break;
  }
}

void OptionParser::parse(std::span<const std::string> args) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      help_ = true;
      return;
    }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("--") || arg.size() == 2)
      throw InvalidArgument("unexpected argument '" + arg + "' for '" + command_ + "' (options are --name VALUE; see '" +
                            command_ + " --help')");
    std::string name = arg.substr(2), value;
    bool inline_value = false;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      inline_value = true;
    }
    Spec* s = find(name);
    if (s == nullptr)
      throw InvalidArgument("unknown option '--" + name + "' for '" + command_ + "' (see '" + command_ + " --help')");
    if (s->given) throw InvalidArgument("option --" + name + " given more than once");
    if (!inline_value && s->type == OptionType::Flag) {
      value = "true";
    } else if (!inline_value) {
      if (i + 1 >= args.size())
        throw InvalidArgument("option --" + name + " requires a value (" + s->value_name + ": " +
                              (s->type == OptionType::String ? std::string("a value") : type_word(s->type)) + ")");
      value = args[++i];
    }
    validate(*s, value);
    s->value = std::move(value);
    s->given = true;
  }
  for (const Spec& s : specs_)
    if (s.required && !s.given)
      throw InvalidArgument("missing required option --" + s.name + " " + s.value_name + " (see '" + command_ +
                            " --help')");
}

void OptionParser::set_default(const std::string& name, const std::string& value) {
  Spec* s = find(name);
  if (s == nullptr) throw Error("OptionParser: option --" + name + " was never declared");
  if (s->given) return;
  validate(*s, value);
  s->default_value = value;
  s->has_default = true;
}

bool OptionParser::given(const std::string& name) const { return spec(name).given; }

const std::string& OptionParser::text(const std::string& name) const {
  const Spec& s = spec(name);
  return s.given ? s.value : s.default_value;
}

std::int64_t OptionParser::integer(const std::string& name) const {
  return parse_integer(text(name), "option --" + name);
}

std::uint64_t OptionParser::unsigned_integer(const std::string& name) const {
  return parse_unsigned(text(name), "option --" + name);
}

double OptionParser::real(const std::string& name) const { return parse_real(text(name), "option --" + name); }

bool OptionParser::flag_set(const std::string& name) const { return text(name) == "true"; }

std::string OptionParser::usage() const {
  std::string u = "usage: " + command_ + " " + synopsis_ + "\n\n" + description_ + "\n\noptions:\n";
  std::size_t width = 0;
  for (const Spec& s : specs_) width = std::max(width, s.name.size() + s.value_name.size() + 3);
  const auto left_of = [](const Spec& s) { return "--" + s.name + (s.value_name.empty() ? "" : " " + s.value_name); };
  width = std::max<std::size_t>(width, 6);
  const auto line = [&](const std::string& left, const std::string& help) {
    u += "  " + left + std::string(width + 2 - left.size(), ' ') + help + "\n";
  };
  for (const Spec& s : specs_) {
    std::string help = s.help;
    if (s.required)
      help += " (required)";
    else if (s.has_default && s.type != OptionType::Flag)
      help += " (default: " + s.default_value + ")";
    line(left_of(s), help);
  }
  line("--help", "print this help and exit");
  return u;
}

void OptionParser::write_json(JsonWriter& json) const {
  for (const Spec& s : specs_) {
    json.key(s.name);
    if (!s.given && !s.has_default) {
      json.null();
      continue;
    }
    const std::string what = "option --" + s.name;
    const std::string& v = s.given ? s.value : s.default_value;
    switch (s.type) {
      case OptionType::Integer: json.value(parse_integer(v, what)); break;
      case OptionType::Unsigned: json.value(parse_unsigned(v, what)); break;
      case OptionType::Real: json.value(parse_real(v, what)); break;
      case OptionType::String: json.value(v); break;
      case OptionType::Flag: json.value(v == "true"); break;
    }
  }
}

bool parse_command_line(OptionParser& opts, const Communicator& comm, std::span<const std::string> args) {
  opts.parse(args);
  if (!opts.help_requested()) return true;
  if (comm.rank() == 0) std::fputs(opts.usage().c_str(), stdout);
  return false;
}

}  // namespace adasketch::driver
