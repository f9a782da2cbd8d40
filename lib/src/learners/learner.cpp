#include "adasketch/learners/learner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "../enum_names.hpp"
#include "adasketch/error.hpp"

namespace adasketch {

namespace {
constexpr index_t kMaxEntries = PTRDIFF_MAX / sizeof(double);  // std::vector<double>'s limit

// Four significant digits, for the measured numbers of a message.
std::string short_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}
}  // namespace

namespace {
constexpr detail::EnumNames<EtaSchedule, 3> kScheduleNames{
    {{EtaSchedule::constant, "constant"}, {EtaSchedule::inv_t, "inv-t"}, {EtaSchedule::inv_sqrt_t, "inv-sqrt-t"}}};
}  // namespace

namespace {
constexpr detail::EnumNames<ScaleRule, 2> kScaleNames{{{ScaleRule::first_example, "first-example"}, {ScaleRule::none, "none"}}};
}  // namespace

std::string to_string(ScaleRule rule) { return detail::name_of(kScaleNames, rule); }

template <>
ScaleRule from_string<ScaleRule>(std::string_view text) {
  return detail::value_named(kScaleNames, text, "scale rule");
}

double DataScale::rms() const noexcept { return std::sqrt(sum_squares / nonzeros); }

std::string to_string(EtaSchedule schedule) { return detail::name_of(kScheduleNames, schedule); }

template <>
EtaSchedule from_string<EtaSchedule>(std::string_view text) {
  return detail::value_named(kScheduleNames, text, "eta schedule");
}

std::string_view range_text(HyperparameterRange range) noexcept {
  switch (range) {
    case HyperparameterRange::any: break;
    case HyperparameterRange::non_negative: return ">= 0";
    case HyperparameterRange::positive: return "> 0";
    case HyperparameterRange::normal_positive: return "finite and at least 2.2e-308 (a positive normal number)";
    case HyperparameterRange::unit_interval: return "in (0, 1]";
  }
  return "any value";
}

bool in_range(HyperparameterRange range, double value) noexcept {
  switch (range) {
    case HyperparameterRange::any: break;
    case HyperparameterRange::non_negative: return std::isfinite(value) && value >= 0.0;
    case HyperparameterRange::positive: return value > 0.0;  // +∞ allowed, NaN refused
    case HyperparameterRange::normal_positive: return std::isfinite(value) && value >= std::numeric_limits<double>::min();
    case HyperparameterRange::unit_interval: return value > 0.0 && value <= 1.0;
  }
  return true;
}
bool in_range(HyperparameterRange range, std::int64_t value) noexcept {
  return range == HyperparameterRange::any || in_range(range, static_cast<double>(value));
}
bool in_range(HyperparameterRange range, int value) noexcept { return in_range(range, std::int64_t{value}); }
bool in_range(HyperparameterRange range, std::uint64_t value) noexcept {
  return range == HyperparameterRange::any || in_range(range, static_cast<double>(value));
}
bool in_range(HyperparameterRange range, const std::vector<double>& values) noexcept {
  return std::all_of(values.begin(), values.end(), [&](double v) { return in_range(range, v); });
}

std::string hyperparameter_text(double value) { return number_text(value); }
std::string hyperparameter_text(index_t value) { return number_text(value); }
std::string hyperparameter_text(int value) { return number_text(value); }
std::string hyperparameter_text(std::uint64_t value) { return number_text(value); }
std::string hyperparameter_text(bool value) { return value ? "true" : "false"; }
std::string hyperparameter_text(EtaSchedule value) { return to_string(value); }
std::string hyperparameter_text(FormChoice value) { return to_string(value); }
std::string hyperparameter_text(ScaleRule value) { return to_string(value); }
std::string hyperparameter_text(const std::vector<double>& values) {
  std::string out;  // "1,0.5,0.25", or "" for none
  for (const double v : values) {
    if (!out.empty()) out += ',';
    append_number_text(out, v);
  }
  return out;
}

namespace {

template <class T>
bool parse_number(std::string_view text, T& value) {
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && at == end;
}

template <class Enum>
bool parse_choice(std::string_view text, Enum& value) {
  try {
    value = from_string<Enum>(text);
    return true;
  } catch (const InvalidArgument&) {
    return false;
  }
}

}  // namespace

bool parse_hyperparameter(std::string_view text, double& value) { return parse_number(text, value); }
bool parse_hyperparameter(std::string_view text, index_t& value) { return parse_number(text, value); }
bool parse_hyperparameter(std::string_view text, int& value) { return parse_number(text, value); }
bool parse_hyperparameter(std::string_view text, std::uint64_t& value) { return parse_number(text, value); }
bool parse_hyperparameter(std::string_view text, bool& value) {
  value = text == "true";
  return value || text == "false";
}
bool parse_hyperparameter(std::string_view text, EtaSchedule& value) { return parse_choice(text, value); }
bool parse_hyperparameter(std::string_view text, FormChoice& value) { return parse_choice(text, value); }
bool parse_hyperparameter(std::string_view text, ScaleRule& value) { return parse_choice(text, value); }
bool parse_hyperparameter(std::string_view text, std::vector<double>& values) {
  values.clear();
  if (text.empty()) return true;
  for (std::size_t at = 0;;) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (!parse_number(text.substr(at, comma - at), values.emplace_back())) return false;
    if (comma == text.size()) return true;
    at = comma + 1;
  }
}

void set_hyperparameter(LearnerSpec& spec, std::string_view member, std::string_view value) {
  const auto bad = [&] {
    return InvalidArgument("hyperparameter " + std::string(member) + ": '" + std::string(value) + "' is not a value of it");
  };
  if (member == "classes") {
    if (!parse_hyperparameter(value, spec.classes)) throw bad();
    return;
  }
  bool known = false;
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, auto& field) {
        if (h.member != member) return;
        known = true;
        if (!parse_hyperparameter(value, field)) throw bad();
      },
      spec);
  if (known) return;
  std::string names = "classes";
  for_each_hyperparameter([&](const HyperparameterInfo& h, const auto&) { names.append(", ").append(h.member); },
                          std::as_const(spec));
  throw InvalidArgument("unknown hyperparameter '" + std::string(member) + "' (expected one of " + names + ")");
}

double scheduled_eta(EtaSchedule schedule, double eta, index_t t) noexcept {
  const double tt = static_cast<double>(std::max<index_t>(t, 1));
  switch (schedule) {
    case EtaSchedule::constant: return eta;
    case EtaSchedule::inv_t: return eta / tt;
    case EtaSchedule::inv_sqrt_t: return eta / std::sqrt(tt);
  }
  return eta;
}

Learner::Learner(const Communicator& comm, const BlockPartition& partition, const Loss& loss, ScaleRule scale)
    : comm_(comm), partition_(partition), loss_(loss), scale_rule_(scale) {
  partition.require_parts_for(comm);
  const index_t dim = partition.dim();
  // Learners store d_p × K weights (and a few such arrays): d·K must not overflow. Beyond
  // std::vector's limit, throw what the vector itself would throw for the exact size.
  if (dim > kMaxEntries / loss.outputs())
    throw std::length_error("d × K = " + number_text(dim) + " × " + number_text(loss.outputs()) +
                            " weights: more than memory can address");
  scores_.assign(static_cast<std::size_t>(loss.outputs()), 0.0);  // (no allocation in a step)
  if (loss.is_classification())  // ℓ(0, y) is the same for every label: log 2, 1, ½ or log K
    classifier_zero_loss_ = loss.value(scores_, loss.kind() == LossKind::softmax ? 0.0 : 1.0);
}

StepResult Learner::step(const LocalRow& x, double label) {
  if (!std::isfinite(label)) throw InvalidArgument(name() + ": label is not finite");
  if (loss_.kind() == LossKind::softmax) {
    if (label < 0 || label >= outputs() || label != std::floor(label))
      throw InvalidArgument(name() + ": softmax label must be an integer in [0, " + number_text(outputs()) +
                            "), got " + number_text(label));
  } else if (loss_.is_classification() && label != 1.0 && label != -1.0) {
    throw InvalidArgument(name() + ": binary label must be -1 or +1, got " + number_text(label));
  }
  if (scale_rule_ == ScaleRule::first_example && scale_.sum_squares == 0.0) measure_scale(x);
  const double model_loss = sampled_model_loss(x, label);  // w_t's own score, before the step
  StepResult r;
  try {
    r = do_step(x, label);
  } catch (const NumericError& e) {  // raised on reduced values, so on every rank together
    throw NumericError(non_finite_diagnosis(x, e.what()));
  }
  if (!std::isfinite(r.loss))  // e.g. a squared loss overflowing at a finite, huge score
    throw NumericError(non_finite_diagnosis(x, name() + ": the loss is not finite"));
  ++steps_;
  check_divergence(r, label, model_loss);
  return r;
}

void Learner::set_divergence(double limit) {
  if (!in_range(HyperparameterRange::non_negative, limit))
    throw InvalidArgument(name() + ": divergence must be " + std::string(range_text(HyperparameterRange::non_negative)) +
                          ", got " + number_text(limit));
  divergence_ = limit;
}

// ScaleRule::first_example (docs/design.md §2, "The data's scale"): ‖x‖² and the nonzero count of the
// whole example, one Allreduce; the first example with ‖x‖ > 0 sets the scale. The sums are reduced
// values, so every rank decides alike.
void Learner::measure_scale(const LocalRow& x) {
  double sums[3] = {0.0, 0.0, 0.0};  // ‖x‖², nonzeros, non-finite values
  for (const double v : x.values())
    if (!std::isfinite(v)) {
      sums[2] += 1.0;
    } else if (v != 0.0) {
      sums[0] += v * v;
      sums[1] += 1.0;
    }
  comm_.allreduce_sum(std::span<double>(sums));
  if (sums[2] > 0.0 || sums[0] == 0.0) return;  // (a non-finite value is step()'s to report)
  if (!std::isfinite(sums[0]) || sums[0] < std::numeric_limits<double>::min())
    throw NumericError(name() + ": the first example with a nonzero norm has ‖x‖² = " + number_text(sums[0]) +
                       ", outside the normal numbers: the scale rule cannot take the step sizes relative to it "
                       "(rescale the data, or set scale none)");
  scale_ = DataScale{sums[0], sums[1]};
  on_data_scale(scale_);
}

void Learner::restore_data_scale(const SavedField<double>& saved_real) {
  scale_ = DataScale{saved_real("learner.scale.sum_squares"), saved_real("learner.scale.nonzeros")};
  on_data_scale(scale_);  // (unmeasured: the settings as given)
}

// The loss of the model's own scores Wᵀx on every divergence_sample-th example (what `predict` would
// score; a SON learner's online score is projected onto |wᵀx| ≤ C and hides a blow-up of W), or 0.
// Collective on those examples: one Allreduce of K numbers; const, so no later round-off changes.
// Other learners predict with W itself: their online loss is this loss.
double Learner::sampled_model_loss(const LocalRow& x, double label) const {
  if (divergence_ == 0.0 || (steps_ + 1) % defaults::divergence_sample != 0 || !predicts_projected()) return 0.0;
  predict(x, scores_);
  const double value = loss_.value(scores_, label);
  if (!std::isfinite(value)) throw NumericError(non_finite_diagnosis(x, name() + ": the model's score is not finite"));
  return value;
}

// Divergence (docs/design.md §2): over a window of examples, the mean loss against that of the zero
// predictor W = 0 on the same examples, ℓ(0, y) (log 2 logistic, 1 hinge, ½ squared hinge, log K
// softmax, y² squared, |y| absolute), where every learner starts: a ratio that needs no scale of the
// data. The losses are reduced values, so every rank decides alike.
void Learner::check_divergence(const StepResult& r, double label, double model_loss) {
  if (divergence_ == 0.0) return;
  const double zero_score[1] = {0.0};  // a regression's one score
  const double zero = loss_.is_classification() ? classifier_zero_loss_ : loss_.value(zero_score, label);
  window_.loss += r.loss;
  window_.zero_loss += zero;
  if (steps_ % defaults::divergence_sample == 0 && predicts_projected()) {
    window_.model_loss += model_loss;
    window_.model_zero_loss += zero;
  }
  if (steps_ % defaults::divergence_window != 0) return;
  const DivergenceWindow w = std::exchange(window_, DivergenceWindow{});
  const bool online = w.zero_loss > 0.0 && w.loss > divergence_ * w.zero_loss;
  const bool model = w.model_zero_loss > 0.0 && w.model_loss > divergence_ * w.model_zero_loss;
  if (!online && !model) return;
  const index_t n = online ? defaults::divergence_window : defaults::divergence_window / defaults::divergence_sample;
  const double loss = online ? w.loss : w.model_loss, zero_loss = online ? w.zero_loss : w.model_zero_loss;
  // What to change: SON's steps are A⁻¹g with A ⪰ αI (α larger, steps shorter); AdaGrad's are η H⁻¹g.
  const LearnerSpec s = spec();
  const bool newton = s.algorithm.ends_with("-son") || s.algorithm == "full-on";
  const std::string advice = newton ? "raise alpha0 (now " + number_text(s.alpha0) + ")"
                                    : "lower eta (now " + number_text(s.eta) + ")";
  throw LossDivergenceError(
      name() + ": diverged: over steps " + number_text(steps_ - defaults::divergence_window + 1) + "-" +
          number_text(steps_) +
          (online ? ", the mean online loss "
                  : ", the mean loss of the model's own scores (every " + number_text(defaults::divergence_sample) +
                        "th step) ") +
          short_text(loss / static_cast<double>(n)) + " is " + short_text(loss / zero_loss) + " times the zero predictor's " +
          short_text(zero_loss / static_cast<double>(n)) + " (limit: divergence " + number_text(divergence_) + "); " + advice +
          ", or set divergence 0 to train on",
      steps_);
}

void Learner::state_fields(StateFields& fields) {
  fields.integer("learner.steps", steps_);
  fields.real("learner.div.loss", window_.loss);
  fields.real("learner.div.zero", window_.zero_loss);
  fields.real("learner.div.model", window_.model_loss);
  fields.real("learner.div.model_zero", window_.model_zero_loss);
  fields.real("learner.scale.sum_squares", scale_.sum_squares);
  fields.real("learner.scale.nonzeros", scale_.nonzeros);
  add_state_fields(fields);
}

// Collective: tells a non-finite input value apart from diverged weights, so the message says what
// to change.
std::string Learner::non_finite_diagnosis(const LocalRow& x, const std::string& what) const {
  const auto v = x.values();
  const bool local_bad = std::any_of(v.begin(), v.end(), [](double a) { return !std::isfinite(a); });
  const std::string own = name() + ": ";
  const std::string where = own + "step " + number_text(steps_ + 1) + ": " + (what.starts_with(own) ? what.substr(own.size()) : what);
  if (comm_.allreduce_max(index_t{local_bad ? 1 : 0}) != 0) return where + ": the example has a non-finite feature value";
  return where + " although the example is finite: the model diverged (lower the step size η, or raise δ or α)";
}

void Learner::predict(const LocalRow& x, std::span<double> scores) const {
  ADASKETCH_REQUIRE(static_cast<int>(scores.size()) >= outputs(), "scores.size() = " + number_text(scores.size()));
  std::fill(scores.begin(), scores.begin() + outputs(), 0.0);
  add_local_scores(x, scores.first(static_cast<std::size_t>(outputs())));
  comm_.allreduce_sum(scores.first(static_cast<std::size_t>(outputs())));
}

}  // namespace adasketch
