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

int train_configuration(const Communicator& comm, OptionParser& opts, TrainResults& r) {
  const auto wall_start = Clock::now();
  const CheckpointSettings checkpointing = checkpoint_settings(opts, comm);
  const std::string resume_path = opts.text("resume");
  std::optional<CheckpointHeader> resumed;
  if (!resume_path.empty()) resumed = adopt_checkpoint(opts, comm);  // options not given come from it
  check_train_options(opts);
  LearnerSpec spec = spec_from(opts);
  const bool quiet = opts.flag_set("quiet");
  const double progress_every = opts.real("progress-every");
  const std::int64_t passes = opts.integer("passes");
  const index_t dim_option = opts.integer("dim");
  const double bias = opts.real("bias");
  const std::string path = opts.text("data"), test_path = opts.text("test");
  const std::string report = opts.text("report"), model_path = opts.text("model");
  const std::string predictions = opts.text("predictions");
  if (!predictions.empty() && test_path.empty()) throw InvalidArgument("option --predictions: needs --test DATA");
  if (path == "-" && test_path == "-") throw InvalidArgument("option --test: standard input (-) is already --data");
  check_distinct_files(comm, {{"option --data", path, false},
                              {"option --test", test_path, false},
                              {"option --model", model_path, true},
                              {"option --report", report, true},
                              {"option --predictions", predictions, true}});
  // Fail on unwritable outputs now, not after the work (and on every rank, not just rank 0).
  check_writable(comm, report, "option --report", true);
  check_writable(comm, model_path.empty() ? "" : model_path + ".tmp", "option --model", false);
  check_writable(comm, predictions, "option --predictions", true);

  // A resumed run keeps the checkpoint's features (adopt_checkpoint checked a given --features).
  const std::string features_choice =
      resumed ? (resumed->run.original_dim > 0 ? "seen" : "all") : opts.text("features");
  // Seen features read the data once more (the scan): keep the LIBSVM reader's examples when that may be so.
  const bool may_scan = features_choice == "seen" || (features_choice == "auto" && dim_option >= kSeenFeaturesFrom);
  DataInput data = open_data(comm, path, dim_option, "option --data", resumed ? "the checkpoint's d" : "option --dim",
                             static_cast<int>(passes) + (may_scan ? 1 : 0), hdf5_names(opts));
  r.format = data.format;
  r.rows = data.rows;
  CollectiveOwner<ExampleSource> source(std::move(data.source));
  r.dim = source->dim();
  std::shared_ptr<const FeatureMap> features;
  std::optional<CompactSource> compact;
  ExampleSource* data_examples = &*source;
  if (use_seen_features(features_choice, r.format, r.dim, spec.algorithm)) {
    features = std::make_shared<const FeatureMap>(FeatureMap::scan(comm, *source, path));
    data_examples = &compact.emplace(*source, features);
    r.seen_features = features->partition().dim();
  }
  std::optional<BiasSource> biased;
  ExampleSource* examples = &with_bias(comm, *data_examples, bias, biased);
  if (resumed && resumed->run.data_examples != 0 && r.rows != resumed->run.data_examples)
    throw InputError(path, 0, "has " + number_text(r.rows) + " examples, but the checkpoint '" + resume_path +
                                  "' was written for " + number_text(resumed->run.data_examples) + " (" +
                                  resumed->run.data_name + ")");
  // A bad --test spec fails now, not after training.
  (void)synthetic_spec(test_path, r.dim, "option --test", "option --test (with the training d)");
  // Regression keeps labels as they are: no need to scan them (a full pass for dense binary files
  // and synthetic regression data); a resumed run takes its label map from the checkpoint.
  const LabelRange labels_seen = resumed || !Loss(spec.loss).is_classification() ? LabelRange{}
                                 : data.known_labels                             ? *data.known_labels
                                                                                 : label_range(comm, *source, path);
  const LabelMap labels = resumed ? resumed->run.labels : LabelMap::of_values(Loss(spec.loss), labels_seen.values, path);
  r.label_map = labels.describe();
  if (spec.loss == LossKind::softmax) spec.classes = resumed ? resumed->classes : labels.classes();
  r.classes = spec.loss == LossKind::softmax ? spec.classes : 1;
  std::unique_ptr<Learner> learner;
  const auto build = [&] {
    return with_memory_context(spec.algorithm + " (d = " + number_text(data_examples->dim()) + ", K = " + number_text(r.classes) +
                                   ", ell = " + number_text(spec.ell) + ")",
                               [&] { return make_learner(comm, examples->partition(), spec); });
  };
  try {
    try {
      learner = build();
    } catch (const InvalidArgument&) {
      // The exact learners need equal blocks, which the bias feature's default place can break (when
      // the rank count divides d): they get the uniform split, the entries moving to their ranks.
      if (!biased || examples->partition().is_uniform()) throw;
      const BlockPartition uniform(data_examples->dim() + 1, comm.size());
      examples = &with_bias(comm, *data_examples, bias, biased, &uniform);
      learner = build();
    }
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("option --algo " + spec.algorithm + ": " + e.what());
  }
  if (comm.rank() == 0 && !resumed) warn_unread_options(opts, spec, learner->spec());
  TrainingOptions training{.passes = static_cast<int>(passes), .source_name = path};
  if (resumed) {
    require_same_options(*resumed, learner->spec(), resume_path);
    const TrainingState& s = resumed->run.state;
    if (s.pass > passes + 1 || (s.pass == passes + 1 && s.position > 0))
      throw InvalidArgument("option --passes " + opts.text("passes") + ": the checkpoint '" + resume_path +
                            "' is already in pass " + number_text(s.pass));
    load_checkpoint(resume_path, *learner);
    training.start = s;
    r.resumed = resumed_text(resume_path, *resumed, r, training.passes, comm.size());
  }
  if (comm.rank() == 0 && !quiet) print_header(opts, comm, *learner, r);

  const bool classification = learner->loss().is_classification();
  // Rank 0 alone prints, by its own clock: nothing to agree on with the other ranks.
  if (comm.rank() == 0 && !quiet && progress_every > 0.0)
    training.progress = [&](const TrainingProgress& p) { print_progress(p, r.rows * passes, training.passes, classification); };
  training.progress_interval = progress_every;
  r.trace.attach(opts, training);
  TrainingState saved;  // the last checkpoint's
  const std::function<void()> crash_hook = crash_before_rename_hook();
  if (!checkpointing.path.empty()) {
    install_stop_signals();
    training.checkpoint_every = checkpointing.every_examples;
    training.checkpoint_seconds = checkpointing.every_seconds;
    training.stop_requested = [] { return stop_signal() != 0; };
    training.checkpoint = [&](const TrainingState& state) {
      const CheckpointRun run{labels, state, training.passes, path, r.rows, bias, features ? r.dim : 0};
      detail::save_checkpoint_interrupted(checkpointing.path, *learner, run, crash_hook);
      saved = state;
    };
  }
  const InjectedFault fault = requested_fault();  // a test hook (fault_injection.hpp)
  FaultInjectingSource faulty(*examples, fault);
  r.train = train(*learner, fault.rank == comm.rank() ? faulty : *examples, labels, training);
  r.form = learner->spec().form;
  if (r.train.stopped) {
    r.saved = saved;
    return kExitStopped;
  }
  r.parse = parse_throughput(comm, *source);
  if (!test_path.empty()) {
    DataInput test = open_data(comm, test_path, r.dim, "option --test", "option --test (with the training d)", 1,
                               hdf5_names(opts));
    r.test_format = test.format;
    CollectiveOwner<ExampleSource> test_source(std::move(test.source));
    std::optional<CompactSource> test_compact;  // the training data's features; the others' weights are zero
    ExampleSource* test_data = features ? &test_compact.emplace(*test_source, features) : &*test_source;
    std::optional<BiasSource> test_biased;
    ExampleSource& test_examples = with_bias(comm, *test_data, bias, test_biased, &learner->partition());
    std::optional<PredictionsFile> out;
    if (!predictions.empty()) {
      std::vector<double> w(static_cast<std::size_t>(learner->local_dim() * learner->outputs()));
      learner->weights(w);
      out.emplace(comm, predictions, "option --predictions", learner->loss(), labels, w);
    }
    r.test = evaluate(*learner, test_examples, labels, test_path,
                      out ? ScoreSink([&](const LocalRow& x, std::span<const double>) { out->add(x); }) : ScoreSink());
    if (out) out->finish();
    r.tested = true;
  }
  if (!model_path.empty()) {
    const RemoveOnSignal guard(model_path + ".tmp");  // the library's temporary file (LinearModel::save)
    save_model(*learner, labels, model_path, bias, features);
  }
  {
    std::vector<double> w(static_cast<std::size_t>(learner->local_dim() * learner->outputs()));
    learner->weights(w);
    r.weights = learner->partition().dim() * learner->outputs();
    r.nonzero_weights = comm.allreduce_sum(static_cast<index_t>(std::count_if(w.begin(), w.end(), [](double v) { return v != 0.0; })));
  }
  r.wall_seconds = comm.allreduce_max(std::chrono::duration<double>(Clock::now() - wall_start).count());

  if (comm.rank() == 0 && !quiet) print_summary(opts, r);
  if (!report.empty()) {
    const std::string text = comm.rank() == 0 ? report_json(opts, comm, *learner, r) : std::string();
    write_text_file(comm, report, text, "option --report");
  }
  return 0;
}

int run_train(const Communicator& comm, std::span<const std::string> args) {
  OptionParser opts = train_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  TrainResults r;
  const int status = train_configuration(comm, opts, r);
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
