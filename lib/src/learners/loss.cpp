#include "adasketch/learners/loss.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>

#include "../enum_names.hpp"
#include "adasketch/error.hpp"

namespace adasketch {

namespace {

// log(1 + e^{−z}) without overflow or cancellation.
double log1p_exp_neg(double z) { return z > 0.0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z)); }

// 1/(1 + e^{z}), the logistic derivative's factor, without overflow.
double inv1p_exp(double z) {
  if (z > 0.0) {
    const double e = std::exp(-z);
    return e / (1.0 + e);
  }
  return 1.0 / (1.0 + std::exp(z));
}

double max_score(std::span<const double> p) { return *std::max_element(p.begin(), p.end()); }

// log Σ_k e^{p_k}, shifted by the largest score.
double log_sum_exp(std::span<const double> p) {
  const double m = max_score(p);
  double s = 0.0;
  for (double v : p) s += std::exp(v - m);
  return m + std::log(s);
}

}  // namespace

namespace {
constexpr detail::EnumNames<LossKind, 6> kLossNames{{{LossKind::squared, "squared"},
                                                     {LossKind::absolute, "absolute"},
                                                     {LossKind::logistic, "logistic"},
                                                     {LossKind::hinge, "hinge"},
                                                     {LossKind::squared_hinge, "squared-hinge"},
                                                     {LossKind::softmax, "softmax"}}};
}  // namespace

std::string to_string(LossKind kind) { return detail::name_of(kLossNames, kind); }

template <>
LossKind from_string<LossKind>(std::string_view text) {
  return detail::value_named(kLossNames, text, "loss");
}

Loss::Loss(LossKind kind, int classes) : kind_(kind), outputs_(1) {
  if (kind_ == LossKind::softmax) {
    ADASKETCH_REQUIRE(classes >= 2, "softmax classes = " + number_text(classes));
    outputs_ = classes;
  }
}

double Loss::value(std::span<const double> scores, double label) const {
  const double p = scores[0];
  switch (kind_) {
    case LossKind::squared: return (p - label) * (p - label);
    case LossKind::absolute: return std::abs(p - label);
    case LossKind::logistic: return log1p_exp_neg(label * p);
    case LossKind::hinge: return std::max(0.0, 1.0 - label * p);
    case LossKind::squared_hinge: {
      const double h = std::max(0.0, 1.0 - label * p);
      return 0.5 * h * h;
    }
    case LossKind::softmax:
      return log_sum_exp(scores.first(static_cast<std::size_t>(outputs_))) - scores[static_cast<std::size_t>(label)];
  }
  return 0.0;
}

void Loss::derivative(std::span<const double> scores, double label, std::span<double> dscores) const {
  const double p = scores[0];
  switch (kind_) {
    case LossKind::squared: dscores[0] = 2.0 * (p - label); return;
    case LossKind::absolute: dscores[0] = p > label ? 1.0 : (p < label ? -1.0 : 0.0); return;
    case LossKind::logistic: dscores[0] = -label * inv1p_exp(label * p); return;
    case LossKind::hinge: dscores[0] = label * p < 1.0 ? -label : 0.0; return;
    case LossKind::squared_hinge: dscores[0] = -label * std::max(0.0, 1.0 - label * p); return;
    case LossKind::softmax: {
      const auto k = static_cast<std::size_t>(outputs_);
      const double m = max_score(scores.first(k));
      double s = 0.0;
      for (std::size_t i = 0; i < k; ++i) s += dscores[i] = std::exp(scores[i] - m);
      for (std::size_t i = 0; i < k; ++i) dscores[i] /= s;
      dscores[static_cast<std::size_t>(label)] -= 1.0;
      return;
    }
  }
}

bool Loss::mistake(std::span<const double> scores, double label) const {
  switch (kind_) {
    case LossKind::squared:
    case LossKind::absolute: return (label == 1.0 || label == -1.0) && label * scores[0] <= 0.0;
    case LossKind::logistic:
    case LossKind::hinge:
    case LossKind::squared_hinge: return label * scores[0] <= 0.0;
    case LossKind::softmax: {
      const auto first = scores.begin();
      const auto best = std::max_element(first, first + outputs_);  // first maximum on ties
      return static_cast<double>(best - first) != label;
    }
  }
  return false;
}

}  // namespace adasketch
