// adasketch_spec and settings text → LearnerRequest, and adasketch_spec_defaults.
#include "request.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "adasketch/error.hpp"
#include "adasketch/number_text.hpp"
#include "status.hpp"

namespace adasketch::capi {
namespace {

// A field of adasketch_spec (named as LearnerSpec's) as the hyperparameter's type: enums by name,
// switches as int, lists as a count and a pointer (copied).
void from_c(double c, double& out) { out = c; }
void from_c(int64_t c, index_t& out) { out = c; }
void from_c(int c, int& out) { out = c; }
void from_c(uint64_t c, std::uint64_t& out) { out = c; }
void from_c(int c, bool& out) { out = c != 0; }
template <class Enum>
void from_c(const char* c, Enum& out) {
  require_pointer(c, "a string of spec");
  out = from_string<Enum>(c);
}
void from_c(int64_t count, const double* c, std::vector<double>& out, const char* name) {
  if (count < 0 || (count > 0 && c == nullptr))
    throw InvalidArgument(std::string("spec: ") + name + "_count = " + number_text(count) + " with " + name + " " +
                          (c == nullptr ? "NULL" : "set"));
  out.assign(c, c + count);
}

// The request's bias and label map, checked; softmax's K becomes the labels' count.
LearnerRequest finished(LearnerSpec spec, double bias, const std::vector<double>& labels) {
  if (!(std::isfinite(bias) && bias >= 0.0)) throw InvalidArgument("bias must be >= 0 (0: none), got " + number_text(bias));
  const Loss loss(spec.loss, spec.classes);
  if (labels.empty()) return {spec, bias, LabelMap::of_loss(loss)};
  if (!loss.is_classification())
    throw InvalidArgument("labels: the " + to_string(spec.loss) + " loss takes its labels as they are");
  if (spec.loss != LossKind::softmax) {
    if (labels.size() != 2)
      throw InvalidArgument("labels: the " + to_string(spec.loss) + " loss takes 2 labels, got " +
                            number_text(labels.size()));
    return {spec, bias, LabelMap(LabelMap::Kind::two_values, labels)};
  }
  const auto k = static_cast<int>(std::min<std::size_t>(labels.size(), LabelMap::kMaxValues + 1));
  if (spec.classes != LearnerSpec{}.classes && spec.classes != k)
    throw InvalidArgument("labels: " + number_text(labels.size()) + " labels for classes = " + number_text(spec.classes));
  spec.classes = k;
  return {spec, bias, LabelMap(LabelMap::Kind::listed_classes, labels)};
}

}  // namespace

LearnerRequest request_of(const adasketch_spec* s) {
  require_pointer(s, "spec");
  for (const char* text : {s->algorithm, s->loss}) require_pointer(text, "a string of spec");
  LearnerSpec spec;
  spec.algorithm = s->algorithm;
  spec.loss = from_string<LossKind>(s->loss);
  spec.classes = s->classes;
#define ADASKETCH_FROM_C_number(member) from_c(s->member, spec.member);
#define ADASKETCH_FROM_C_choice(member) from_c(s->member, spec.member);
#define ADASKETCH_FROM_C_flag(member) from_c(s->member, spec.member);
#define ADASKETCH_FROM_C_list(member) from_c(s->member##_count, s->member, spec.member, #member);
#define ADASKETCH_FROM_C(kind, type, member, ...) ADASKETCH_FROM_C_##kind(member)
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_FROM_C)
#undef ADASKETCH_FROM_C
#undef ADASKETCH_FROM_C_list
#undef ADASKETCH_FROM_C_flag
#undef ADASKETCH_FROM_C_choice
#undef ADASKETCH_FROM_C_number
  std::vector<double> labels;
  from_c(s->labels_count, s->labels, labels, "labels");
  return finished(std::move(spec), s->bias, labels);
}

LearnerRequest request_of_settings(const char* algorithm, const char* loss, const char* settings) {
  require_pointer(algorithm, "algorithm");
  LearnerSpec spec;
  spec.algorithm = algorithm;
  if (loss != nullptr) spec.loss = from_string<LossKind>(loss);
  double bias = 0.0;
  std::vector<double> labels;
  std::vector<std::string_view> given;
  for (std::string_view text = settings != nullptr ? settings : ""; !text.empty();) {
    const std::size_t begin = text.find_first_not_of(" \t\n");
    if (begin == std::string_view::npos) break;
    text.remove_prefix(begin);
    const std::string_view pair = text.substr(0, text.find_first_of(" \t\n"));
    text.remove_prefix(pair.size());
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos)
      throw InvalidArgument("settings: '" + std::string(pair) + "' is not member=value");
    const std::string_view member = pair.substr(0, equals), value = pair.substr(equals + 1);
    if (std::find(given.begin(), given.end(), member) != given.end())
      throw InvalidArgument("settings: hyperparameter " + std::string(member) + " given twice");
    given.push_back(member);
    const auto bad = [&] { return InvalidArgument("settings: " + std::string(pair) + " is not a value of " + std::string(member)); };
    if (member == "bias") {
      if (!parse_hyperparameter(value, bias)) throw bad();
    } else if (member == "labels") {
      if (!parse_hyperparameter(value, labels)) throw bad();
    } else {
      set_hyperparameter(spec, member, value);
    }
  }
  return finished(std::move(spec), bias, labels);
}

}  // namespace adasketch::capi

extern "C" void adasketch_spec_defaults(adasketch_spec* spec) {
  using namespace adasketch;
  if (spec == nullptr) return;
  static const LearnerSpec d;  // it and these strings live as long as the program
  static const std::string loss = to_string(d.loss);
  *spec = adasketch_spec{};
  spec->algorithm = d.algorithm.c_str();
  spec->loss = loss.c_str();
  spec->classes = d.classes;
  spec->bias = 0.0;
  spec->labels_count = 0;
  spec->labels = nullptr;
#define ADASKETCH_TO_C_number(member) spec->member = d.member;
#define ADASKETCH_TO_C_choice(member)                                        \
  static const std::string member##_name = to_string(d.member);             \
  spec->member = member##_name.c_str();
#define ADASKETCH_TO_C_flag(member) spec->member = d.member ? 1 : 0;
#define ADASKETCH_TO_C_list(member)                                          \
  spec->member##_count = static_cast<int64_t>(d.member.size());              \
  spec->member = d.member.empty() ? nullptr : d.member.data();
#define ADASKETCH_TO_C(kind, type, member, ...) ADASKETCH_TO_C_##kind(member)
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_TO_C)
#undef ADASKETCH_TO_C
#undef ADASKETCH_TO_C_list
#undef ADASKETCH_TO_C_flag
#undef ADASKETCH_TO_C_choice
#undef ADASKETCH_TO_C_number
}
