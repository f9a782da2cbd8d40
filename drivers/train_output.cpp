#include "train_output.hpp"

#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "json_writer.hpp"
#include "report_file.hpp"

#include "adasketch/learners/auto_tune/auto_tuned_learner.hpp"
#include "adasketch/number_text.hpp"

namespace adasketch::driver {

namespace {

double rate(index_t part, index_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0; }

// The hyperparameters of the header's options line, shown whether given or not (with passes).
const std::set<std::string> kShownAlways = {"ell", "eta", "delta", "alpha0", "C", "sigma", "eta-schedule", "seed"};

}  // namespace

void print_header(const OptionParser& opts, const Communicator& comm, const Learner& learner, const TrainResults& r) {
  std::printf("adasketch train: %s, %s loss%s, %d rank%s\n", learner.name().c_str(), learner.loss().name().c_str(),
              learner.outputs() > 1 ? (", K = " + number_text(learner.outputs())).c_str() : "", comm.size(),
              comm.size() == 1 ? "" : "s");
  std::printf("  data          %s (%s): d = %lld, examples = %lld, labels %s\n", opts.text("data").c_str(),
              r.format.c_str(), static_cast<long long>(r.dim), static_cast<long long>(r.rows), r.label_map.c_str());
  if (r.seen_features > 0)
    std::printf("  features      the %lld that occur in the data, of d = %lld (--features seen)\n",
                static_cast<long long>(r.seen_features), static_cast<long long>(r.dim));
  if (opts.real("bias") > 0.0)
    std::printf("  bias          %s, as feature %lld of every example\n", opts.text("bias").c_str(),
                static_cast<long long>(r.dim + 1));
  std::printf("  options       ell = %s, eta = %s, delta = %s, alpha0 = %s, C = %s, sigma = %s, eta-schedule = %s, "
              "seed = %s, passes = %s\n",
              opts.text("ell").c_str(), opts.text("eta").c_str(), opts.text("delta").c_str(), opts.text("alpha0").c_str(),
              opts.text("C").c_str(), opts.text("sigma").c_str(), opts.text("eta-schedule").c_str(),
              opts.text("seed").c_str(), opts.text("passes").c_str());
  // The other hyperparameters, where given.
  std::string more;
  const LearnerSpec any;
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, const auto&) {
        const std::string name(h.option);
        if (kShownAlways.contains(name) || !opts.given(name)) return;
        if (h.kind == HyperparameterKind::flag && !opts.flag_set(name)) return;
        more += (more.empty() ? "" : ", ") + name;
        if (h.kind != HyperparameterKind::flag) more += " = " + opts.text(name);
      },
      any);
  if (!more.empty()) std::printf("                %s\n", more.c_str());
  if (!r.resumed.empty()) std::printf("  resumed       %s\n", r.resumed.c_str());
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

namespace {

// The candidates of --auto: what each varies (η, and α for SON), as "eta 0.3" or "alpha0 100 eta 0.1".
bool varies_alpha(const AutoTunedLearner& tuned) {
  for (const auto& c : tuned.candidates())
    if (c.spec.alpha0 != tuned.candidates().front().spec.alpha0) return true;
  return false;
}

std::string candidate_text(const AutoTunedLearner& tuned, const LearnerSpec& spec) {
  return (varies_alpha(tuned) ? "alpha0 " + number_text(spec.alpha0) + " " : std::string()) + "eta " + number_text(spec.eta);
}

}  // namespace

void print_auto(const Learner& learner) {
  const auto* tuned = dynamic_cast<const AutoTunedLearner*>(&learner);
  if (tuned == nullptr) return;
  const auto& c = tuned->candidates();
  const auto lead = static_cast<std::size_t>(tuned->leader());
  std::printf("  auto          %s %s over the first %lld examples, of %zu candidates:\n",
              tuned->decided() ? "the race chose" : "the race was not over: its leader is", candidate_text(*tuned, c[lead].spec).c_str(),
              static_cast<long long>(learner.spec().auto_examples), c.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    std::printf("                %s %-24s", i == lead ? "*" : " ", candidate_text(*tuned, c[i].spec).c_str());
    if (c[i].failed)
      std::printf("diverged\n");
    else
      std::printf("mistakes %lld, cumulative loss %.6g\n", static_cast<long long>(c[i].mistakes), c[i].loss);
  }
}

void print_summary(const OptionParser& opts, const TrainResults& r) {
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
  if (r.form != FormChoice::automatic) std::printf("  sketch form   %s\n", to_string(r.form).c_str());
  if (r.parse)
    std::printf("  parse         %.4g MB/s, %.4g examples/s (%.4g s)\n", r.parse->megabytes_per_second(),
                r.parse->examples_per_second(), r.parse->seconds);
  if (r.tested) {
    std::printf("  test          %s (%s): %lld examples", opts.text("test").c_str(), r.test_format.c_str(),
                static_cast<long long>(r.test.examples));
    if (std::isfinite(r.test.accuracy))
      std::printf(", accuracy %.6g (mistakes %lld)", r.test.accuracy, static_cast<long long>(r.test.mistakes));
    std::printf(", mean loss %.6g\n", r.test.mean_loss);
  }
  std::printf("  weights       %lld of %lld nonzero\n", static_cast<long long>(r.nonzero_weights), static_cast<long long>(r.weights));
  if (opts.given("model")) std::printf("  model         %s\n", opts.text("model").c_str());
  std::fflush(stdout);
}

std::string report_json(const OptionParser& opts, const Communicator& comm, const Learner& learner, const TrainResults& r) {
  const TrainingStats& t = r.train;
  const bool classification = t.classified;  // also a regression loss on ±1 labels (sign mistakes)
  JsonWriter j;
  begin_report(j, "train", opts);
  j.member("algorithm", learner.name());
  j.member("loss", learner.loss().name());
  j.member("classes", r.classes);
  j.key("form");  // the sketch's form; null for a learner without a sketch
  r.form != FormChoice::automatic ? j.value(to_string(r.form)) : j.null();
  j.member("label_map", r.label_map);
  j.member("ranks", comm.size());
  j.member("format", r.format);
  j.member("d", r.dim);
  j.member("learner_features", r.seen_features > 0 ? r.seen_features : r.dim);  // d_c with --features seen, else d
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
  j.key("parse_seconds");
  r.parse ? j.value(r.parse->seconds) : j.null();
  j.key("parse_megabytes_per_second");
  r.parse ? j.value(r.parse->megabytes_per_second()) : j.null();
  j.key("parse_examples_per_second");
  r.parse ? j.value(r.parse->examples_per_second()) : j.null();
  j.key("test_seconds");
  r.tested ? j.value(r.test.seconds) : j.null();
  j.member("wall_seconds", r.wall_seconds);
  j.member("weights", r.weights);
  j.member("nonzero_weights", r.nonzero_weights);
  r.trace.write(j, classification);
  j.key("auto");  // --auto: the race; null without it
  if (const auto* tuned = dynamic_cast<const AutoTunedLearner*>(&learner)) {
    const auto& c = tuned->candidates();
    j.begin_object();
    j.member("examples", learner.spec().auto_examples);
    j.member("decided", tuned->decided());
    j.member("chosen", tuned->leader());
    j.key("candidates");
    j.begin_array();
    for (const auto& one : c) {
      j.begin_object();
      j.member("eta", one.spec.eta);
      j.member("alpha0", one.spec.alpha0);
      j.member("failed", one.failed);
      j.member("online_mistakes", one.mistakes);
      j.member("cumulative_loss", one.loss);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  } else {
    j.null();
  }
  j.end_object();
  return j.str();
}

}  // namespace adasketch::driver
