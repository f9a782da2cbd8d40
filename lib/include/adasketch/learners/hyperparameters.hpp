#pragma once
/// @file
/// The C++ side of the hyperparameter table (adasketch/learners/hyperparameter_table.h, which
/// declares each hyperparameter once): its rows as HyperparameterInfo, and for_each_hyperparameter.
/// From the table derive LearnerSpec and its defaults, `train`'s options, --help, config keys, a
/// checkpoint's spec block and reading its options back as defaults, spec_differences, the options
/// line of `train`, the Python keywords, the C adasketch_spec and its conversions, and the settings
/// text of the C and Fortran interfaces.
#include <string_view>

#include "adasketch/learners/hyperparameter_table.h"

namespace adasketch {

/// How a hyperparameter is written: a number, an enum's name, a switch, or a list of numbers.
enum class HyperparameterKind { number, choice, flag, list };
/// learner: part of what a resumed run must match; layout: how the run is laid out (may change).
enum class HyperparameterRole { learner, layout };

/// One row of ADASKETCH_HYPERPARAMETERS, without its type and default.
struct HyperparameterInfo {
  std::string_view member;      ///< LearnerSpec's field, the Python keyword
  std::string_view option;      ///< `train --option`, the config-file key
  HyperparameterKind kind;      ///< number, choice, flag or list
  HyperparameterRole role;      ///< learner or layout
  std::string_view value_name;  ///< --help's placeholder
  std::string_view range;       ///< the values the learners accept
  std::string_view symbol;      ///< the papers' symbol
  std::string_view help;        ///< one line: what it does, which learners read it
};

/// Calls f(info, spec.member...) for every hyperparameter in table order, with the same field of
/// each of the specs (one spec to read or set them, two to compare).
template <class F, class... Specs>
void for_each_hyperparameter(F&& f, Specs&... specs) {
#define ADASKETCH_VISIT_HYPERPARAMETER(kind, type, member, option, value, role, value_name, range, symbol, help) \
  f(HyperparameterInfo{#member, option, HyperparameterKind::kind, HyperparameterRole::role, value_name, range,  \
                       symbol, help},                                                                            \
    specs.member...);
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_VISIT_HYPERPARAMETER)
#undef ADASKETCH_VISIT_HYPERPARAMETER
}

}  // namespace adasketch
