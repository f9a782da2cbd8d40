#include "cli_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <utility>

#include <CLI/CLI.hpp>
#include <mpi.h>

#include "adasketch/error.hpp"
#include "adasketch/version.hpp"

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
  if (find(name) != nullptr || name == "help" || name == "config" || name == "version")
    throw Error("OptionParser: option --" + name + " declared twice");
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

void OptionParser::repeatable(std::string name, std::string value_name, std::string help) {
  add(std::move(name), OptionType::String, std::move(value_name), std::move(help)).repeatable = true;
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

namespace {

// CLI11's message for an unknown name in a config file (ConfigError::Extras).
constexpr std::string_view kConfigExtra = "INI was not able to parse ";

}  // namespace

// CLI11 reads the arguments and the --config file. Each `--name VALUE` of a declared option is handed
// to it as `--name=VALUE`, so that a value starting with '-' (`--ell -3`) stays a value; the values
// are then validated here, and CLI11's errors are turned into the messages of the header.
void OptionParser::parse(std::span<const std::string> args) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      help_ = true;
      return;
    }
  CLI::App app;
  app.set_help_flag();
  app.allow_extras();
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.set_version_flag("--version", version_line());
  CLI::Option* config = app.set_config("--config");
  std::vector<std::pair<Spec*, CLI::Option*>> options;
  for (Spec& s : specs_) {
    CLI::Option* o = s.type == OptionType::Flag ? app.add_flag("--" + s.name) : app.add_option("--" + s.name);
    options.emplace_back(&s, o->multi_option_policy(CLI::MultiOptionPolicy::TakeAll));
  }
  std::vector<std::string> joined;  // CLI11 wants them in reverse order
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--")
      throw InvalidArgument("unexpected argument '--' for '" + command_ + "' (options are --name VALUE; see '" +
                            command_ + " --help')");
    const std::size_t eq = arg.find('=');
    const Spec* s = arg.starts_with("--") ? find(arg.substr(2, eq == std::string::npos ? eq : eq - 2)) : nullptr;
    if (s != nullptr && eq + 1 == arg.size()) validate(*s, "");  // `--name=`: CLI11 would say "1 required"
    if (arg != "--config" && (s == nullptr || s->type == OptionType::Flag || eq != std::string::npos)) {
      joined.push_back(arg);
      continue;
    }
    if (i + 1 >= args.size()) {
      if (s == nullptr) throw InvalidArgument("option --config requires a value (FILE: a value)");
      throw InvalidArgument("option " + arg + " requires a value (" + s->value_name + ": " +
                            (s->type == OptionType::String ? std::string("a value") : type_word(s->type)) + ")");
    }
    if (s != nullptr && args[i + 1].empty()) validate(*s, "");
    joined.push_back(arg + "=" + args[++i]);
  }
  std::reverse(joined.begin(), joined.end());
  try {
    app.parse(joined);
  } catch (const CLI::CallForVersion&) {
    version_ = true;
    return;
  } catch (const CLI::FileError&) {
    throw InvalidArgument("option --config: cannot read '" + config->as<std::string>() + "'");
  } catch (const CLI::ConfigError& e) {
    std::string what = e.what();
    if (what.starts_with(kConfigExtra)) what = "unknown option '" + what.substr(kConfigExtra.size()) + "'";
    throw InvalidArgument("option --config " + config->as<std::string>() + ": " + what + " (see '" + command_ +
                          " --help')");
  } catch (const CLI::ParseError& e) {
    throw InvalidArgument(std::string(e.what()) + " (see '" + command_ + " --help')");
  }
  if (const std::vector<std::string> extra = app.remaining(); !extra.empty()) {
    const std::string& arg = extra.front();
    if (arg.starts_with("--"))
      throw InvalidArgument("unknown option '" + arg.substr(0, arg.find('=')) + "' for '" + command_ + "' (see '" +
                            command_ + " --help')");
    throw InvalidArgument("unexpected argument '" + arg + "' for '" + command_ + "' (options are --name VALUE; see '" +
                          command_ + " --help')");
  }
  for (auto& [s, o] : options) {
    if (o->count() == 0) continue;
    if (s->repeatable) {
      for (const std::string& v : o->results()) validate(*s, v);
      s->values = o->results();
      s->given = true;
      continue;
    }
    if (o->results().size() != 1) throw InvalidArgument("option --" + s->name + " given more than once");
    validate(*s, o->results().front());
    s->value = o->results().front();
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

const std::vector<std::string>& OptionParser::values(const std::string& name) const { return spec(name).values; }

bool OptionParser::declared(const std::string& name) const {
  return std::any_of(specs_.begin(), specs_.end(), [&](const Spec& s) { return s.name == name; });
}

std::string OptionParser::usage() const {
  std::string u = "usage: " + command_ + " " + synopsis_ + "\n\n" + description_ + "\n\noptions:\n";
  std::size_t width = std::string("--config FILE").size();
  for (const Spec& s : specs_) width = std::max(width, s.name.size() + s.value_name.size() + 3);
  const auto left_of = [](const Spec& s) { return "--" + s.name + (s.value_name.empty() ? "" : " " + s.value_name); };
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
  line("--config FILE", "read options from FILE, one `name = value` line each (TOML/INI; the command line wins)");
  line("--version", "print the version and exit");
  line("--help", "print this help and exit");
  return u;
}

void OptionParser::write_json(JsonWriter& json) const {
  for (const Spec& s : specs_) {
    json.key(s.name);
    if (s.repeatable) {
      json.begin_array();
      for (const std::string& v : s.values) json.value(v);
      json.end_array();
      continue;
    }
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

void add_quiet_option(OptionParser& p) {
  p.flag("quiet", "print nothing on stdout (no header, progress or summary); errors and warnings still go to stderr");
}

std::string version_line() {
  return std::string("adasketch ") + version() + " (MPI " + number_text(MPI_VERSION) + "." +
         number_text(MPI_SUBVERSION) + ", ScaLAPACK " + (ADASKETCH_WITH_EXACT_LEARNERS ? "on" : "off") + ")";
}

bool parse_command_line(OptionParser& opts, const Communicator& comm, std::span<const std::string> args) {
  opts.parse(args);
  if (!opts.help_requested() && !opts.version_requested()) return true;
  if (comm.rank() == 0) std::fputs((opts.help_requested() ? opts.usage() : version_line() + "\n").c_str(), stdout);
  return false;
}

}  // namespace adasketch::driver
