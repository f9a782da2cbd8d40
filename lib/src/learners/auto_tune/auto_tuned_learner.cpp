#include "adasketch/learners/auto_tune/auto_tuned_learner.hpp"

#include <string_view>

#include "adasketch/error.hpp"
#include "adasketch/number_text.hpp"

namespace adasketch {
namespace {

// The learners that read α: the SON family and full-on (hyperparameter_table.h, readers N and O).
bool reads_alpha(std::string_view algorithm) noexcept { return algorithm.ends_with("-son") || algorithm == "full-on"; }

// Candidate i's fields in a checkpoint: "c<i>." and its own names.
std::string candidate_prefix(std::int64_t i) {
  std::string prefix(1, 'c');
  prefix.append(number_text(i)).push_back('.');
  return prefix;
}

}  // namespace

std::vector<LearnerSpec> auto_candidates(const LearnerSpec& spec) {
  LearnerSpec base = spec;
  base.auto_tune = false;
  base.auto_examples = LearnerSpec{}.auto_examples;
  std::vector<LearnerSpec> out;
  if (reads_alpha(spec.algorithm)) {
    const std::vector<double> alphas = spec.alpha0 > 0.0
                                           ? std::vector<double>{spec.alpha0, 0.1 * spec.alpha0, 10 * spec.alpha0, 0.01 * spec.alpha0}
                                           : std::vector<double>{0.0, 1.0, 10.0, 100.0};
    for (const double alpha : alphas)
      for (const double eta_factor : {1.0, 10.0}) {
        LearnerSpec s = base;
        s.alpha0 = alpha;
        s.eta = spec.eta * eta_factor;
        out.push_back(s);
      }
  } else {
    for (const double eta_factor : {1.0, 3.0, 0.3, 10.0, 0.1, 30.0}) {
      LearnerSpec s = base;
      s.eta = spec.eta * eta_factor;
      out.push_back(s);
    }
  }
  return out;
}

AutoTunedLearner::AutoTunedLearner(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec)
    : Learner(comm, partition, Loss(spec.loss, spec.classes), ScaleRule::none) {  // (its candidates measure the scale)
  if (spec.auto_examples < 1)
    throw InvalidArgument("--auto: auto_examples must be > 0, got " + number_text(spec.auto_examples));
  for (const LearnerSpec& s : auto_candidates(spec)) {
    learners_.push_back(make_learner(comm, partition, s));
    candidates_.push_back({learners_.back()->spec()});
  }
  spec_ = candidates_.front().spec;  // η and α as given, and only what the algorithm reads
  spec_.auto_tune = true;
  spec_.auto_examples = spec.auto_examples;
  race_scores_.assign(2 * candidates_.size(), 0.0);
}

std::string AutoTunedLearner::name() const { return spec_.algorithm; }

LearnerSpec AutoTunedLearner::spec() const {
  LearnerSpec s = spec_;
  s.form = learners_[static_cast<std::size_t>(leader())]->spec().form;  // as the candidates chose it
  return s;
}

bool AutoTunedLearner::ahead(int a, int b) const noexcept {
  const Candidate &x = candidates_[static_cast<std::size_t>(a)], &y = candidates_[static_cast<std::size_t>(b)];
  if (x.failed != y.failed) return y.failed;
  if (loss().is_classification() && x.mistakes != y.mistakes) return x.mistakes < y.mistakes;
  if (x.loss != y.loss) return x.loss < y.loss;
  return a < b;
}

int AutoTunedLearner::leader() const noexcept {
  if (winner_ >= 0) return static_cast<int>(winner_);
  int best = 0;
  for (int i = 1; i < static_cast<int>(candidates_.size()); ++i)
    if (ahead(i, best)) best = i;
  return best;
}

template <class Keep>
void AutoTunedLearner::drop_unless(Keep keep) {
  for (std::size_t i = 0; i < learners_.size(); ++i)
    if (!keep(i)) learners_[i].reset();
}

StepResult AutoTunedLearner::do_step(const LocalRow& x, double label) {
  if (winner_ >= 0) return learners_[static_cast<std::size_t>(winner_)]->step(x, label);
  const int lead = leader();
  const bool scored = steps() >= spec_.auto_examples / 2;  // the second half of the race
  std::vector<StepResult> results(candidates_.size());
  std::string last_failure;
  for (std::size_t i = 0; i < learners_.size(); ++i) {
    if (!learners_[i]) continue;
    try {
      results[i] = learners_[i]->step(x, label);
    } catch (const NumericError& e) {  // raised on every rank together: every rank drops it
      candidates_[i].failed = true;
      learners_[i].reset();
      last_failure = e.what();
      continue;
    }
    if (!scored) continue;
    candidates_[i].mistakes += results[i].mistake ? 1 : 0;
    candidates_[i].loss += results[i].loss;
  }
  if (candidates_[static_cast<std::size_t>(leader())].failed)
    throw NumericError("--auto: every candidate diverged (the last: " + last_failure + ")");
  // The leader before this example scored it; if it has just failed, the new leader's result stands in.
  const StepResult out = results[static_cast<std::size_t>(candidates_[static_cast<std::size_t>(lead)].failed ? leader() : lead)];
  if (steps() + 1 >= spec_.auto_examples) {
    winner_ = leader();
    drop_unless([&](std::size_t i) { return static_cast<std::int64_t>(i) == winner_; });
  }
  return out;
}

void AutoTunedLearner::add_local_scores(const LocalRow& x, std::span<double> out) const {
  learners_[static_cast<std::size_t>(leader())]->add_local_scores(x, out);
}

void AutoTunedLearner::weights(std::span<double> out) const { learners_[static_cast<std::size_t>(leader())]->weights(out); }

void AutoTunedLearner::prefetch(const LocalRow& x) const noexcept {
  for (const auto& l : learners_)
    if (l) l->prefetch(x);
}

void AutoTunedLearner::choose_form(FormChoice form) {
  for (const auto& l : learners_)
    if (l) l->choose_form(form);
}

const Sketch* AutoTunedLearner::sketch() const noexcept { return learners_[static_cast<std::size_t>(leader())]->sketch(); }

void AutoTunedLearner::add_state_fields(StateFields& fields) {
  const auto last = static_cast<std::int64_t>(candidates_.size()) - 1;
  fields.integer("auto.winner", winner_, -1, last);
  fields.array("auto.scores", race_scores_);
  for (std::size_t i = 0; i < learners_.size(); ++i)
    if (learners_[i]) {
      const auto prefix = fields.prefixed(candidate_prefix(static_cast<std::int64_t>(i)));
      learners_[i]->state_fields(fields);
    }
}

void AutoTunedLearner::before_state_save(StateFields& fields) {
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    // the failed ones as a negative mistake count (their learners are gone)
    race_scores_[2 * i] = candidates_[i].failed ? -1.0 : static_cast<double>(candidates_[i].mistakes);
    race_scores_[2 * i + 1] = candidates_[i].loss;
  }
  for (std::size_t i = 0; i < learners_.size(); ++i)
    if (learners_[i]) {
      const auto prefix = fields.prefixed(candidate_prefix(static_cast<std::int64_t>(i)));
      learners_[i]->before_state_save(fields);
    }
}

void AutoTunedLearner::after_state_load(StateFields& fields) {
  for (std::size_t i = 0; i < learners_.size(); ++i)
    if (learners_[i]) {
      const auto prefix = fields.prefixed(candidate_prefix(static_cast<std::int64_t>(i)));
      learners_[i]->after_state_load(fields);
    }
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    candidates_[i].failed = race_scores_[2 * i] < 0.0;
    candidates_[i].mistakes = candidates_[i].failed ? 0 : static_cast<index_t>(race_scores_[2 * i]);
    candidates_[i].loss = race_scores_[2 * i + 1];
  }
}

void AutoTunedLearner::prepare_state_load(const SavedField<std::int64_t>& saved_integer, const SavedField<double>& saved_real) {
  const std::int64_t winner = saved_integer("auto.winner");
  const auto count = static_cast<std::int64_t>(candidates_.size());
  if (winner < -1 || winner >= count)
    throw InputError("the checkpoint", 0, "auto.winner = " + number_text(winner) + " is outside [-1, " + number_text(count - 1) + "]");
  // The candidates the checkpoint holds: the winner, or every one whose learner field it has.
  for (std::int64_t i = 0; i < count; ++i) {
    bool held = winner == i;
    if (winner < 0) try {
        (void)saved_integer(candidate_prefix(i).append("learner.steps"));
        held = true;
      } catch (const InputError&) {
      }
    auto& l = learners_[static_cast<std::size_t>(i)];
    if (!held) l.reset();
    if (held && !l) l = make_learner(comm(), partition(), candidates_[static_cast<std::size_t>(i)].spec);
    if (held) l->restore_data_scale([&](const std::string& name) { return saved_real(candidate_prefix(i).append(name)); });
  }
  winner_ = winner;
}

}  // namespace adasketch
