#pragma once
/// @file
/// The interface every online learner shares (ensmallen style: hyperparameters in the constructor's
/// options, one step() per example, run state kept inside the learner), the LearnerSpec of
/// make_learner, and the hyperparameters as text.
///
/// A learner owns the weights W (d × K, K = loss.outputs()), block-partitioned by features like every
/// d-vector: rank p holds rows [begin(p), end(p)) of W, feature-major (a feature's K weights
/// contiguous). Examples are passed as the rank's slice (LocalRow); every rank calls step() and
/// predict() for every example (they are collective).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/hyperparameters.hpp"
#include "adasketch/io/state_fields.hpp"
#include "adasketch/learners/loss.hpp"
#include "adasketch/sketch/sketch.hpp"
#include "adasketch/sketch/local_row.hpp"

namespace adasketch {

namespace detail {
struct CheckpointAccess;  // lib/src/io/checkpoint.cpp: calls the checkpoint hooks
}  // namespace detail

/// SON's η_t: constant η, η/t (the RFD paper's η_t = O(1/t)), or η/√t (SON §2's choice when σ = 0).
enum class EtaSchedule { constant, inv_t, inv_sqrt_t };
/// "constant", "inv-t" or "inv-sqrt-t".
std::string to_string(EtaSchedule schedule);
/// The inverse of to_string (types.hpp).
template <>
EtaSchedule from_string<EtaSchedule>(std::string_view text);
/// η_t of the t-th example (t ≥ 1; t < 1 counts as 1) under `schedule` with scale η.
double scheduled_eta(EtaSchedule schedule, double eta, index_t t) noexcept;

/// How a learner takes its step sizes (LearnerSpec::scale; docs/design.md §2, "The data's scale"):
/// relative to the first example with a nonzero norm, or as given.
enum class ScaleRule { first_example, none };
/// "first-example" or "none".
std::string to_string(ScaleRule rule);
/// The inverse of to_string (types.hpp).
template <>
ScaleRule from_string<ScaleRule>(std::string_view text);

/// The scale of the data as ScaleRule::first_example measures it: the squared norm ‖x‖² of the first
/// example with a nonzero norm and its count of nonzero values (over every rank's slice).
struct DataScale {
  double sum_squares = 0.0;  ///< ‖x‖² (0: not measured yet)
  double nonzeros = 0.0;     ///< the nonzero values of x
  /// r = √(‖x‖²/nonzeros), the RMS of x's nonzero values: the unit of one weight's share of a score.
  double rms() const noexcept;
};

/// What make_learner builds: the algorithm, its loss and K, and every hyperparameter a learner may
/// take, one field per row of the hyperparameter table (adasketch/learners/hyperparameter_table.h, which
/// gives each one's meaning, range and default); each learner documents which it reads. A sketched
/// learner's spec() reports the form it took (dense or sparse) where `form` was automatic.
struct LearnerSpec {
  /// ada-diag, ada-diag-da (dual averaging), ada-fd, ada-fd-da, fast-ada-fd, fast-ada-fd-da (2ℓ
  /// buffer), ada-gp, ada-gp-da, ada-dp, ada-dp-da, fd-son, fast-fd-son, rp-son, oja-son, rfd-son,
  /// fast-rfd-son, comp-adagrad, comp-adagrad-da; with ScaLAPACK: ada-full, ada-full-da, full-on.
  std::string algorithm = "ada-fd";
  LossKind loss = LossKind::logistic;  ///< the loss (Loss); logistic by default
  int classes = 2;  ///< K for the softmax loss
#define ADASKETCH_SPEC_FIELD(kind, type, member, option, value, ...) type member = value;
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_SPEC_FIELD)
#undef ADASKETCH_SPEC_FIELD
};

/// A hyperparameter's value as `train`'s options, config files and reports write it: numbers in
/// their shortest exact form, enums by name, switches as true/false, lists comma-separated.
///@{
std::string hyperparameter_text(double value);
std::string hyperparameter_text(index_t value);
std::string hyperparameter_text(int value);
std::string hyperparameter_text(std::uint64_t value);
std::string hyperparameter_text(bool value);
std::string hyperparameter_text(EtaSchedule value);
std::string hyperparameter_text(FormChoice value);
std::string hyperparameter_text(ScaleRule value);
std::string hyperparameter_text(const std::vector<double>& values);
///@}

/// The inverse of hyperparameter_text: sets `value` from `text` and returns true, or returns false
/// (value unspecified) when `text` is not a value of its type (checkpoint files keep their
/// hyperparameters as text; docs/formats.md). Local; does not throw for bad text.
///@{
bool parse_hyperparameter(std::string_view text, double& value);
bool parse_hyperparameter(std::string_view text, index_t& value);
bool parse_hyperparameter(std::string_view text, int& value);
bool parse_hyperparameter(std::string_view text, std::uint64_t& value);
bool parse_hyperparameter(std::string_view text, bool& value);
bool parse_hyperparameter(std::string_view text, EtaSchedule& value);
bool parse_hyperparameter(std::string_view text, FormChoice& value);
bool parse_hyperparameter(std::string_view text, ScaleRule& value);
bool parse_hyperparameter(std::string_view text, std::vector<double>& values);
///@}

/// Sets the hyperparameter `member` (its LearnerSpec field, e.g. "eta"; or "classes") of `spec` from
/// `value`, written as hyperparameter_text writes it. Throws InvalidArgument naming the member when
/// it is unknown or `value` is not one of its type (the learners check the range).
void set_hyperparameter(LearnerSpec& spec, std::string_view member, std::string_view value);

/// What one step observed, before its update (progressive validation).
struct StepResult {
  double loss = 0.0;     ///< ℓ_t(w_t) on this example
  bool mistake = false;  ///< classification mistake of w_t on this example (false for regression)
};

/// Base of every online learner: the weights W (d × K), block-partitioned by features, and one
/// step() per example. Built by make_learner from a LearnerSpec, or by a family's constructor
/// (DiagonalAdaGrad, SketchedAdaGrad, SketchedNewton, CompAdaGrad, FullAdaGrad, FullNewton). A new
/// family derives from it and implements the protected hooks.
class Learner {
 public:
  virtual ~Learner() = default;
  Learner(const Learner&) = delete;
  Learner& operator=(const Learner&) = delete;

  /// Algorithm name as accepted by make_learner (e.g. "ada-fd", "rfd-son").
  virtual std::string name() const = 0;
  /// The communicator the learner lives on (a copy of the caller's view; the handle is not owned).
  const Communicator& comm() const noexcept { return comm_; }
  /// The split of the d features over the ranks (partition().dim() is d).
  const BlockPartition& partition() const noexcept { return partition_; }
  /// The loss, with K for softmax.
  const Loss& loss() const noexcept { return loss_; }
  /// K, the scores per example: loss().outputs().
  int outputs() const noexcept { return loss_.outputs(); }
  /// This rank's features d_p = end − begin of its block.
  index_t local_dim() const noexcept { return partition_.size(comm_.rank()); }
  /// Examples processed by step().
  index_t steps() const noexcept { return steps_; }

  /// Collective. Predicts x with the current weights, suffers the loss, updates. Throws NumericError
  /// (on every rank) when the score or the loss is not finite, saying whether the example has a
  /// non-finite value or the model diverged; LossDivergenceError (on every rank) when a window's
  /// mean loss passes divergence() times the zero predictor's (docs/design.md §2, "Divergence").
  StepResult step(const LocalRow& x, double label);
  /// The divergence limit F (LearnerSpec::divergence; 0: no check): step() stops the run when the
  /// mean loss over a window of defaults::divergence_window examples, the online loss or (SON,
  /// FULL-ON: predicts_projected()) the loss of the model's own scores on every
  /// defaults::divergence_sample-th example, exceeds F times the zero predictor's on the same examples.
  double divergence() const noexcept { return divergence_; }
  /// Sets divergence() (make_learner sets the spec's). Throws InvalidArgument unless F ≥ 0 is finite.
  void set_divergence(double limit);
  /// The scale rule (the options' `scale`, LearnerSpec::scale): with first_example, step() measures
  /// data_scale() on the first example with a nonzero norm (one Allreduce of three numbers on each
  /// example until then) and the learner takes its η, δ, λ₁, λ₂ or α relative to it from that step
  /// on; spec() and options() report them as given.
  ScaleRule scale_rule() const noexcept { return scale_rule_; }
  /// What scale_rule() measured (sum_squares 0 before the first example with a nonzero norm, and
  /// always with ScaleRule::none).
  const DataScale& data_scale() const noexcept { return scale_; }
  /// Local, a hint with no effect on results: x is the next step's example. A learner whose state on
  /// a feature lies at scattered places (the sparse FD sketches) starts loading x's, so that the
  /// cache misses overlap the step in between. Training loops call it before the step before x's.
  virtual void prefetch(const LocalRow& x) const noexcept { (void)x; }
  /// Collective (one Allreduce of K numbers). Scores Wᵀx under the current weights.
  void predict(const LocalRow& x, std::span<double> scores) const;
  /// Local. out[j*K + k] = W[begin + j, k]: this rank's slice of the current weights.
  virtual void weights(std::span<double> out) const = 0;
  /// The LearnerSpec with which make_learner builds this learner: its algorithm, loss, K and the
  /// hyperparameters it reads; the fields it does not read keep LearnerSpec's defaults.
  virtual LearnerSpec spec() const = 0;

  /// Collective. A sketched learner whose form is automatic and not chosen yet (no step taken) takes
  /// `form` (dense or sparse; automatic leaves it as it is): what load_checkpoint does before it
  /// reads a checkpoint written by a learner that chose. Other learners ignore it.
  virtual void choose_form(FormChoice form) { (void)form; }
  /// The sketch of a sketched learner; nullptr for the others.
  virtual const Sketch* sketch() const noexcept { return nullptr; }

  /// Lists the complete run state (checkpoint.hpp): the step count and the algorithm's fields
  /// (weights or their lazy form, AdaGrad statistics, the sketch). A learner built from the same
  /// spec and dimension, restored through these views, continues exactly as this one would.
  void state_fields(StateFields& fields);

 protected:
  /// The features split as `partition` (parts() must be comm.size()). A family that takes its
  /// hyperparameters relative to the data passes its options' `scale` and implements on_data_scale.
  Learner(const Communicator& comm, const BlockPartition& partition, const Loss& loss,
          ScaleRule scale = ScaleRule::none);
  /// The algorithm's step; `label` is validated for the loss.
  virtual StepResult do_step(const LocalRow& x, double label) = 0;
  /// out[0..K) += this rank's part of Wᵀx (the caller sums over ranks).
  virtual void add_local_scores(const LocalRow& x, std::span<double> out) const = 0;
  /// Whether do_step's prediction is not the model's own score Wᵀx (SON and FULL-ON predict with w_t,
  /// the weights projected onto |wᵀx_t| ≤ C): the divergence check then also samples Wᵀx.
  virtual bool predicts_projected() const noexcept { return false; }
  /// Collective: step() has measured the data's scale (ScaleRule::first_example) before the step of
  /// the first example with a nonzero norm, or load_checkpoint restores it (possibly unmeasured,
  /// sum_squares 0) before it reads the state. The family takes its hyperparameters relative to
  /// `scale` (detail::at_data_scale) and redoes what it derived from them at construction: at the
  /// measurement every step before had a zero example, and a load overwrites the state after.
  virtual void on_data_scale(const DataScale& scale) { (void)scale; }
  /// The algorithm's own state fields (state_fields() lists the step count first).
  virtual void add_state_fields(StateFields& fields) = 0;
  /// Checkpoint hooks, collective: save_checkpoint calls the first after state_fields() and before it
  /// reads the views, load_checkpoint the second after it filled them. A learner that lists state kept
  /// in another layout (StateFields::staged_block: a block-cyclic matrix) copies it into the views, or
  /// takes it from them; the default does nothing.
  ///@{
  virtual void before_state_save(StateFields& fields) { (void)fields; }
  virtual void after_state_load(StateFields& fields) { (void)fields; }
  ///@}
  /// Reads one replicated scalar field of a checkpoint by name, the same on every rank (InputError
  /// when the file has none of that name and kind).
  template <class T>
  using SavedField = std::function<T(const std::string&)>;
  /// Collective. load_checkpoint calls it before state_fields(), for a learner whose fields depend on
  /// its state: `saved_integer` and `saved_real` read integer and real fields of the checkpoint. The
  /// default does nothing.
  virtual void prepare_state_load(const SavedField<std::int64_t>& saved_integer, const SavedField<double>& saved_real) {
    (void)saved_integer;
    (void)saved_real;
  }
  /// Collective: load_checkpoint calls it before prepare_state_load. Sets data_scale() from the
  /// checkpoint's (`saved_real`) and calls on_data_scale when it was measured. AutoTunedLearner calls
  /// it for the candidates it rebuilds.
  void restore_data_scale(const SavedField<double>& saved_real);

 private:
  friend struct detail::CheckpointAccess;
  friend class AutoTunedLearner;  // steps, scores and lists the state of the learners it races
  std::string non_finite_diagnosis(const LocalRow& x, const std::string& what) const;
  double sampled_model_loss(const LocalRow& x, double label) const;
  void check_divergence(const StepResult& r, double label, double model_loss);
  void measure_scale(const LocalRow& x);

 private:
  Communicator comm_;
  BlockPartition partition_;
  Loss loss_;
  index_t steps_ = 0;
  double divergence_ = LearnerSpec{}.divergence;
  ScaleRule scale_rule_;
  DataScale scale_;
  /// The current window's sums (checkpointed): online loss and zero predictor's loss over its
  /// examples; the model's loss and the zero predictor's over its sampled examples.
  struct DivergenceWindow {
    double loss = 0.0, zero_loss = 0.0, model_loss = 0.0, model_zero_loss = 0.0;
  } window_;
  double classifier_zero_loss_ = 0.0;   // ℓ(0, y) of a classification loss (any label)
  mutable std::vector<double> scores_;  // K: the sampled model scores
};

/// The learner `spec` names, built with its hyperparameters. Call it on every rank of comm alike (the
/// exact learners' constructors are collective). Throws InvalidArgument naming an unknown algorithm
/// or a violated condition. The features are split uniformly (BlockPartition(dim, comm.size())), or
/// as the caller's `partition` (one part per rank).
///@{
std::unique_ptr<Learner> make_learner(const Communicator& comm, index_t dim, const LearnerSpec& spec);
std::unique_ptr<Learner> make_learner(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec);
///@}
/// Whether make_learner needs a partition with equal blocks (BlockPartition::has_equal_blocks) for
/// `algorithm`: the exact learners (ScaLAPACK's layout).
bool needs_equal_blocks(std::string_view algorithm) noexcept;

}  // namespace adasketch
