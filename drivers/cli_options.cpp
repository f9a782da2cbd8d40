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

InvalidArgument expected(const std::string& what, OptionType type, const std::string& text) {
  return InvalidArgument(what + ": expected " + type_word(type) + ", got '" + text + "'");
}

InvalidArgument unexpected_argument(const std::string& arg, const std::string& command) {
  return InvalidArgument("unexpected argument '" + arg + "' for '" + command + "' (options are --name VALUE; see '" +
                         command + " --help')");
}

// CLI11's message for an unknown name in a config file (ConfigError::Extras).
constexpr std::string_view kConfigExtra = "INI was not able to parse ";

}  // namespace

template <class T>
T parse_number(const std::string& text, const std::string& what) {
  T v{};
  const char* first = text.data() + (text.starts_with('+') ? 1 : 0);  // from_chars rejects a leading '+'
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, v);
  bool ok = ec == std::errc() && end == last;
  if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(v);
  if (!ok) throw expected(what, option_type_of<T>, text);
  return v;
}
template std::int64_t parse_number<std::int64_t>(const std::string&, const std::string&);
template std::uint64_t parse_number<std::uint64_t>(const std::string&, const std::string&);
template double parse_number<double>(const std::string&, const std::string&);

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
  set(s, std::move(default_value));
  s.has_default = true;
}

void OptionParser::optional(std::string name, std::string value_name, std::string help) {
  add(std::move(name), OptionType::String, std::move(value_name), std::move(help));
}

void OptionParser::required(std::string name, OptionType type, std::string value_name, std::string help) {
  add(std::move(name), type, std::move(value_name), std::move(help)).required = true;
}

void OptionParser::flag(std::string name, std::string help) {
  optional(std::move(name), OptionType::Flag, "", "false", std::move(help));
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

OptionParser::Value OptionParser::parse_value(const Spec& s, const std::string& text) {
  const std::string what = "option --" + s.name;
  switch (s.type) {
    case OptionType::Integer: return parse_number<std::int64_t>(text, what);
    case OptionType::Unsigned: return parse_number<std::uint64_t>(text, what);
    case OptionType::Real: return parse_number<double>(text, what);
    case OptionType::Flag:
      if (text != "true" && text != "false") throw expected(what, s.type, text);
      return text == "true";
    case OptionType::String: break;
  }
  if (text.empty()) throw InvalidArgument(what + ": expected a non-empty value");
  return text;
}

void OptionParser::set(Spec& s, std::string text) {
  s.value = parse_value(s, text);
  s.text = std::move(text);
}

// CLI11 reads the arguments and the --config file, takes the argument after an option as its value
// whatever it is (`--ell -3`), and keeps the values as text; they are parsed here by type, and CLI11's
// errors are turned into the messages of the header.
void OptionParser::parse(std::span<const std::string> args) {
  if (std::ranges::any_of(args, [](const std::string& a) { return a == "--help" || a == "-h"; })) {
    help_ = true;
    return;
  }
  // Checked first, in order, as CLI11 cannot say them: `--` (CLI11 would take the arguments after it
  // for positional ones), a missing value (CLI11 would say "1 required missing") and an empty one
  // (CLI11 reads `--name=` as `--name`, taking the next argument; it reads no file for `--config ''`).
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") throw unexpected_argument(arg, command_);
    const std::size_t eq = arg.find('=');
    const std::string name = arg.starts_with("--") ? arg.substr(2, eq == std::string::npos ? eq : eq - 2) : "";
    const Spec* s = find(name);
    const bool takes_next =
        eq == std::string::npos && (name == "config" || (s != nullptr && s->type != OptionType::Flag));
    if (takes_next && ++i == args.size())
      throw InvalidArgument("option " + arg + " requires a value (" +
                            (s == nullptr ? "FILE: a value" : s->value_name + ": " + type_word(s->type)) + ")");
    const bool empty = takes_next ? args[i].empty() : eq + 1 == arg.size();
    if (empty && name == "config") throw InvalidArgument("option --config: expected a non-empty value");
    if (empty && s != nullptr) parse_value(*s, "");
  }
  CLI::App app;
  app.set_help_flag();
  app.allow_extras();
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.set_version_flag("--version", version_line());
  CLI::Option* config = app.set_config("--config");
  for (const Spec& s : specs_)
    (s.type == OptionType::Flag ? app.add_flag("--" + s.name) : app.add_option("--" + s.name))
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  try {
    app.parse(std::vector<std::string>(args.rbegin(), args.rend()));  // CLI11 wants them in reverse order
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
    if (!arg.starts_with("--")) throw unexpected_argument(arg, command_);
    throw InvalidArgument("unknown option '" + arg.substr(0, arg.find('=')) + "' for '" + command_ + "' (see '" +
                          command_ + " --help')");
  }
  for (Spec& s : specs_) {
    const std::vector<std::string>& results = app.get_option("--" + s.name)->results();
    if (results.empty()) continue;
    s.given = true;
    if (s.repeatable) {
      for (const std::string& v : results) parse_value(s, v);
      s.values = results;
      continue;
    }
    if (results.size() != 1) throw InvalidArgument("option --" + s.name + " given more than once");
    set(s, results.front());
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
  set(*s, value);
  s->has_default = true;
}

bool OptionParser::given(const std::string& name) const { return spec(name).given; }

const std::string& OptionParser::text(const std::string& name) const { return spec(name).text; }

template <class T>
const T& OptionParser::typed(const std::string& name) const {
  const T* v = std::get_if<T>(&spec(name).value);
  if (v == nullptr) throw Error("OptionParser: option --" + name + " has another type");
  return *v;
}

std::int64_t OptionParser::integer(const std::string& name) const { return typed<std::int64_t>(name); }

std::uint64_t OptionParser::unsigned_integer(const std::string& name) const { return typed<std::uint64_t>(name); }

double OptionParser::real(const std::string& name) const { return typed<double>(name); }

bool OptionParser::flag_set(const std::string& name) const { return typed<bool>(name); }

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
      help += " (default: " + s.text + ")";
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
    } else if (!s.given && !s.has_default) {
      json.null();
    } else {
      std::visit([&](const auto& v) { json.value(v); }, s.value);
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
