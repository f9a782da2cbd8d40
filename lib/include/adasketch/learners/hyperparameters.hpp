#pragma once
/// @file
/// The C++ side of the hyperparameter table (adasketch/learners/hyperparameter_table.h, which
/// declares each hyperparameter once): its rows as HyperparameterInfo, and for_each_hyperparameter.
/// From the table derive LearnerSpec and its defaults, `train`'s options, --help, config keys, a
/// checkpoint's spec block and reading its options back as defaults, spec_differences, the options
/// line of `train`, the Python keywords, the C adasketch_spec and its conversions, and the settings
/// text of the C and Fortran interfaces.
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "adasketch/learners/hyperparameter_table.h"

namespace adasketch {

/// How a hyperparameter is written: a number, an enum's name, a switch, or a list of numbers.
enum class HyperparameterKind { number, choice, flag, list };
/// learner: part of what a resumed run must match; layout: how the run is laid out (may change).
enum class HyperparameterRole { learner, layout };
/// The values a hyperparameter takes with every learner that reads it (the table's range column; a
/// family may ask for more): anything; finite and ≥ 0; > 0 (+∞ allowed); a positive normal number;
/// in (0, 1] (each value of a list).
enum class HyperparameterRange { any, non_negative, positive, normal_positive, unit_interval };

/// The range as messages write it, e.g. ">= 0".
std::string_view range_text(HyperparameterRange range) noexcept;
/// Whether `value` lies in `range` (a list: each of its values; an enum or switch: always).
///@{
bool in_range(HyperparameterRange range, double value) noexcept;
bool in_range(HyperparameterRange range, std::int64_t value) noexcept;
bool in_range(HyperparameterRange range, int value) noexcept;
bool in_range(HyperparameterRange range, std::uint64_t value) noexcept;
bool in_range(HyperparameterRange range, const std::vector<double>& values) noexcept;
template <class Choice>
bool in_range(HyperparameterRange, const Choice&) noexcept {
  static_assert(std::is_enum_v<Choice> || std::is_same_v<Choice, bool>,
                "a table row of another type needs its own in_range overload");
  return true;
}
///@}

/// One row of ADASKETCH_HYPERPARAMETERS, without its type and default.
struct HyperparameterInfo {
  std::string_view member;      ///< LearnerSpec's field, the Python keyword
  std::string_view option;      ///< `train --option`, the config-file key
  HyperparameterKind kind;      ///< number, choice, flag or list
  HyperparameterRole role;      ///< learner or layout
  std::string_view value_name;  ///< --help's placeholder
  HyperparameterRange range;    ///< the values every learner that reads it accepts
  std::string_view symbol;      ///< the papers' symbol
  std::string_view help;        ///< one line: what it does, which learners read it
};

/// Calls f(info, spec.member...) for every hyperparameter in table order, with the same field of
/// each of the specs (one spec to read or set them, two to compare).
template <class F, class... Specs>
void for_each_hyperparameter(F&& f, Specs&... specs) {
#define ADASKETCH_VISIT_HYPERPARAMETER(kind, type, member, option, value, role, readers, value_name, range, symbol,  \
                                       help)                                                                      \
  f(HyperparameterInfo{#member, option, HyperparameterKind::kind, HyperparameterRole::role, value_name,          \
                       HyperparameterRange::range, symbol, help},                                                 \
    specs.member...);
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_VISIT_HYPERPARAMETER)
#undef ADASKETCH_VISIT_HYPERPARAMETER
}

}  // namespace adasketch

/// In an options struct: one field per row of the hyperparameter table whose readers column names
/// `family` (D, A, N, C, F or O: hyperparameter_table.h), with the table's type, member name and
/// default, in table order.
#define ADASKETCH_OPTIONS_FIELDS(family) ADASKETCH_HYPERPARAMETERS(ADASKETCH_OPTIONS_FIELD_##family)

/// @cond ADASKETCH_TABLE_EXPANSION
// A row's field for one family: the readers tuple's entry for that family is its letter or `_`, and
// ADASKETCH_FIELD_WHEN_<entry> keeps or drops the declaration.
#define ADASKETCH_READER_D(d, a, n, c, f, o) d
#define ADASKETCH_READER_A(d, a, n, c, f, o) a
#define ADASKETCH_READER_N(d, a, n, c, f, o) n
#define ADASKETCH_READER_C(d, a, n, c, f, o) c
#define ADASKETCH_READER_F(d, a, n, c, f, o) f
#define ADASKETCH_READER_O(d, a, n, c, f, o) o
#define ADASKETCH_FIELD_WHEN(entry, ...) ADASKETCH_FIELD_WHEN_I(entry, __VA_ARGS__)
#define ADASKETCH_FIELD_WHEN_I(entry, ...) ADASKETCH_FIELD_WHEN_##entry(__VA_ARGS__)
#define ADASKETCH_FIELD_WHEN_D(...) __VA_ARGS__
#define ADASKETCH_FIELD_WHEN_A(...) __VA_ARGS__
#define ADASKETCH_FIELD_WHEN_N(...) __VA_ARGS__
#define ADASKETCH_FIELD_WHEN_C(...) __VA_ARGS__
#define ADASKETCH_FIELD_WHEN_F(...) __VA_ARGS__
#define ADASKETCH_FIELD_WHEN_O(...) __VA_ARGS__
#define ADASKETCH_FIELD_WHEN__(...)
#define ADASKETCH_OPTIONS_FIELD(family, type, member, value, readers) \
  ADASKETCH_FIELD_WHEN(ADASKETCH_READER_##family readers, type member = value;)
#define ADASKETCH_OPTIONS_FIELD_D(kind, type, member, option, value, role, readers, ...) \
  ADASKETCH_OPTIONS_FIELD(D, type, member, value, readers)
#define ADASKETCH_OPTIONS_FIELD_A(kind, type, member, option, value, role, readers, ...) \
  ADASKETCH_OPTIONS_FIELD(A, type, member, value, readers)
#define ADASKETCH_OPTIONS_FIELD_N(kind, type, member, option, value, role, readers, ...) \
  ADASKETCH_OPTIONS_FIELD(N, type, member, value, readers)
#define ADASKETCH_OPTIONS_FIELD_C(kind, type, member, option, value, role, readers, ...) \
  ADASKETCH_OPTIONS_FIELD(C, type, member, value, readers)
#define ADASKETCH_OPTIONS_FIELD_F(kind, type, member, option, value, role, readers, ...) \
  ADASKETCH_OPTIONS_FIELD(F, type, member, value, readers)
#define ADASKETCH_OPTIONS_FIELD_O(kind, type, member, option, value, role, readers, ...) \
  ADASKETCH_OPTIONS_FIELD(O, type, member, value, readers)
/// @endcond
