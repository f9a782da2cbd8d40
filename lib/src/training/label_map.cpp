#include "adasketch/training/label_map.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <utility>

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

// "{2,5,7}"; a long list shows its first 8 values and the count.
std::string values_text(std::span<const double> v) {
  std::string text = "{";
  for (std::size_t i = 0; i < v.size() && i < 8; ++i) {
    if (i > 0) text += ',';
    text += label_text(v[i]);
  }
  if (v.size() > 8) text += ",... (" + number_text(v.size()) + " values)";
  text += '}';
  return text;
}

bool all_in(std::span<const double> v, std::initializer_list<double> set) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return std::find(set.begin(), set.end(), x) != set.end(); });
}

// Whether v is first, first + 1, ..., first + size − 1.
bool consecutive_from(std::span<const double> v, double first) {
  for (std::size_t k = 0; k < v.size(); ++k)
    if (v[k] != first + static_cast<double>(k)) return false;
  return true;
}

bool listed(LabelMap::Kind kind) {
  return kind == LabelMap::Kind::two_values || kind == LabelMap::Kind::listed_classes;
}

}  // namespace

LabelMap::LabelMap(Kind kind, int classes) : kind_(kind), classes_(classes) {
  const bool multiclass = kind == Kind::classes_from_zero || kind == Kind::classes_from_one;
  ADASKETCH_REQUIRE(!multiclass || classes >= 2, "classes = " + number_text(classes));
  ADASKETCH_REQUIRE(!listed(kind), "label map kind " + number_text(static_cast<int>(kind)) + " needs its values");
  if (!multiclass) classes_ = kind == Kind::real ? 1 : 2;
}

LabelMap::LabelMap(Kind kind, std::vector<double> values)
    : kind_(kind), classes_(static_cast<int>(values.size())), values_(std::move(values)) {
  ADASKETCH_REQUIRE(listed(kind), "label map kind " + number_text(static_cast<int>(kind)) + " takes no values");
  const std::size_t n = values_.size();
  ADASKETCH_REQUIRE(kind == Kind::two_values ? n == 2 : n >= 2 && n <= kMaxValues,
                    number_text(n) + " label values for kind " + number_text(static_cast<int>(kind)));
  for (std::size_t k = 0; k < n; ++k)
    ADASKETCH_REQUIRE(std::isfinite(values_[k]) && (k == 0 || values_[k - 1] < values_[k]),
                      "label values must be finite and strictly ascending");
}

LabelMap LabelMap::of_values(const Loss& loss, std::span<const double> v, const std::string& file) {
  if (!loss.is_classification()) return LabelMap(Kind::real);
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (!std::isfinite(v[k])) throw InputError(file, 0, "label " + label_text(v[k]) + " is not finite");
    ADASKETCH_REQUIRE(k == 0 || v[k - 1] < v[k], "the label values must be strictly ascending");
  }
  const std::string seen = "the training labels are " + values_text(v);
  if (v.empty()) throw InputError(file, 0, "no labels");
  if (loss.kind() != LossKind::softmax) {
    if (all_in(v, {-1.0, 1.0})) return LabelMap(Kind::plus_minus_one);
    if (all_in(v, {0.0, 1.0})) return LabelMap(Kind::zero_one);
    if (all_in(v, {1.0, 2.0})) return LabelMap(Kind::one_two);
    if (v.size() == 2) return LabelMap(Kind::two_values, {v[0], v[1]});
    throw InputError(file, 0, "the " + loss.name() + " loss needs two distinct label values; " + seen);
  }
  if (v.size() > kMaxValues)
    throw InputError(file, 0, "softmax takes at most " + number_text(kMaxValues) + " distinct labels; " + seen);
  const int K = std::max(2, static_cast<int>(v.size()));
  if (consecutive_from(v, 0.0)) return LabelMap(Kind::classes_from_zero, K);
  if (consecutive_from(v, 1.0)) return LabelMap(Kind::classes_from_one, K);
  if (v.size() == 1) throw InputError(file, 0, "softmax needs at least two distinct labels; " + seen);
  return LabelMap(Kind::listed_classes, std::vector<double>(v.begin(), v.end()));
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
  if (code > static_cast<std::uint32_t>(Kind::listed_classes)) return false;
  kind = static_cast<Kind>(code);
  return true;
}

bool LabelMap::fits(const Loss& loss) const noexcept {
  switch (kind_) {
    case Kind::real: return !loss.is_classification();
    case Kind::plus_minus_one:
    case Kind::zero_one:
    case Kind::one_two:
    case Kind::two_values: return loss.is_classification() && loss.kind() != LossKind::softmax;
    case Kind::classes_from_zero:
    case Kind::classes_from_one:
    case Kind::listed_classes: return loss.kind() == LossKind::softmax && loss.outputs() == classes_;
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
    case Kind::two_values:
      if (raw == values_[0] || raw == values_[1]) return raw == values_[0] ? -1.0 : 1.0;
      break;
    case Kind::listed_classes:
      if (const auto at = std::lower_bound(values_.begin(), values_.end(), raw); at != values_.end() && *at == raw)
        return static_cast<double>(at - values_.begin());
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
    case Kind::classes_from_zero: return "0.." + number_text(classes_ - 1) + " as is";
    case Kind::classes_from_one:
      return "1.." + number_text(classes_) + " -> 0.." + number_text(classes_ - 1);
    case Kind::two_values: return values_text(values_) + " -> {-1,+1}";
    case Kind::listed_classes: return values_text(values_) + " -> 0.." + number_text(classes_ - 1);
  }
  return "";
}

double LabelMap::original(double mapped) const noexcept {
  switch (kind_) {
    case Kind::real:
    case Kind::plus_minus_one:
    case Kind::classes_from_zero: return mapped;
    case Kind::zero_one: return (mapped + 1.0) / 2.0;
    case Kind::one_two: return (mapped + 3.0) / 2.0;
    case Kind::classes_from_one: return mapped + 1.0;
    case Kind::two_values: return mapped < 0.0 ? values_[0] : values_[1];
    case Kind::listed_classes: return values_[static_cast<std::size_t>(mapped)];
  }
  return mapped;
}

std::vector<double> agree_label_values(const Communicator& comm, std::vector<double> mine) {
  const auto tidy = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() > LabelMap::kMaxValues + 1) v.resize(LabelMap::kMaxValues + 1);
  };
  tidy(mine);
  std::vector<double> all;
  for (int root = 0; root < comm.size(); ++root) {  // each rank's values in turn (few: labels)
    std::array<index_t, 1> n{root == comm.rank() ? static_cast<index_t>(mine.size()) : 0};
    comm.broadcast(n, root);
    std::vector<double> part = root == comm.rank() ? mine : std::vector<double>(static_cast<std::size_t>(n[0]));
    comm.broadcast(part, root);
    all.insert(all.end(), part.begin(), part.end());
    tidy(all);
  }
  return all;
}

double predicted_label(const Loss& loss, const LabelMap& labels, std::span<const double> scores) {
  if (!loss.is_classification()) return scores[0];
  if (loss.kind() == LossKind::softmax)
    return labels.original(static_cast<double>(std::max_element(scores.begin(), scores.end()) - scores.begin()));
  return labels.original(scores[0] > 0.0 ? 1.0 : -1.0);
}

}  // namespace adasketch
