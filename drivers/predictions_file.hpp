#pragma once
// --predictions FILE of `predict` and `train --test`: one line per example, in input order, whatever
// the rank count (docs/cli.md, Predictions and input):
//   binary      LABEL SCORE         the predicted label and the margin wᵀx
//   softmax     LABEL p_0 … p_{K−1}  the predicted label and the class probabilities
//   regression  PREDICTION           wᵀx
// Numbers in their shortest round-trip form (std::to_chars). The scores are wᵀx rounded once from
// the exact sum of the products x_j·w_j (Shewchuk's summation, as Python's math.fsum): each rank
// sums its own products exactly, rank 0 gathers these few numbers per example and rounds their exact
// total, so the file is byte for byte the same at any rank count (the scores that evaluation uses
// are summed by rank blocks and differ from these in the last bits). Rank 0 alone formats the lines
// and writes them through a bounded buffer to an AtomicOutput (atomic_output.hpp), renamed to FILE once complete: an
// interrupted run leaves no partial FILE.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/learners/loss.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/training/label_map.hpp"
#include "atomic_output.hpp"

namespace adasketch::driver {

class PredictionsFile {
 public:
  /// Collective. Rank 0 opens an AtomicOutput for PATH; failing that, InvalidArgument naming `option`
  /// on every rank.
  /// `weights`: this rank's rows of W, feature-major (LinearModel::weights(), Learner::weights()).
  PredictionsFile(const Communicator& comm, std::string path, std::string option, const Loss& loss,
                  const LabelMap& labels, std::span<const double> weights);
  /// Removes PATH.tmp unless finish() renamed it.
  PredictionsFile(const PredictionsFile&) = delete;
  PredictionsFile& operator=(const PredictionsFile&) = delete;

  /// Collective (a Gather and a Gatherv), once per example, with this rank's part of it; rank 0
  /// writes the line (a write failure is kept for finish()).
  void add(const LocalRow& x);
  /// Collective. Flushes and commits the file; a failure on rank 0 is thrown on every rank.
  void finish();

 private:
  void write_line(std::span<const double> scores);
  void flush();
  Communicator comm_;
  std::string path_, option_;
  Loss loss_;
  LabelMap labels_;
  std::vector<double> weights_;
  std::optional<AtomicOutput> output_;  // rank 0
  std::string buffer_, failure_;
  std::vector<std::vector<double>> partials_;  // per score: exact partial sums
  std::vector<double> send_, receive_, scores_;
  std::vector<int> lengths_, all_lengths_, counts_, displacements_;
};

}  // namespace adasketch::driver
