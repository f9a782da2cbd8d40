#include "hyperparameter_options.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/number_text.hpp"

namespace adasketch::driver {

namespace {

std::string what(const HyperparameterInfo& h) { return "option --" + std::string(h.option); }

// The integers of the table are ≥ 0 (ell, grid-rows); an int's also fits the grid code's int.
void read(const OptionParser& opts, const HyperparameterInfo& h, index_t& out) {
  const std::string name(h.option);
  out = opts.integer(name);
  if (out < 0) throw InvalidArgument(what(h) + ": must be ≥ 0, got " + opts.text(name));
}
void read(const OptionParser& opts, const HyperparameterInfo& h, int& out) {
  const std::string name(h.option);
  const std::int64_t v = opts.integer(name);
  constexpr std::int64_t kLargest = std::int64_t{1} << 30;
  if (v < 0) throw InvalidArgument(what(h) + ": must be ≥ 0, got " + opts.text(name));
  if (v > kLargest) throw InvalidArgument(what(h) + ": must be ≤ " + number_text(kLargest) + ", got " + opts.text(name));
  out = static_cast<int>(v);
}
void read(const OptionParser& opts, const HyperparameterInfo& h, double& out) { out = opts.real(std::string(h.option)); }
void read(const OptionParser& opts, const HyperparameterInfo& h, std::uint64_t& out) {
  out = opts.unsigned_integer(std::string(h.option));
}
void read(const OptionParser& opts, const HyperparameterInfo& h, bool& out) { out = opts.flag_set(std::string(h.option)); }
template <class Enum>
  requires std::is_enum_v<Enum>  // a choice, named by its text
void read(const OptionParser& opts, const HyperparameterInfo& h, Enum& out) {
  try {
    out = from_string<Enum>(opts.text(std::string(h.option)));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(what(h) + ": " + e.what());
  }
}
// "1,0.5,0.25" → {1, 0.5, 0.25}; "" → {}.
void read(const OptionParser& opts, const HyperparameterInfo& h, std::vector<double>& out) {
  const std::string text = opts.text(std::string(h.option));
  out.clear();
  if (text.empty()) return;
  for (std::size_t at = 0;;) {
    const std::size_t comma = text.find(',', at);
    const std::size_t length = comma == std::string::npos ? std::string::npos : comma - at;
    out.push_back(parse_number<double>(text.substr(at, length), what(h)));
    if (comma == std::string::npos) return;
    at = comma + 1;
  }
}

}  // namespace

void add_hyperparameter_options(OptionParser& parser) {
  const LearnerSpec defaults;
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, const auto& value) {
        using T = std::decay_t<decltype(value)>;
        std::string name(h.option), help(h.help);
        if constexpr (std::is_same_v<T, bool>)
          parser.flag(name, help);
        else if constexpr (std::is_same_v<T, std::vector<double>>)
          parser.optional(name, std::string(h.value_name), help);
        else
          parser.optional(name, option_type_of<T>, std::string(h.value_name), hyperparameter_text(value), help);
      },
      defaults);
}

void read_hyperparameter_options(const OptionParser& opts, LearnerSpec& spec) {
  for_each_hyperparameter([&](const HyperparameterInfo& h, auto& field) { read(opts, h, field); }, spec);
}

void default_hyperparameter_options(OptionParser& opts, const LearnerSpec& saved, int ranks) {
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, const auto& value) {
        const std::string text = hyperparameter_text(value);
        if (h.kind == HyperparameterKind::list && text.empty()) return;  // none saved: the option stays absent
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, int>)
          if (h.role == HyperparameterRole::layout && !(value > 0 && ranks % value == 0)) return;
        opts.set_default(std::string(h.option), text);
      },
      saved);
}

std::string option_of_field(std::string_view field) {
  if (field == "algorithm") return "algo";
  // (A view, copied once: GCC 12 warns falsely (-Wrestrict) on a std::string assigned in the loop.)
  std::string_view option = field;
  const LearnerSpec any;
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, const auto&) {
        if (h.member == field) option = h.option;
      },
      any);
  return std::string(option);
}

}  // namespace adasketch::driver
