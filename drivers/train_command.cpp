// `adasketch train`: one online learner over a data file (in file order, for --passes passes), with
// rank-0 progress, an optional test evaluation, model file and JSON report; checkpoints and resuming
// (checkpointing.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adasketch/data/compact_features.hpp"
#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/sketch/sketch.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/training/online_training.hpp"
#include "atomic_output.hpp"
#include "bias_input.hpp"
#include "checkpointing.hpp"
#include "io/checkpoint_interrupted.hpp"  // lib/src: the crash tests' pause before the rename
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"
#include "data_input.hpp"
#include "fault_injection.hpp"
#include "hyperparameter_options.hpp"
#include "predictions_file.hpp"
#include "report_file.hpp"
#include "train_command.hpp"
#include "train_output.hpp"
#include "train_trace.hpp"

namespace adasketch::driver {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

OptionParser train_parser() {
  const LearnerSpec d;  // the defaults shown in --help are the library's
  OptionParser p(std::string(kProgram) + " train", "--algo NAME --data DATA [options]",
                 "Trains an online learner on DATA, one example at a time in order (--passes times), then scores\n"
                 "--test DATA with the final weights and saves --model. Rank 0 prints progress on stdout at most\n"
                 "once a second (examples/s, online mistake rate, estimated time left; --progress-every, --quiet) and a summary. Labels are\n"
                 "mapped from the training data's distinct labels: any two values to −1/+1, the smaller to −1\n"
                 "(binary losses); K values, ascending, to classes 0..K−1 (softmax); as is (regression). Each\n"
                 "learner reads only its hyperparameters.\n"
                 "With --checkpoint, SIGTERM or SIGUSR1 stops the run after the same example on every rank, writes a\n"
                 "final checkpoint and exits with status 75; --resume continues it (docs/slurm.md).\n\n" +
                     data_help());
  p.optional("algo", "NAME",
             "ada-diag, ada-diag-da, ada-fd, ada-fd-da, fast-ada-fd, fast-ada-fd-da, ada-gp, ada-gp-da, ada-dp, "
             "ada-dp-da, fd-son, fast-fd-son, rp-son, oja-son, rfd-son, fast-rfd-son, comp-adagrad, comp-adagrad-da, "
             "ada-full, ada-full-da or full-on "
             "(required unless --resume)");
  p.required("data", OptionType::String, "DATA", "training examples: a file or a synthetic spec");
  p.optional("loss", OptionType::String, "L", to_string(d.loss),
             "squared, absolute, logistic, hinge, squared-hinge or softmax");
  add_hyperparameter_options(p);
  p.optional("passes", OptionType::Integer, "P", "1", "passes over the training data, ≥ 1");
  p.optional("test", "DATA", "test examples, scored after training (a LIBSVM file is read with the training d)");
  p.optional("dim", OptionType::Integer, "D", "0",
             "number of features d; 0 takes the largest index of a LIBSVM file, the dense header's d or the spec's d");
  p.optional("features", OptionType::String, "F", "auto",
             "seen: the learner keeps state only for the features that occur in the training data (memory in "
             "proportion to them; one more pass over the data first; test and model use the same features); all: for "
             "every feature of d; auto: seen for a LIBSVM file with d ≥ 2^20, else all");
  p.optional("bias", OptionType::Real, "B", "0",
             "intercept, as LIBLINEAR's -B: B > 0 appends the constant feature B to every example (feature d+1); "
             "the model keeps B, and predict applies it; 0: none");
  p.optional("model", "FILE", "save the trained model (format in docs/formats.md; loadable at any rank count)");
  p.optional("report", "FILE", "write a JSON report of the options and results (rank 0)");
  p.optional("predictions", "FILE", "with --test: write one line per test example (as `adasketch predict --predictions`)");
  add_hdf5_options(p);
  add_checkpoint_options(p);
  add_quiet_option(p);
  p.optional("progress-every", OptionType::Real, "SECONDS", "1",
             "rank 0 prints a progress line every SECONDS of its clock while training; 0: none");
  add_trace_option(p);
  return p;
}

namespace {

LearnerSpec spec_from(const OptionParser& opts) {
  LearnerSpec spec;
  spec.algorithm = opts.text("algo");
  if (spec.algorithm.empty())
    throw InvalidArgument("missing required option --algo NAME, or --resume FILE (see 'adasketch train --help')");
  try {
    spec.loss = from_string<LossKind>(opts.text("loss"));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("option --loss: ") + e.what());
  }
  read_hyperparameter_options(opts, spec);
  return spec;
}

// A learner reports in spec() the hyperparameters it reads; the others keep their defaults. An option
// given on the command line that the learner left at its default is one it does not read: say so once
// (stderr, rank 0), since a run that silently ignores --diag-rescale or --lambda1 misleads.
void warn_unread_options(const OptionParser& opts, const LearnerSpec& given, const LearnerSpec& taken) {
  for (const SpecDifference& d : spec_differences(taken, given)) {
    const std::string option = option_of_field(d.field);
    if (opts.given(option))
      std::fprintf(stderr, "%s: warning: %s does not read --%s (ignored)\n", kProgram, given.algorithm.c_str(), option.c_str());
  }
  if (opts.given("grid-rows") && taken.grid_rows != given.grid_rows)
    std::fprintf(stderr, "%s: warning: %s does not read --grid-rows (ignored)\n", kProgram, given.algorithm.c_str());
}

// Where a resumed run continues, for the header; warns when the rank count changed.
std::string resumed_text(const std::string& path, const CheckpointHeader& h, const TrainResults& r, int passes, int ranks) {
  const TrainingState& s = h.run.state;
  std::string text = path + ": ";
  text += s.pass > passes ? "every pass done" : "pass " + number_text(s.pass) + "/" + number_text(passes) +
                                                   " after example " + number_text(s.position) + " of " +
                                                   number_text(r.rows);
  text += " (" + number_text(s.examples) + " examples stepped), written at " + number_text(h.ranks) + " rank" +
          (h.ranks == 1 ? "" : "s");
  if (h.ranks != ranks)
    text += "; resumed at " + number_text(ranks) + ": equal to an uninterrupted run to round-off, not bit for bit";
  return text;
}

/// --features auto keeps only the seen features of a LIBSVM file from this d on (docs/cli.md).
constexpr index_t kSeenFeaturesFrom = index_t{1} << 20;

// Every learner's state but CompAdaGrad's stays on the features its gradients had, so on the seen
// features it is the same learner (tests/test_compact_features.cpp); CompAdaGrad's SRHT mixes every
// feature of d, and its weights are not zero off the data's features.
bool keeps_to_seen_features(const std::string& algorithm) { return !algorithm.starts_with("comp-adagrad"); }

// Whether the learner gets only the features that occur in the training data (--features).
bool use_seen_features(const std::string& choice, const std::string& format, index_t dim, const std::string& algorithm) {
  if (choice != "auto") return choice == "seen";
  return format == "libsvm" && dim >= kSeenFeaturesFrom && keeps_to_seen_features(algorithm);
}

}  // namespace

void check_train_options(const OptionParser& opts) {
  (void)spec_from(opts);
  if (opts.real("progress-every") < 0.0)
    throw InvalidArgument("option --progress-every: must be ≥ 0, got " + opts.text("progress-every"));
  const std::int64_t passes = opts.integer("passes");
  if (passes < 1 || passes > 1000000) throw InvalidArgument("option --passes: must be in [1, 10⁶], got " + opts.text("passes"));
  if (opts.integer("dim") < 0) throw InvalidArgument("option --dim: must be ≥ 0, got " + opts.text("dim"));
  if (opts.real("bias") < 0.0) throw InvalidArgument("option --bias: must be ≥ 0 (0: none), got " + opts.text("bias"));
  if (const std::string f = opts.text("features"); f != "auto" && f != "seen" && f != "all")
    throw InvalidArgument("option --features: must be auto, seen or all, got '" + f + "'");
  if (opts.text("features") == "seen" && !keeps_to_seen_features(opts.text("algo")))
    throw InvalidArgument("option --features seen: " + opts.text("algo") +
                          "'s SRHT mixes every feature of d, so its weights are not zero off the data's features "
                          "(use --features all)");
}

namespace {

// Step 1, parse: the run's options, read and checked before any work (a resumed run's options not
// given come from its checkpoint).
struct TrainSettings {
  LearnerSpec spec;
  CheckpointSettings checkpointing;
  std::string resume_path;
  std::optional<CheckpointHeader> resumed;
  bool quiet = false;
  double progress_every = 1.0;
  int passes = 1;
  index_t dim = 0;
  double bias = 0.0;
  std::string data, test, report, model, predictions;
  std::string features;  ///< auto, seen or all (a resumed run: its checkpoint's)
};

TrainSettings parse_settings(const Communicator& comm, OptionParser& opts) {
  TrainSettings s;
  s.checkpointing = checkpoint_settings(opts, comm);
  s.resume_path = opts.text("resume");
  if (!s.resume_path.empty()) s.resumed = adopt_checkpoint(opts, comm);  // options not given come from it
  check_train_options(opts);
  s.spec = spec_from(opts);
  s.quiet = opts.flag_set("quiet");
  s.progress_every = opts.real("progress-every");
  s.passes = static_cast<int>(opts.integer("passes"));
  s.dim = opts.integer("dim");
  s.bias = opts.real("bias");
  s.data = opts.text("data");
  s.test = opts.text("test");
  s.report = opts.text("report");
  s.model = opts.text("model");
  s.predictions = opts.text("predictions");
  if (!s.predictions.empty() && s.test.empty()) throw InvalidArgument("option --predictions: needs --test DATA");
  if (s.data == "-" && s.test == "-") throw InvalidArgument("option --test: standard input (-) is already --data");
  check_distinct_files(comm, {{"option --data", s.data, false},
                              {"option --test", s.test, false},
                              {"option --model", s.model, true},
                              {"option --report", s.report, true},
                              {"option --predictions", s.predictions, true}});
  // Fail on unwritable outputs now, not after the work (and on every rank, not just rank 0).
  check_writable(comm, s.report, "option --report", true);
  check_writable(comm, s.model.empty() ? "" : s.model + ".tmp", "option --model", false);
  check_writable(comm, s.predictions, "option --predictions", true);
  // A resumed run keeps the checkpoint's features (adopt_checkpoint checked a given --features).
  s.features = s.resumed ? (s.resumed->run.original_dim > 0 ? "seen" : "all") : opts.text("features");
  return s;
}

// Step 2, the data: the training examples as the learner steps them (its seen features, the bias
// feature) and their label map. Its sources point at each other: built in place, never moved.
struct TrainData {
  std::optional<CollectiveOwner<ExampleSource>> source;  // the file's examples
  std::shared_ptr<const FeatureMap> features;            // with seen features
  std::optional<CompactSource> compact;
  std::optional<BiasSource> biased;
  ExampleSource* unbiased = nullptr;  // the examples before the bias feature
  ExampleSource* examples = nullptr;  // what the learner steps
  LabelMap labels{LabelMap::Kind::real};
};

void open_training_data(const Communicator& comm, const OptionParser& opts, TrainSettings& s, TrainData& data,
                        TrainResults& r) {
  // Seen features read the data once more (the scan): keep the LIBSVM reader's examples when that may be so.
  const bool may_scan = s.features == "seen" || (s.features == "auto" && s.dim >= kSeenFeaturesFrom);
  DataInput input = open_data(comm, s.data, s.dim, "option --data", s.resumed ? "the checkpoint's d" : "option --dim",
                              s.passes + (may_scan ? 1 : 0), hdf5_names(opts));
  r.format = input.format;
  r.rows = input.rows;
  CollectiveOwner<ExampleSource>& source = data.source.emplace(std::move(input.source));
  r.dim = source->dim();
  data.unbiased = &*source;
  if (use_seen_features(s.features, r.format, r.dim, s.spec.algorithm)) {
    data.features = std::make_shared<const FeatureMap>(FeatureMap::scan(comm, *source, s.data));
    data.unbiased = &data.compact.emplace(*source, data.features);
    r.seen_features = data.features->partition().dim();
  }
  data.examples = &with_bias(comm, *data.unbiased, s.bias, data.biased);
  // The exact learners need equal blocks, which the bias feature's default place can break (when the
  // rank count divides d): they get the uniform split, the entries moving to their ranks.
  if (data.biased && needs_equal_blocks(s.spec.algorithm) && !data.examples->partition().has_equal_blocks()) {
    const BlockPartition uniform(data.unbiased->dim() + 1, comm.size());
    data.examples = &with_bias(comm, *data.unbiased, s.bias, data.biased, &uniform);
  }
  if (s.resumed && s.resumed->run.data_examples != 0 && r.rows != s.resumed->run.data_examples)
    throw InputError(s.data, 0, "has " + number_text(r.rows) + " examples, but the checkpoint '" + s.resume_path +
                                    "' was written for " + number_text(s.resumed->run.data_examples) + " (" +
                                    s.resumed->run.data_name + ")");
  // A bad --test spec fails now, not after training.
  (void)synthetic_spec(s.test, r.dim, "option --test", "option --test (with the training d)");
  // Regression keeps labels as they are: no need to scan them (a full pass for dense binary files
  // and synthetic regression data); a resumed run takes its label map from the checkpoint.
  const LabelRange labels_seen = s.resumed || !Loss(s.spec.loss).is_classification() ? LabelRange{}
                                 : input.known_labels                                 ? *input.known_labels
                                                                                      : label_range(comm, *source, s.data);
  data.labels = s.resumed ? s.resumed->run.labels : LabelMap::of_values(Loss(s.spec.loss), labels_seen.values, s.data);
  r.label_map = data.labels.describe();
  if (s.spec.loss == LossKind::softmax) s.spec.classes = s.resumed ? s.resumed->classes : data.labels.classes();
  r.classes = s.spec.loss == LossKind::softmax ? s.spec.classes : 1;
}

// Step 3, build: the learner, restored from the checkpoint when the run resumes.
std::unique_ptr<Learner> build_learner(const Communicator& comm, const OptionParser& opts, const TrainSettings& s,
                                       const TrainData& data, TrainResults& r) {
  std::unique_ptr<Learner> learner;
  try {
    learner = with_memory_context(s.spec.algorithm + " (d = " + number_text(data.unbiased->dim()) + ", K = " +
                                      number_text(r.classes) + ", ell = " + number_text(s.spec.ell) + ")",
                                  [&] { return make_learner(comm, data.examples->partition(), s.spec); });
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("option --algo " + s.spec.algorithm + ": " + e.what());
  }
  if (comm.rank() == 0 && !s.resumed) warn_unread_options(opts, s.spec, learner->spec());
  if (s.resumed) {
    require_same_options(*s.resumed, learner->spec(), s.resume_path);
    const TrainingState& state = s.resumed->run.state;
    if (state.pass > s.passes + 1 || (state.pass == s.passes + 1 && state.position > 0))
      throw InvalidArgument("option --passes " + opts.text("passes") + ": the checkpoint '" + s.resume_path +
                            "' is already in pass " + number_text(state.pass));
    load_checkpoint(s.resume_path, *learner);
    r.resumed = resumed_text(s.resume_path, *s.resumed, r, s.passes, comm.size());
  }
  return learner;
}

// Step 4, run: the passes, with progress and checkpoints; r.train holds what they did.
void run_training(const Communicator& comm, OptionParser& opts, const TrainSettings& s, TrainData& data,
                  Learner& learner, const TrainTestHooks& hooks, TrainResults& r) {
  TrainingOptions training{.passes = s.passes, .source_name = s.data};
  if (s.resumed) training.start = s.resumed->run.state;
  const bool classification = learner.loss().is_classification();
  // Rank 0 alone prints, by its own clock: nothing to agree on with the other ranks.
  if (comm.rank() == 0 && !s.quiet && s.progress_every > 0.0)
    training.progress = [&](const TrainingProgress& p) { print_progress(p, r.rows * s.passes, s.passes, classification); };
  training.progress_interval = s.progress_every;
  r.trace.attach(opts, training);
  if (!s.checkpointing.path.empty()) {
    install_stop_signals();
    training.checkpoint_every = s.checkpointing.every_examples;
    training.checkpoint_seconds = s.checkpointing.every_seconds;
    training.stop_requested = [] { return stop_signal() != 0; };
    training.checkpoint = [&](const TrainingState& state) {
      const CheckpointRun run{data.labels, state, s.passes, s.data, r.rows, s.bias, data.features ? r.dim : 0};
      detail::save_checkpoint_interrupted(s.checkpointing.path, learner, run, hooks.before_checkpoint_rename);
      r.saved = state;
    };
  }
  FaultInjectingSource faulty(*data.examples, hooks.fault);
  r.train = train(learner, hooks.fault.rank == comm.rank() ? faulty : *data.examples, data.labels, training);
  r.form = learner.spec().form;
}

// Step 5, evaluate: the final weights on --test (and its --predictions).
void evaluate_test(const Communicator& comm, const OptionParser& opts, const TrainSettings& s, const TrainData& data,
                   const Learner& learner, TrainResults& r) {
  DataInput test = open_data(comm, s.test, r.dim, "option --test", "option --test (with the training d)", 1,
                             hdf5_names(opts));
  r.test_format = test.format;
  CollectiveOwner<ExampleSource> test_source(std::move(test.source));
  std::optional<CompactSource> test_compact;  // the training data's features; the others' weights are zero
  ExampleSource* test_data = data.features ? &test_compact.emplace(*test_source, data.features) : &*test_source;
  std::optional<BiasSource> test_biased;
  ExampleSource& test_examples = with_bias(comm, *test_data, s.bias, test_biased, &learner.partition());
  std::optional<PredictionsFile> out;
  if (!s.predictions.empty()) {
    std::vector<double> w(static_cast<std::size_t>(learner.local_dim() * learner.outputs()));
    learner.weights(w);
    out.emplace(comm, s.predictions, "option --predictions", learner.loss(), data.labels, w);
  }
  r.test = evaluate(learner, test_examples, data.labels, s.test,
                    out ? ScoreSink([&](const LocalRow& x, std::span<const double>) { out->add(x); }) : ScoreSink());
  if (out) out->finish();
  r.tested = true;
}

// Step 6, report: the model file, the weights' counts, the summary and the JSON report.
void save_and_report(const Communicator& comm, const OptionParser& opts, const TrainSettings& s, const TrainData& data,
                     const Learner& learner, TrainResults& r, Clock::time_point wall_start) {
  if (!s.model.empty()) {
    const RemoveOnSignal guard(s.model + ".tmp");  // the library's temporary file (LinearModel::save)
    save_model(learner, data.labels, s.model, s.bias, data.features);
  }
  std::vector<double> w(static_cast<std::size_t>(learner.local_dim() * learner.outputs()));
  learner.weights(w);
  r.weights = learner.partition().dim() * learner.outputs();
  r.nonzero_weights = comm.allreduce_sum(static_cast<index_t>(std::count_if(w.begin(), w.end(), [](double v) { return v != 0.0; })));
  r.wall_seconds = comm.allreduce_max(std::chrono::duration<double>(Clock::now() - wall_start).count());
  if (comm.rank() == 0 && !s.quiet) {
    print_summary(opts, r);
    print_auto(learner);
  }
  if (!s.report.empty()) {
    const std::string text = comm.rank() == 0 ? report_json(opts, comm, learner, r) : std::string();
    write_text_file(comm, s.report, text, "option --report");
  }
}

}  // namespace

int train_configuration(const Communicator& comm, OptionParser& opts, TrainResults& r, const TrainTestHooks& hooks) {
  const auto wall_start = Clock::now();
  TrainSettings settings = parse_settings(comm, opts);
  TrainData data;
  open_training_data(comm, opts, settings, data, r);
  const std::unique_ptr<Learner> learner = build_learner(comm, opts, settings, data, r);
  if (comm.rank() == 0 && !settings.quiet) print_header(opts, comm, *learner, r);
  run_training(comm, opts, settings, data, *learner, hooks, r);
  if (r.train.stopped) return kExitStopped;
  r.parse = parse_throughput(comm, **data.source);
  if (!settings.test.empty()) evaluate_test(comm, opts, settings, data, *learner, r);
  save_and_report(comm, opts, settings, data, *learner, r, wall_start);
  return 0;
}

int run_train(const Communicator& comm, std::span<const std::string> args) {
  OptionParser opts = train_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  TrainResults r;
  const int status = train_configuration(comm, opts, r, train_test_hooks());
  if (status == kExitStopped) {
    const TrainingState& saved = r.saved;
    const std::string& path = opts.text("checkpoint");
    if (comm.rank() == 0)
      std::printf("adasketch train: stopped by %s after example %lld of pass %d/%d (%lld examples in all); the "
                  "checkpoint %s holds the run: continue it with --resume %s\n",
                  stop_signal() == SIGUSR1 ? "SIGUSR1" : "SIGTERM", static_cast<long long>(saved.position), saved.pass,
                  static_cast<int>(opts.integer("passes")), static_cast<long long>(saved.examples), path.c_str(),
                  path.c_str());
    std::fflush(stdout);
  }
  return status;
}

}  // namespace adasketch::driver
