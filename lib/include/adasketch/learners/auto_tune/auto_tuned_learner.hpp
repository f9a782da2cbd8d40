#pragma once
/// @file
/// --auto, the tuning-free mode: a race of candidate learners, the same algorithm with η (and α for
/// the SON family) over a grid around the given values, over the first auto_examples examples of the
/// run. Every candidate steps on each of them (progressive validation: each example is scored before
/// any candidate learns from it), and the race is scored on its second half (the first half moves
/// every candidate away from zero): the fewest online mistakes wins (classification; then the lowest
/// cumulative loss; regression: the lowest cumulative loss), and from then on the learner is the
/// winner, which goes on from its own state. During the race the steps report the leader's result,
/// the candidate ahead before the example (in the first half: the given values). A candidate that diverges (NumericError, raised on every
/// rank together) leaves the race. The grid and its reasons: docs/design.md, "The tuning-free mode".
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/learners/learner.hpp"

namespace adasketch {

/// The learner make_learner builds for a spec with auto_tune set (see the file description).
class AutoTunedLearner final : public Learner {
 public:
  /// One candidate of the race and its score so far.
  struct Candidate {
    LearnerSpec spec;        ///< its hyperparameters (auto_tune off)
    index_t mistakes = 0;    ///< online mistakes over the race's second half
    double loss = 0.0;       ///< cumulative online loss over the race's second half
    bool failed = false;     ///< diverged: out of the race
  };

  /// Collective (make_learner's candidates are). Throws InvalidArgument for an unknown algorithm, a
  /// hyperparameter out of its range, or auto_examples < 1.
  AutoTunedLearner(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec);

  /// The algorithm's name.
  std::string name() const override;
  /// The given spec (auto_tune on, η and α as given), with the fields the algorithm reads.
  LearnerSpec spec() const override;
  void weights(std::span<double> out) const override;
  void prefetch(const LocalRow& x) const noexcept override;
  void choose_form(FormChoice form) override;
  const Sketch* sketch() const noexcept override;

  /// The candidates, in the grid's order (docs/design.md, "The tuning-free mode").
  const std::vector<Candidate>& candidates() const noexcept { return candidates_; }
  /// The candidate ahead now: the winner once the race is over.
  int leader() const noexcept;
  /// Whether the race is over (after auto_examples steps).
  bool decided() const noexcept { return winner_ >= 0; }

 protected:
  StepResult do_step(const LocalRow& x, double label) override;
  void add_local_scores(const LocalRow& x, std::span<double> out) const override;
  /// The race (winner, failed candidates, scores) and every candidate still held, prefixed "c<i>.".
  void add_state_fields(StateFields& fields) override;
  void before_state_save(StateFields& fields) override;
  void after_state_load(StateFields& fields) override;
  void prepare_state_load(const SavedField<std::int64_t>& saved_integer, const SavedField<double>& saved_real) override;

 private:
  /// Whether candidate a is ahead of b (the race's order).
  bool ahead(int a, int b) const noexcept;
  /// Drops every candidate's learner but those `keep` says to.
  template <class Keep>
  void drop_unless(Keep keep);

  LearnerSpec spec_;
  std::vector<Candidate> candidates_;
  std::vector<std::unique_ptr<Learner>> learners_;  ///< null once out of the race or beaten
  std::vector<double> race_scores_;  ///< checkpoint view: mistakes (−1: failed) and loss of each candidate
  std::int64_t winner_ = -1;                         ///< −1 while racing
};

/// The race's candidates for `spec` (auto_tune on), in order: η × {1, 3, 0.3, 10, 0.1, 30}; for the
/// SON family and full-on, α × {1, 0.1, 10, 0.01} with η × {1, 10} (docs/design.md, "The tuning-free mode").
std::vector<LearnerSpec> auto_candidates(const LearnerSpec& spec);

}  // namespace adasketch
