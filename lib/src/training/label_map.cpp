#include "adasketch/training/label_map.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

namespace {

constexpr double kMaxClasses = 65536.0;

std::string label_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

bool is_class(double v, double lo, double hi) { return v >= lo && v <= hi && v == std::floor(v); }

}  // namespace

LabelMap::LabelMap(Kind kind, int classes) : kind_(kind), classes_(classes) {
  const bool multiclass = kind == Kind::classes_from_zero || kind == Kind::classes_from_one;
  ADASKETCH_REQUIRE(!multiclass || classes >= 2, "classes = " + std::to_string(classes));
  if (!multiclass) classes_ = kind == Kind::real ? 1 : 2;
}

LabelMap LabelMap::of_loss(const Loss& loss) {
  if (loss.kind() == LossKind::softmax) return LabelMap(Kind::classes_from_zero, loss.outputs());
  return LabelMap(loss.is_classification() ? Kind::plus_minus_one : Kind::real);
}

LabelMap LabelMap::infer(const Loss& loss, double label_min, double label_max) {
  if (!loss.is_classification()) return LabelMap(Kind::real);
  if (loss.kind() == LossKind::softmax)
    return LabelMap(label_min >= 1.0 ? Kind::classes_from_one : Kind::classes_from_zero, loss.outputs());
  if (label_min == 0.0) return LabelMap(Kind::zero_one);
  if (label_max == 2.0 && label_min >= 1.0) return LabelMap(Kind::one_two);
  return LabelMap(Kind::plus_minus_one);
}

int LabelMap::softmax_classes(const std::string& file, double label_min, double label_max, bool integral) {
  if (!integral || label_min < 0.0 || label_max > kMaxClasses)
    throw InputError(file, 0, "softmax needs class labels that are integers in [0, " + label_text(kMaxClasses) +
                                  "]; the labels range over [" + label_text(label_min) + ", " + label_text(label_max) +
                                  "]" + (integral ? "" : " and are not all integers"));
  const double k = label_min >= 1.0 ? label_max : label_max + 1.0;
  return k < 2.0 ? 2 : static_cast<int>(k);
}

bool LabelMap::kind_from_code(std::uint32_t code, Kind& kind) noexcept {
  if (code > static_cast<std::uint32_t>(Kind::classes_from_one)) return false;
  kind = static_cast<Kind>(code);
  return true;
}

bool LabelMap::fits(const Loss& loss) const noexcept {
  switch (kind_) {
    case Kind::real: return !loss.is_classification();
    case Kind::plus_minus_one:
    case Kind::zero_one:
    case Kind::one_two: return loss.is_classification() && loss.kind() != LossKind::softmax;
    case Kind::classes_from_zero:
    case Kind::classes_from_one: return loss.kind() == LossKind::softmax && loss.outputs() == classes_;
  }
  return false;
}

double LabelMap::apply(double raw, const std::string& file, index_t position) const {
  if (!std::isfinite(raw)) throw InputError(file, position, "label " + label_text(raw) + " is not finite");
  const double K = classes_;
  switch (kind_) {
    case Kind::real: return raw;
    case Kind::plus_minus_one:
      if (raw == 1.0 || raw == -1.0) return raw;
      break;
    case Kind::zero_one:
      if (raw == 0.0 || raw == 1.0) return 2.0 * raw - 1.0;
      break;
    case Kind::one_two:
      if (raw == 1.0 || raw == 2.0) return 2.0 * raw - 3.0;
      break;
    case Kind::classes_from_zero:
      if (is_class(raw, 0.0, K - 1.0)) return raw;
      break;
    case Kind::classes_from_one:
      if (is_class(raw, 1.0, K)) return raw - 1.0;
      break;
  }
  throw InputError(file, position, "label " + label_text(raw) + " is not covered by the label map " + describe() +
                                       " (chosen from the training labels)");
}

std::string LabelMap::describe() const {
  switch (kind_) {
    case Kind::real: return "real labels as is (regression)";
    case Kind::plus_minus_one: return "{-1,+1} as is";
    case Kind::zero_one: return "{0,1} -> {-1,+1}";
    case Kind::one_two: return "{1,2} -> {-1,+1}";
    case Kind::classes_from_zero: return "0.." + std::to_string(classes_ - 1) + " as is";
    case Kind::classes_from_one:
      return "1.." + std::to_string(classes_) + " -> 0.." + std::to_string(classes_ - 1);
  }
  return "";
}

}  // namespace adasketch
