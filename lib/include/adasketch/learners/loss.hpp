#pragma once
/// @file
/// Losses of a linear model on its scores p = Wᵀx (one score, or K for softmax) (docs/design.md §2).
/// The gradient with respect to the weights is x ⊗ ∂ℓ/∂p, so a learner only needs ∂ℓ/∂p. The exact
/// form of each loss is listed at LossKind.
///
/// Mistakes: binary y·p ≤ 0 (a zero score is a mistake for either label); softmax argmax_k p_k ≠ y,
/// ties going to the smallest k; regression losses on a label of exactly ±1 count sign mistakes
/// y·p ≤ 0 (classification by least squares, as in the RFD paper §5.2 and SON §5), and none otherwise.
#include <span>
#include <string>
#include <string_view>

#include "adasketch/types.hpp"

namespace adasketch {

/// The losses, with p the score and y the label (exact forms).
enum class LossKind {
  squared,        ///< ℓ = (p − y)², ∂ℓ/∂p = 2(p − y) (no ½: RFD paper §5.2, SON §5.2)
  absolute,       ///< ℓ = |p − y|, ∂ℓ/∂p = sign(p − y) (0 at p = y; ADA-FD paper §4.1)
  logistic,       ///< ℓ = log(1 + e^{−yp}), ∂ℓ/∂p = −y/(1 + e^{yp}), computed without overflow
  hinge,          ///< ℓ = max(0, 1 − yp), ∂ℓ/∂p = −y if yp < 1, else 0
  squared_hinge,  ///< ℓ = ½ max(0, 1 − yp)², ∂ℓ/∂p = −y max(0, 1 − yp) (ADA-FD paper §4.2)
  /// ℓ = log Σ_k e^{p_k} − p_y, ∂ℓ/∂p_k = e^{p_k}/Σ_j e^{p_j} − [k = y] (log-sum-exp shifted by
  /// max_k p_k, so no overflow)
  softmax
};
/// "squared", "absolute", "logistic", "hinge", "squared-hinge" or "softmax".
std::string to_string(LossKind kind);
/// The inverse of to_string (types.hpp).
template <>
LossKind from_string<LossKind>(std::string_view text);

/// Labels: regression any real y; binary classification y ∈ {−1, +1}; softmax y ∈ {0, …, K−1}.
/// The per-example functions do not check their arguments (the learner validates the label once).
class Loss {
 public:
  /// classes (K ≥ 2) is used by softmax only; throws InvalidArgument for softmax with K < 2.
  explicit Loss(LossKind kind, int classes = 2);

  /// Which loss.
  LossKind kind() const noexcept { return kind_; }
  /// to_string(kind()).
  std::string name() const { return to_string(kind_); }
  /// Number of scores per example: K for softmax, 1 otherwise.
  int outputs() const noexcept { return outputs_; }
  /// Whether the loss is a classifier's (logistic, hinge, squared-hinge, softmax), not a regression.
  bool is_classification() const noexcept { return kind_ != LossKind::squared && kind_ != LossKind::absolute; }

  /// ℓ(p, y).
  double value(std::span<const double> scores, double label) const;
  /// ∂ℓ/∂p into dscores (outputs() entries); a subgradient where ℓ is not differentiable.
  void derivative(std::span<const double> scores, double label, std::span<double> dscores) const;
  /// Whether the prediction (sign, or argmax) differs from the label; for a regression loss, a sign
  /// mistake when the label is ±1 and false otherwise (see the file description).
  bool mistake(std::span<const double> scores, double label) const;

 private:
  LossKind kind_;
  int outputs_;
};

}  // namespace adasketch
