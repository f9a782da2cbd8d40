#pragma once
/// @file
/// How the labels of a data file become the labels a loss takes (loss.hpp): −1/+1 for the binary
/// losses, 0..K−1 for softmax, any real for regression. The map is chosen once, from the training
/// data's distinct labels (of_values), and then applied to the training and test files alike (and
/// stored in model and checkpoint files, so `predict` maps a test file exactly as training did).
///
/// The maps, by loss and distinct training labels, are specified in docs/formats.md ("Label maps").
/// (infer and softmax_classes, from the label range alone, are the maps of earlier releases.)
/// A label the map does not cover (a 0 under {−1, +1}, a class beyond K, a fraction) is an InputError
/// naming the file and line, thrown identically on every rank (each rank reads every label).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/learners/loss.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

/// How a data file's labels become the labels a loss takes (see the file description); stored in
/// model and checkpoint files. All members are local.
class LabelMap {
 public:
  /// The stored codes are part of the model file format: never renumber them.
  enum class Kind : std::uint32_t {
    real = 0,               ///< regression: as is
    plus_minus_one = 1,     ///< {−1, +1} as is
    zero_one = 2,           ///< 0 → −1, 1 → +1
    one_two = 3,            ///< 1 → −1, 2 → +1
    classes_from_zero = 4,  ///< 0..K−1 as is
    classes_from_one = 5,   ///< 1..K → 0..K−1
    two_values = 6,         ///< values()[0] → −1, values()[1] → +1
    listed_classes = 7,     ///< values()[k] → k, k = 0..K−1
  };
  /// The most distinct labels a map takes (softmax K).
  static constexpr std::size_t kMaxValues = 65536;

  /// classes is K for the classes_* kinds (K ≥ 2) and ignored otherwise. Throws InvalidArgument.
  explicit LabelMap(Kind kind, int classes = 2);
  /// two_values (2 values) or listed_classes (K ≥ 2 values): finite, strictly ascending. Throws
  /// InvalidArgument.
  LabelMap(Kind kind, std::vector<double> values);
  /// The map for `loss` from the distinct training labels, ascending (docs/formats.md, "Label
  /// maps"). Throws InputError naming `file` when they do not make one (binary: one value but ±1, 0
  /// or 2, or more than two; softmax: one value but 0 or 1, more than kMaxValues, or not finite).
  static LabelMap of_values(const Loss& loss, std::span<const double> values, const std::string& file);
  /// The identity map of the labels `loss` takes as they are: ±1 (binary), 0..K−1 (softmax), real.
  static LabelMap of_loss(const Loss& loss);
  /// The map for `loss` from the smallest and largest training label (docs/formats.md, "Label maps").
  static LabelMap infer(const Loss& loss, double label_min, double label_max);
  /// Softmax K from the training labels: the largest label for 1-based labels (smallest ≥ 1), the
  /// largest + 1 for 0-based ones, at least 2. Throws InputError naming `file` when the labels are
  /// not integers in [0, 65536].
  static int softmax_classes(const std::string& file, double label_min, double label_max, bool integral);
  /// Kind from its stored code; false for an unknown code.
  static bool kind_from_code(std::uint32_t code, Kind& kind) noexcept;

  /// Which map.
  Kind kind() const noexcept { return kind_; }
  /// The classes the map produces: K for the classes_* and listed_classes kinds, 2 for the binary
  /// kinds, 1 for real.
  int classes() const noexcept { return classes_; }
  /// The label values of the two_values and listed_classes kinds (empty for the others).
  std::span<const double> values() const noexcept { return values_; }
  /// The training label that `mapped` (−1/+1 binary, a class 0..K−1 softmax) stands for.
  double original(double mapped) const noexcept;
  /// Whether the map produces the labels `loss` takes (and, for softmax, K = loss.outputs()).
  bool fits(const Loss& loss) const noexcept;
  /// The mapped label; InputError(file, position) when the map does not cover `raw` (never NaN or ±inf).
  double apply(double raw, const std::string& file, index_t position) const;
  /// E.g. "{0,1} -> {-1,+1}", "1..10 -> 0..9", "{2,5,7} -> 0..2" (ASCII, for terminals and JSON alike).
  std::string describe() const;

 private:
  Kind kind_;
  int classes_;
  std::vector<double> values_;
};

/// The label a model predicts from its K scores, in the data's own labels (the inverse of `labels`):
/// binary: the positive label when the score is > 0, else the negative one; softmax: the class of
/// the largest score (ties: the smallest); regression: the score.
double predicted_label(const Loss& loss, const LabelMap& labels, std::span<const double> scores);

/// Collective: the union of every rank's distinct labels `mine`, ascending, the same on every rank;
/// at most LabelMap::kMaxValues + 1 values are kept (enough to tell that there are too many).
std::vector<double> agree_label_values(const Communicator& comm, std::vector<double> mine);

}  // namespace adasketch
