#pragma once
// How the labels of a data file become the labels a loss takes (loss.hpp): −1/+1 for the binary
// losses, 0..K−1 for softmax, any real for regression. The map is chosen once, from the training
// data's label range, and then applied to the training and test files alike (and stored in a model
// file, so `predict` maps a test file exactly as training did).
//
//   loss        training labels            map
//   regression  anything                   as is
//   binary      smallest label 0           {0, 1} → {−1, +1}
//               largest 2, smallest ≥ 1    {1, 2} → {−1, +1}
//               otherwise                  {−1, +1} as is (also when every label is +1, or −1)
//   softmax     smallest label ≥ 1         1..K → 0..K−1
//               otherwise                  0..K−1 as is
// A label the map does not cover (a 0 under {−1, +1}, a class beyond K, a fraction) is an InputError
// naming the file and line, thrown identically on every rank (each rank reads every label).
#include <cstdint>
#include <string>

#include "adasketch/learners/loss.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

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
  };

  /// classes is K for the classes_* kinds (K ≥ 2) and ignored otherwise. Throws InvalidArgument.
  explicit LabelMap(Kind kind, int classes = 2);
  /// The identity map of the labels `loss` takes as they are: ±1 (binary), 0..K−1 (softmax), real.
  static LabelMap of_loss(const Loss& loss);
  /// The map for `loss` from the smallest and largest training label (table above).
  static LabelMap infer(const Loss& loss, double label_min, double label_max);
  /// Softmax K from the training labels: the largest label for 1-based labels (smallest ≥ 1), the
  /// largest + 1 for 0-based ones, at least 2. Throws InputError naming `file` when the labels are
  /// not integers in [0, 65536].
  static int softmax_classes(const std::string& file, double label_min, double label_max, bool integral);
  /// Kind from its stored code; false for an unknown code.
  static bool kind_from_code(std::uint32_t code, Kind& kind) noexcept;

  Kind kind() const noexcept { return kind_; }
  int classes() const noexcept { return classes_; }
  /// Whether the map produces the labels `loss` takes (and, for softmax, K = loss.outputs()).
  bool fits(const Loss& loss) const noexcept;
  /// The mapped label; InputError(file, position) when the map does not cover `raw` (never NaN or ±inf).
  double apply(double raw, const std::string& file, index_t position) const;
  /// E.g. "{0,1} -> {-1,+1}", "1..10 -> 0..9" (ASCII, for terminals and JSON alike).
  std::string describe() const;

 private:
  Kind kind_;
  int classes_;
};

}  // namespace adasketch
