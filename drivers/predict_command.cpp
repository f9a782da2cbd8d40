// `adasketch predict`: score a saved model (any rank count) on a data file.
#include <cmath>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "adasketch/error.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/training/evaluate.hpp"
#include "bias_input.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"
#include "data_input.hpp"
#include "json_writer.hpp"
#include "predictions_file.hpp"
#include "report_file.hpp"

namespace adasketch::driver {

namespace {

using Clock = std::chrono::steady_clock;

OptionParser make_parser() {
  OptionParser p(std::string(kProgram) + " predict", "--model FILE --data DATA [options]",
                 "Scores the examples of --data with a model saved by `adasketch train --model` (at any rank count)\n"
                 "and prints (rank 0) the accuracy (classification) and the mean loss. Labels are mapped with the\n"
                 "model's label map, the one its training data chose.\n\n" + data_help());
  p.required("model", OptionType::String, "FILE", "a model file written by `adasketch train --model`");
  p.required("data", OptionType::String, "DATA", "examples to score: a file or a synthetic spec");
  p.optional("report", "FILE", "write a JSON report of the options and results (rank 0)");
  add_quiet_option(p);
  p.optional("predictions", "FILE",
             "write one line per example: binary LABEL SCORE, softmax LABEL p_0 ... p_K-1, regression the prediction");
  add_hdf5_options(p);
  return p;
}

void print_summary(const OptionParser& opts, const Communicator& comm, const LinearModel& model,
                   const std::string& format, const EvaluationStats& s) {
  std::printf("adasketch predict: %s (%s, %s loss, d = %lld, K = %d), %d rank%s\n", opts.text("model").c_str(),
              model.algorithm().c_str(), model.loss().name().c_str(), static_cast<long long>(model.original_dim()),
              model.outputs(), comm.size(), comm.size() == 1 ? "" : "s");
  std::printf("  labels        %s\n", model.labels().describe().c_str());
  std::printf("  data          %s (%s): %lld examples\n", opts.text("data").c_str(), format.c_str(),
              static_cast<long long>(s.examples));
  if (std::isfinite(s.accuracy))
    std::printf("  accuracy      %.6g (mistakes %lld)\n", s.accuracy, static_cast<long long>(s.mistakes));
  std::printf("  mean loss     %.6g\n", s.mean_loss);
  std::printf("  time          %.4g s\n", s.seconds);
  std::fflush(stdout);
}

std::string report_json(const OptionParser& opts, const Communicator& comm, const LinearModel& model,
                        const std::string& format, const EvaluationStats& s, double wall_seconds) {
  JsonWriter j;
  begin_report(j, "predict", opts);
  j.member("algorithm", model.algorithm());
  j.member("loss", model.loss().name());
  j.member("classes", model.outputs());
  j.member("label_map", model.labels().describe());
  j.member("ranks", comm.size());
  j.member("format", format);
  j.member("d", model.original_dim());
  j.member("examples", s.examples);
  j.key("mistakes");
  std::isfinite(s.accuracy) ? j.value(s.mistakes) : j.null();
  j.member("accuracy", s.accuracy);  // NaN (null) for regression
  j.member("mean_loss", s.mean_loss);
  j.member("seconds", s.seconds);
  j.member("seconds_per_example", s.examples > 0 ? s.seconds / static_cast<double>(s.examples) : 0.0);
  j.member("wall_seconds", wall_seconds);
  j.end_object();
  return j.str();
}

}  // namespace

int run_predict(const Communicator& comm, std::span<const std::string> args) {
  const auto wall_start = Clock::now();
  OptionParser opts = make_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  const std::string report = opts.text("report"), path = opts.text("data"), predictions = opts.text("predictions");
  check_distinct_files(comm, {{"option --model", opts.text("model"), false},
                              {"option --data", path, false},
                              {"option --report", report, true},
                              {"option --predictions", predictions, true}});
  check_writable(comm, report, "option --report", true);
  check_writable(comm, predictions, "option --predictions", true);
  LinearModel model = LinearModel::load(comm, opts.text("model"));
  DataInput data = open_data(comm, path, model.original_dim(), "option --data", "option --data (with the model's d)", 1,
                              hdf5_names(opts));
  CollectiveOwner<ExampleSource> source(std::move(data.source));
  std::optional<CompactSource> compact;  // a model of seen features: the data on them (the others' weights are zero)
  ExampleSource* data_examples = model.features() ? &compact.emplace(*source, model.features()) : &*source;
  std::optional<BiasSource> biased;  // the model's bias feature, split as the training run split it
  ExampleSource& examples = with_bias(comm, *data_examples, model.bias(), biased);
  if (biased) model = LinearModel::load(comm, opts.text("model"), examples.partition());
  std::optional<PredictionsFile> out;
  if (!predictions.empty()) out.emplace(comm, predictions, "option --predictions", model.loss(), model.labels(), model.weights());
  const EvaluationStats stats =
      evaluate(model, examples, path, out ? ScoreSink([&](const LocalRow& x, std::span<const double>) { out->add(x); }) : ScoreSink());
  if (out) out->finish();
  const double wall_seconds = comm.allreduce_max(std::chrono::duration<double>(Clock::now() - wall_start).count());
  if (comm.rank() == 0 && !opts.flag_set("quiet")) print_summary(opts, comm, model, data.format, stats);
  if (!report.empty()) {
    const std::string text = comm.rank() == 0 ? report_json(opts, comm, model, data.format, stats, wall_seconds) : std::string();
    write_text_file(comm, report, text, "option --report");
  }
  return 0;
}

}  // namespace adasketch::driver
