// `adasketch train`: one online learner over a data file (in file order, for --passes passes), with
// rank-0 progress, an optional test evaluation, model file and JSON report.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "adasketch/error.hpp"
#include "adasketch/learners/label_map.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/learners/linear_model.hpp"
#include "adasketch/learners/online_training.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"
#include "data_input.hpp"
#include "json_writer.hpp"
#include "report_file.hpp"

namespace adasketch::driver {

namespace {

using Clock = std::chrono::steady_clock;

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

OptionParser make_parser() {
  const LearnerSpec d;  // the defaults shown in --help are the library's
  OptionParser p(std::string(kProgram) + " train", "--algo NAME --data FILE [options]",
                 "Trains an online learner on FILE, one example at a time in file order (--passes times), then\n"
                 "scores --test FILE with the final weights and saves --model. Rank 0 prints progress on stdout at\n"
                 "most once a second (examples/s, online mistake rate, estimated time left) and a summary. Labels are\n"
                 "mapped from the training file: ±1 as is, 0/1 and 1/2 to −1/+1 (binary losses); 1..K or 0..K−1 to\n"
                 "classes 0..K−1 with K from the labels (softmax); as is (regression). FILE is LIBSVM text (plain or\n"
                 "gzip) or the dense binary format (magic ADSKDNS1). Each learner reads only its hyperparameters.");
  p.required("algo", OptionType::String, "NAME",
             "ada-diag, ada-diag-da, ada-fd, ada-fd-da, fast-ada-fd, fast-ada-fd-da, ada-gp, ada-gp-da, ada-dp, "
             "ada-dp-da, fd-son, fast-fd-son, rp-son, oja-son, rfd-son or fast-rfd-son");
  p.required("data", OptionType::String, "FILE", "training examples");
  p.optional("loss", OptionType::String, "L", d.loss, "squared, absolute, logistic, hinge, squared-hinge or softmax");
  p.optional("ell", OptionType::Integer, "N", std::to_string(d.ell), "sketch size ℓ ≥ 1 (sketched learners)");
  p.optional("eta", OptionType::Real, "ETA", number_text(d.eta), "AdaGrad step size η; SON: scale of the η_t schedule");
  p.optional("delta", OptionType::Real, "DELTA", number_text(d.delta), "AdaGrad δ (σ in the ADA-GP/DP paper)");
  p.optional("alpha0", OptionType::Real, "A", number_text(d.alpha0), "SON α; RFD-SON α₀");
  p.optional("C", OptionType::Real, "C", number_text(d.C), "SON projection radius: K_t = {w : |wᵀx_t| ≤ C}");
  p.optional("sigma", OptionType::Real, "SIGMA", number_text(d.sigma), "SON curvature σ_t (constant)");
  p.optional("eta-schedule", OptionType::String, "S", d.eta_schedule,
             "SON η_t: constant (η), inv-t (η/t) or inv-sqrt-t (η/√t)");
  p.optional("passes", OptionType::Integer, "P", "1", "passes over the training data, ≥ 1");
  p.optional("test", "FILE", "test examples, scored after training (a LIBSVM file is read with the training d)");
  p.optional("dim", OptionType::Integer, "D", "0",
             "number of features d; 0 takes the largest index of a LIBSVM file or the dense header's d");
  p.optional("seed", OptionType::Unsigned, "S", std::to_string(d.seed), "random seed of the rp and oja sketches");
  p.optional("model", "FILE", "save the trained model (format in the README; loadable at any rank count)");
  p.optional("report", "FILE", "write a JSON report of the options and results (rank 0)");
  return p;
}

LearnerSpec spec_from(const OptionParser& opts) {
  LearnerSpec spec;
  spec.algorithm = opts.text("algo");
  spec.loss = opts.text("loss");
  try {
    (void)Loss(spec.loss);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("option --loss: ") + e.what());
  }
  spec.ell = opts.integer("ell");
  if (spec.ell < 1) throw InvalidArgument("option --ell: must be a positive integer, got " + opts.text("ell"));
  spec.eta = opts.real("eta");
  spec.delta = opts.real("delta");
  spec.alpha0 = opts.real("alpha0");
  spec.C = opts.real("C");
  spec.sigma = opts.real("sigma");
  spec.eta_schedule = opts.text("eta-schedule");
  spec.seed = opts.unsigned_integer("seed");
  return spec;
}

struct Results {
  std::string format;
  index_t dim = 0, rows = 0;
  int classes = 1;
  std::string label_map;
  TrainingStats train;
  bool tested = false;
  std::string test_format;
  EvaluationStats test;
  double wall_seconds = 0.0;
};

double rate(index_t part, index_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

void print_header(const OptionParser& opts, const Communicator& comm, const Learner& learner, const Results& r) {
  std::printf("adasketch train: %s, %s loss%s, %d rank%s\n", learner.name().c_str(), learner.loss().name().c_str(),
              learner.outputs() > 1 ? (", K = " + std::to_string(learner.outputs())).c_str() : "", comm.size(),
              comm.size() == 1 ? "" : "s");
  std::printf("  data          %s (%s): d = %lld, examples = %lld, labels %s\n", opts.text("data").c_str(),
              r.format.c_str(), static_cast<long long>(r.dim), static_cast<long long>(r.rows), r.label_map.c_str());
  std::printf("  options       ell = %s, eta = %s, delta = %s, alpha0 = %s, C = %s, sigma = %s, eta-schedule = %s, "
              "seed = %s, passes = %s\n",
              opts.text("ell").c_str(), opts.text("eta").c_str(), opts.text("delta").c_str(), opts.text("alpha0").c_str(),
              opts.text("C").c_str(), opts.text("sigma").c_str(), opts.text("eta-schedule").c_str(),
              opts.text("seed").c_str(), opts.text("passes").c_str());
  std::fflush(stdout);
}

void print_progress(const TrainingProgress& p, index_t total, int passes, bool classification) {
  const double per_second = p.seconds > 0.0 ? static_cast<double>(p.examples) / p.seconds : 0.0;
  const double left = per_second > 0.0 ? static_cast<double>(total - p.examples) / per_second : 0.0;
  std::printf("  pass %d/%d  %lld/%lld examples (%.1f%%)  %.4g examples/s  ", p.pass, passes,
              static_cast<long long>(p.examples), static_cast<long long>(total), 100.0 * rate(p.examples, total), per_second);
  if (classification)
    std::printf("mistake rate %.4f", rate(p.mistakes, p.examples));
  else
    std::printf("mean loss %.6g", p.examples > 0 ? p.cumulative_loss / static_cast<double>(p.examples) : 0.0);
  std::printf("  about %.0f s left\n", std::ceil(left));
  std::fflush(stdout);
}

void print_summary(const OptionParser& opts, const Results& r) {
  const TrainingStats& t = r.train;
  const double n = static_cast<double>(t.examples);
  std::printf("  examples      %lld (%s pass%s)\n", static_cast<long long>(t.examples), opts.text("passes").c_str(),
              opts.integer("passes") == 1 ? "" : "es");
  if (t.classified)
    std::printf("  online        mistakes %lld (rate %.6g), cumulative loss %.6g (mean %.6g)\n",
                static_cast<long long>(t.mistakes), rate(t.mistakes, t.examples), t.cumulative_loss, t.cumulative_loss / n);
  else
    std::printf("  online        cumulative loss %.6g (mean %.6g)\n", t.cumulative_loss, t.cumulative_loss / n);
  std::printf("  time          %.4g s, %.4g s/example, %.4g examples/s\n", t.seconds, t.seconds / n,
              t.seconds > 0.0 ? n / t.seconds : 0.0);
  if (r.tested) {
    std::printf("  test          %s (%s): %lld examples", opts.text("test").c_str(), r.test_format.c_str(),
                static_cast<long long>(r.test.examples));
    if (std::isfinite(r.test.accuracy))
      std::printf(", accuracy %.6g (mistakes %lld)", r.test.accuracy, static_cast<long long>(r.test.mistakes));
    std::printf(", mean loss %.6g\n", r.test.mean_loss);
  }
  if (opts.given("model")) std::printf("  model         %s\n", opts.text("model").c_str());
  std::fflush(stdout);
}

std::string report_json(const OptionParser& opts, const Communicator& comm, const Learner& learner, const Results& r) {
  const TrainingStats& t = r.train;
  const bool classification = t.classified;  // also a regression loss on ±1 labels (sign mistakes)
  JsonWriter j;
  j.begin_object();
  j.member("command", "train");
  j.member("version", ADASKETCH_VERSION);
  j.key("options");
  j.begin_object();
  opts.write_json(j);
  j.end_object();
  j.member("algorithm", learner.name());
  j.member("loss", learner.loss().name());
  j.member("classes", r.classes);
  j.member("label_map", r.label_map);
  j.member("ranks", comm.size());
  j.member("format", r.format);
  j.member("d", r.dim);
  j.member("examples_per_pass", r.rows);
  j.member("passes", opts.integer("passes"));
  j.member("examples", t.examples);
  j.key("online_mistakes");
  classification ? j.value(t.mistakes) : j.null();
  j.key("mistake_rate");
  classification ? j.value(rate(t.mistakes, t.examples)) : j.null();
  j.member("cumulative_loss", t.cumulative_loss);
  j.member("mean_loss", t.examples > 0 ? t.cumulative_loss / static_cast<double>(t.examples) : 0.0);
  j.key("test_examples");
  r.tested ? j.value(r.test.examples) : j.null();
  j.key("test_accuracy");
  r.tested ? j.value(r.test.accuracy) : j.null();  // NaN (null) for regression
  j.key("test_mean_loss");
  r.tested ? j.value(r.test.mean_loss) : j.null();
  j.member("seconds", t.seconds);
  j.member("seconds_per_example", t.examples > 0 ? t.seconds / static_cast<double>(t.examples) : 0.0);
  j.member("examples_per_second", t.seconds > 0.0 ? static_cast<double>(t.examples) / t.seconds : 0.0);
  j.key("test_seconds");
  r.tested ? j.value(r.test.seconds) : j.null();
  j.member("wall_seconds", r.wall_seconds);
  j.end_object();
  return j.str();
}

}  // namespace

int run_train(const Communicator& comm, std::span<const std::string> args) {
  const auto wall_start = Clock::now();
  OptionParser opts = make_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  LearnerSpec spec = spec_from(opts);
  const std::int64_t passes = opts.integer("passes");
  if (passes < 1 || passes > 1000000) throw InvalidArgument("option --passes: must be in [1, 10⁶], got " + opts.text("passes"));
  const index_t dim_option = opts.integer("dim");
  if (dim_option < 0) throw InvalidArgument("option --dim: must be ≥ 0, got " + opts.text("dim"));
  const std::string path = opts.text("data"), test_path = opts.text("test");
  const std::string report = opts.text("report"), model_path = opts.text("model");
  check_distinct_files(comm, {{"option --data", path, false},
                              {"option --test", test_path, false},
                              {"option --model", model_path, true},
                              {"option --report", report, true}});
  // Fail on unwritable outputs now, not after the work (and on every rank, not just rank 0).
  check_writable(comm, report, "option --report", true);
  check_writable(comm, model_path.empty() ? "" : model_path + ".tmp", "option --model", false);

  Results r;
  DataInput data = open_data(comm, path, dim_option, "option --dim");
  r.format = data.format;
  r.rows = data.rows;
  CollectiveOwner<ExampleSource> source(std::move(data.source));
  r.dim = source->dim();
  // Regression keeps labels as they are: no need to scan them (a full pass for dense binary files).
  const LabelRange labels_seen = Loss(spec.loss).is_classification() ? label_range(*source, path) : LabelRange{};
  if (spec.loss == "softmax")
    spec.classes = LabelMap::softmax_classes(path, labels_seen.min, labels_seen.max, labels_seen.integral);
  r.classes = spec.loss == "softmax" ? spec.classes : 1;
  std::unique_ptr<Learner> learner;
  try {
    learner = with_memory_context(spec.algorithm + " (d = " + std::to_string(r.dim) + ", K = " + std::to_string(r.classes) +
                                      ", ell = " + std::to_string(spec.ell) + ")",
                                  [&] { return make_learner(comm, r.dim, spec); });
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("option --algo " + spec.algorithm + ": " + e.what());
  }
  const LabelMap labels = LabelMap::infer(learner->loss(), labels_seen.min, labels_seen.max);
  r.label_map = labels.describe();
  if (comm.rank() == 0) print_header(opts, comm, *learner, r);

  TrainingOptions training{.passes = static_cast<int>(passes), .source_name = path};
  const bool classification = learner->loss().is_classification();
  if (comm.rank() == 0)
    training.progress = [&](const TrainingProgress& p) { print_progress(p, r.rows * passes, training.passes, classification); };
  r.train = train(*learner, *source, labels, training);
  if (!test_path.empty()) {
    DataInput test = open_data(comm, test_path, r.dim, "option --test (with the training d)");
    r.test_format = test.format;
    CollectiveOwner<ExampleSource> test_source(std::move(test.source));
    r.test = evaluate(*learner, *test_source, labels, test_path);
    r.tested = true;
  }
  if (!model_path.empty()) save_model(*learner, labels, model_path);
  r.wall_seconds = comm.allreduce_max(std::chrono::duration<double>(Clock::now() - wall_start).count());

  if (comm.rank() == 0) print_summary(opts, r);
  if (!report.empty()) {
    const std::string text = comm.rank() == 0 ? report_json(opts, comm, *learner, r) : std::string();
    write_text_file(comm, report, text, "option --report");
  }
  return 0;
}

}  // namespace adasketch::driver
