#pragma once
// Between LearnerSpec and a family's options struct: the hyperparameter table's rows that the struct
// has as fields (its ADASKETCH_OPTIONS_FIELDS), copied one way in make_learner and the other in spec(),
// and checked against the table's ranges by the family's constructor.
#include <string>
#include <string_view>

#include "adasketch/error.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch::detail {

/// `options` with every table field it has set from `spec`; its other settings as given.
template <class Options>
Options options_from_spec(const LearnerSpec& spec, Options options = {}) {
#define ADASKETCH_FROM_SPEC(kind, type, member, ...) \
  if constexpr (requires { options.member; }) options.member = spec.member;
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_FROM_SPEC)
#undef ADASKETCH_FROM_SPEC
  return options;
}

/// The spec of `learner` built with `options`: its name, loss and K (softmax), every table field the
/// options have and the base's divergence limit; the rest at the table's defaults.
template <class Options>
LearnerSpec spec_from_options(const Learner& learner, const Options& options) {
  LearnerSpec spec;
  spec.algorithm = learner.name();
  spec.loss = learner.loss().kind();
  if (spec.loss == LossKind::softmax) spec.classes = learner.outputs();
#define ADASKETCH_TO_SPEC(kind, type, member, ...) \
  if constexpr (requires { options.member; }) spec.member = options.member;
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_TO_SPEC)
#undef ADASKETCH_TO_SPEC
  spec.divergence = learner.divergence();  // the base's, not a family's
  return spec;
}

/// `options` relative to the data's scale (ScaleRule::first_example; docs/design.md §2, "The data's
/// scale"). Under x → cx the weights that give the same scores are W/c: the AdaGrad families' steps
/// η H⁻¹g keep that with η/r and δ·r (H ∝ the gradients' scale), their composite terms with λ₁·r and
/// λ₂·r²; the Newton families' A = αI + Σ g gᵀ with α·‖x‖², or, rescaled (diag_rescale), D₁·r², which
/// makes the rescaled examples scale-free. Everything else is scale-free.
/// Unmeasured (sum_squares 0): `options` as they are.
template <class Options>
Options at_data_scale(Options options, const DataScale& scale) {
  if (scale.sum_squares == 0.0) return options;
  const double r = scale.rms();
  if constexpr (requires { options.delta; }) {  // D, A, C, F: the AdaGrad families
    options.eta /= r;
    options.delta *= r;
    if constexpr (requires { options.lambda1; }) {
      options.lambda1 *= r;
      options.lambda2 *= r * r;
    }
  }
  if constexpr (requires { options.alpha0; }) {  // N, O: SON, FULL-ON
    if (options.diag_rescale)
      options.rescale_d1 *= r * r;  // D = D₁ + diag(Σgg) ∝ c²: the learner sees D^{-1/2}x, scale-free, and α as given
    else
      options.alpha0 *= scale.sum_squares;
  }
  return options;
}

/// Checks every table field `options` has against its row's range. Throws InvalidArgument
/// "WHO: member must be RANGE, got VALUE" for the first one outside it.
template <class Options>
void check_hyperparameters(const Options& options, std::string_view who) {
#define ADASKETCH_CHECK_RANGE(kind, type, member, option, value, role, readers, value_name, range, ...)              \
  if constexpr (requires { options.member; })                                                                        \
    if (!in_range(HyperparameterRange::range, options.member))                                                       \
      throw InvalidArgument(std::string(who) + ": " #member " must be " +                                           \
                            std::string(range_text(HyperparameterRange::range)) + ", got " +                         \
                            hyperparameter_text(options.member));
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_CHECK_RANGE)
#undef ADASKETCH_CHECK_RANGE
}

}  // namespace adasketch::detail
