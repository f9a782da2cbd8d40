#pragma once
// Long-option parsing shared by the drivers' subcommands (on CLI11).
//
// Every option takes exactly one value, given as `--name VALUE` or `--name=VALUE` (so `--ell -3`
// reads -3 as the value of --ell), or as a `name = value` line of a `--config FILE` (TOML/INI; the
// command line wins over the file). Values are parsed by type once, when given or defaulted, and
// kept typed (and as given, for messages). Every problem throws adasketch::InvalidArgument whose
// message names the option: unknown options, a missing value, a non-numeric or non-finite number, a
// repeated option, a missing required option, and a stray positional argument. `--help` (or `-h`)
// anywhere requests the usage text instead, `--version` the version line.
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "json_writer.hpp"

namespace adasketch::driver {

enum class OptionType {
  String,    ///< any text
  Integer,   ///< signed 64-bit integer (decimal)
  Unsigned,  ///< unsigned 64-bit integer (decimal), e.g. a seed
  Real,      ///< finite floating-point number
  Flag,      ///< a switch: `--name` alone turns it on (`--name=false` off); default off
};

/// The OptionType of a C++ type: Flag for bool, Real for double, Unsigned for std::uint64_t, Integer
/// for the other integers, String for the rest (e.g. an enum, named by its text).
template <class T>
constexpr OptionType option_type_of = std::is_same_v<T, bool>            ? OptionType::Flag
                                      : std::is_same_v<T, double>        ? OptionType::Real
                                      : std::is_same_v<T, std::uint64_t> ? OptionType::Unsigned
                                      : std::is_integral_v<T>            ? OptionType::Integer
                                                                         : OptionType::String;

class OptionParser {
 public:
  /// `command` is the full command name shown in messages ("adasketch sketch"); `synopsis` the
  /// argument line of the usage text; `description` the paragraph below it.
  OptionParser(std::string command, std::string synopsis, std::string description);

  /// Declares an option with a default value (numeric defaults must parse as their type).
  void optional(std::string name, OptionType type, std::string value_name, std::string default_value,
                std::string help);
  /// Declares an optional option without a default (a String; reported as null when absent).
  void optional(std::string name, std::string value_name, std::string help);
  /// Declares an option that must be given.
  void required(std::string name, OptionType type, std::string value_name, std::string help);
  /// A switch (OptionType::Flag), off unless given.
  void flag(std::string name, std::string help);
  /// An option that may be given any number of times (a String; `values` has them in order).
  void repeatable(std::string name, std::string value_name, std::string help);

  /// Parses the arguments that follow the command name. Throws InvalidArgument naming the option.
  void parse(std::span<const std::string> args);
  /// Replaces the default of an option that was not given (e.g. by a value from a checkpoint),
  /// validated like a parsed value; a given option keeps its value.
  void set_default(const std::string& name, const std::string& value);

  bool help_requested() const noexcept { return help_; }
  bool version_requested() const noexcept { return version_; }
  std::string usage() const;
  const std::string& command() const noexcept { return command_; }

  /// Whether the option was given on the command line (not just defaulted).
  bool given(const std::string& name) const;
  /// The option's value as given or defaulted (for messages); empty for an absent option without a
  /// default.
  const std::string& text(const std::string& name) const;
  /// The value of an Integer, Unsigned or Real option, parsed when given or defaulted.
  std::int64_t integer(const std::string& name) const;
  std::uint64_t unsigned_integer(const std::string& name) const;
  double real(const std::string& name) const;
  /// A Flag option's state.
  bool flag_set(const std::string& name) const;
  /// A repeatable option's values, in the order given.
  const std::vector<std::string>& values(const std::string& name) const;
  /// Whether the parser has an option of that name (without the dashes).
  bool declared(const std::string& name) const;

  /// Writes an object member per declared option (given or default), typed: numbers as numbers,
  /// absent optional strings as null, a repeatable option as an array.
  void write_json(JsonWriter& json) const;

 private:
  /// A value of each OptionType: String, Integer, Unsigned, Real, Flag.
  using Value = std::variant<std::string, std::int64_t, std::uint64_t, double, bool>;
  struct Spec {
    std::string name, value_name, help;
    OptionType type;
    bool required = false, has_default = false, repeatable = false;
    bool given = false;
    std::string text;                 ///< the value as given, else the default ("" for none)
    Value value;                      ///< text parsed by type
    std::vector<std::string> values;  ///< a repeatable option's
  };
  Spec& add(std::string name, OptionType type, std::string value_name, std::string help);
  const Spec& spec(const std::string& name) const;
  Spec* find(const std::string& name);
  /// The value of an option of T's type (Error for another type).
  template <class T>
  const T& typed(const std::string& name) const;
  /// Parses text by the option's type; throws InvalidArgument naming the option.
  static Value parse_value(const Spec& s, const std::string& text);
  /// Sets s.text and s.value (parsed) to text.
  static void set(Spec& s, std::string text);

  std::string command_, synopsis_, description_;
  std::vector<Spec> specs_;
  bool help_ = false, version_ = false;
};

/// Declares --quiet: the command prints nothing on stdout (its output files are still written);
/// errors and warnings still go to stderr.
void add_quiet_option(OptionParser& parser);

/// "adasketch VERSION (MPI M.N, ScaLAPACK on|off)": the version and the build's options.
std::string version_line();

/// Strict number parsing (the whole text must be the number, a leading '+' allowed) of T =
/// std::int64_t, std::uint64_t or double (finite). Throws InvalidArgument mentioning `what` (e.g.
/// "option --ell: expected an integer, got 'x'") on failure.
template <class T>
T parse_number(const std::string& text, const std::string& what);

/// Parses a command's arguments. With --help (--version), rank 0 prints the usage (version line) and
/// it returns false: the command then ends with status 0.
bool parse_command_line(OptionParser& opts, const Communicator& comm, std::span<const std::string> args);

}  // namespace adasketch::driver
