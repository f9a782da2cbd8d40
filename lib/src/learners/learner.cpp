#include "adasketch/learners/learner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
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
}  // namespace

namespace {
constexpr detail::EnumNames<EtaSchedule, 3> kScheduleNames{
    {{EtaSchedule::constant, "constant"}, {EtaSchedule::inv_t, "inv-t"}, {EtaSchedule::inv_sqrt_t, "inv-sqrt-t"}}};
}  // namespace

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

Learner::Learner(const Communicator& comm, const BlockPartition& partition, const Loss& loss)
    : comm_(comm), partition_(partition), loss_(loss) {
  partition.require_parts_for(comm);
  const index_t dim = partition.dim();
  // Learners store d_p × K weights (and a few such arrays): d·K must not overflow. Beyond
  // std::vector's limit, throw what the vector itself would throw for the exact size.
  if (dim > kMaxEntries / loss.outputs())
    throw std::length_error("d × K = " + number_text(dim) + " × " + number_text(loss.outputs()) +
                            " weights: more than memory can address");
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
  StepResult r;
  try {
    r = do_step(x, label);
  } catch (const NumericError& e) {  // raised on reduced values, so on every rank together
    throw NumericError(non_finite_diagnosis(x, e.what()));
  }
  if (!std::isfinite(r.loss))  // e.g. a squared loss overflowing at a finite, huge score
    throw NumericError(non_finite_diagnosis(x, name() + ": the loss is not finite"));
  ++steps_;
  return r;
}

void Learner::state_fields(StateFields& fields) {
  fields.integer("learner.steps", steps_);
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
