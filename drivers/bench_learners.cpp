// adasketch-bench-learners: seconds per example of online learners (by default ADA-FD, FD-SON,
// RFD-SON and their fast variants), next to the time of one streaming read of the rank's sketch
// buffer measured in the same run (docs/design.md §3–4: with lazy weights a dense step reads the sketch
// once and does one small Allreduce, so a step should cost about one such read).
//
// Examples (bench_examples.hpp): synthetic dense rows with labels from a fixed random linear
// classifier, a fresh row per example by default (a learner cannot fit a stream of new rows in
// d = 10⁶ dimensions, so its gradients stay of the same size and every one is inserted into the
// sketch, as on a real stream); or a data file (--data, e.g. a9a), read into memory before timing.
// Every learner starts fresh and takes the same examples: --warmup untimed steps (the sketch fills
// and shrinks at least once), then --examples timed steps, each timed on its own, in --rounds
// consecutive rounds.
//
// Reported per learner:
//   s/example   the slowest rank's time in Learner::step, per timed example, of the best round (a
//               machine busy with something else, or the kernel faulting in fresh pages, slows some
//               rounds; the JSON has the mean over all rounds too);
//   read        one streaming read of a buffer of exactly the learner's sketch storage on the rank
//               (Sketch::rows() × local_dim() doubles: R = ℓ, or 2ℓ for the fast variants; for a
//               learner without a sketch, ADA-DIAG, its d_p × K weights), best of --reads, all ranks
//               reading at once (bench_support.hpp);
//   ratio       s/example / read;
//   MPI         the ranks' mean time in MPI_Allreduce during the timed steps (a PMPI wrapper, which
//               also sees the Allreduce inside FD shrinks) over the mean s/example, and Allreduce
//               calls (and, in the JSON, bytes) per example.
// --allreduce-probe N,...: then the seconds per MPI_Allreduce of N doubles on its own, for the
// latency term of a scaling model (jobs/scaling.sbatch); --algo none runs only the probe.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/sketch/sketch.hpp"
#include "adasketch/training/label_map.hpp"
#include "bench_examples.hpp"
#include "bench_forms.hpp"
#include "bench_support.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "hyperparameter_options.hpp"
#include "json_writer.hpp"
#include "report_file.hpp"

namespace adasketch::driver {
namespace {

constexpr const char* kBenchProgram = "adasketch-bench-learners";
constexpr index_t kSyntheticExamples = 200;

OptionParser make_parser() {
  OptionParser p(kBenchProgram, "[options]",
                 "Steps online learners on dense synthetic rows (or on --data FILE) and reports the seconds per\n"
                 "example next to the time of one streaming read of the rank's sketch buffer, from the same run.\n"
                 "Every learner takes the hyperparameters of `adasketch train` (the same options and defaults but\n"
                 "--ell 20); --seed also seeds the synthetic rows.");
  p.optional("algo", OptionType::String, "LIST", "ada-fd,fast-ada-fd,fd-son,fast-fd-son,rfd-son,fast-rfd-son",
             "comma-separated learners, any name of `adasketch train --algo`; none: only --allreduce-probe");
  p.optional("data", "FILE", "LIBSVM (plain or gzip) or dense binary examples instead of synthetic rows");
  p.optional("features", OptionType::String, "F", "all",
             "with --data: seen (the learners keep only the features that occur in it, as train --features seen) "
             "or all");
  p.optional("dim", OptionType::Integer, "D", "1000000",
             "d of the synthetic rows; with --data, d for the file (absent: from the file)");
  p.optional("loss", "L", "loss of every learner (default: squared for *-son, logistic for the others)");
  p.optional("examples", OptionType::Integer, "N", "0",
             "timed steps per learner; 0: 200 synthetic rows, or one pass over --data");
  p.optional("warmup", OptionType::Integer, "N", "50", "untimed steps before them (≥ 2ℓ + 1 to reach steady state)");
  p.optional("pool", OptionType::Integer, "N", "0",
             "synthetic rows generated before timing and cycled (> ℓ; a learner that fits them gets smaller "
             "gradients, and SON skips zero ones); 0: a fresh row per example, generated outside the timed steps");
  p.optional("nnz", OptionType::Integer, "S", "0",
             "synthetic rows with S non-zeros at random positions (sparse rows); 0: dense rows");
  p.optional("compare-forms", OptionType::Integer, "N", "0",
             "instead of timing: step each learner's sparse and dense forms on the first N examples and report "
             "how far apart they end (online mistakes, losses, weights)");
  p.optional("reads", OptionType::Integer, "N", "10",
             "timed streaming reads of the buffer (the best is kept); 0: no read (nor the buffer's copy)");
  p.optional("allreduce-probe", "LIST",
             "comma-separated message sizes N (doubles): after the learners, the seconds per MPI_Allreduce of N "
             "doubles (best of 5 rounds of consecutive calls)");
  p.optional("rounds", OptionType::Integer, "N", "5",
             "consecutive rounds of the timed steps; s/example is the best round's (the report has the mean too)");
  p.optional("report", "FILE", "write a JSON report (rank 0)");
  add_hyperparameter_options(p);
  p.set_default("ell", "20");
  return p;
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (out.back().empty()) throw InvalidArgument("option --" + option + ": empty item in '" + text + "'");
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

index_t positive(const OptionParser& opts, const std::string& name, index_t min) {
  const index_t v = opts.integer(name);
  if (v < min)
    throw InvalidArgument("option --" + name + ": must be ≥ " + number_text(min) + ", got " + opts.text(name));
  return v;
}

// --allreduce-probe: message sizes in doubles, each ≥ 1.
std::vector<index_t> probe_sizes(const OptionParser& opts) {
  std::vector<index_t> sizes;
  if (!opts.given("allreduce-probe")) return sizes;
  for (const std::string& item : split_list(opts.text("allreduce-probe"), "allreduce-probe")) {
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || n < 1)
      throw InvalidArgument("option --allreduce-probe: '" + item + "' is not a message size ≥ 1 (doubles)");
    sizes.push_back(static_cast<index_t>(n));
  }
  return sizes;
}

struct Measurement {
  std::string algorithm, loss, buffer;  ///< buffer: "sketch" or "weights"
  FormChoice form = FormChoice::automatic;  ///< the sketch form the learner took (automatic: no sketch)
  index_t buffer_rows = 0;              ///< R (sketch) or K (weights)
  double buffer_bytes = 0.0;            ///< the largest rank's
  double seconds_per_example = 0.0, read_seconds = 0.0, mpi_seconds_per_example = 0.0;
  double allreduce_calls_per_example = 0.0, allreduce_bytes_per_example = 0.0;
  double mean_loss = 0.0, buffer_sum_squares = 0.0;
  double mean_seconds_per_example = 0.0;
  /// The first and the last round's (with --rounds 10: the first and last tenths of the run).
  double first_seconds_per_example = 0.0, last_seconds_per_example = 0.0;
};

Measurement run_learner(const Communicator& comm, const LearnerSpec& spec, BenchExamples& examples, index_t warmup,
                        index_t timed, int reads, index_t rounds) {
  std::unique_ptr<Learner> learner = make_learner(comm, examples.partition(), spec);
  const LabelMap labels = LabelMap::infer(learner->loss(), examples.labels().min, examples.labels().max);
  MpiClock& clock = mpi_clock();
  double loss = 0.0;
  std::vector<double> round_seconds(static_cast<std::size_t>(rounds), 0.0);
  const auto round_of = [&](index_t t) { return static_cast<std::size_t>((t - warmup) * rounds / timed); };
  for (index_t t = 0; t < warmup + timed; ++t) {
    const Example& x = examples.at(t);
    const double y = labels.apply(x.label, examples.name(), x.position);
    if (t == warmup) {
      comm.barrier();
      clock = MpiClock{};
    }
    clock.active = t >= warmup;
    const double start = MPI_Wtime();
    if (examples.stored() > 0 && t + 1 < warmup + timed)  // the next row's state, as training loops do
      learner->prefetch(examples.at(t + 1).row());
    const StepResult r = learner->step(x.row(), y);
    const double elapsed = MPI_Wtime() - start;
    if (clock.active) {
      round_seconds[round_of(t)] += elapsed;
      loss += r.loss;
    }
    clock.active = false;
  }

  Measurement m;
  m.algorithm = learner->name();
  m.loss = learner->loss().name();
  m.form = learner->spec().form;
  std::vector<double> buffer;
  const Sketch* sketch = learner->sketch();
  m.buffer = sketch ? "sketch" : "weights";
  m.buffer_rows = sketch ? sketch->rows() : learner->outputs();
  const index_t buffer_size = m.buffer_rows * (sketch ? sketch->local_dim() : learner->local_dim());
  m.buffer_bytes = 8.0 * static_cast<double>(comm.allreduce_max(buffer_size));
  m.read_seconds = m.buffer_sum_squares = std::numeric_limits<double>::quiet_NaN();
  if (reads > 0) {
    buffer.resize(static_cast<std::size_t>(buffer_size));
    if (sketch)
      sketch->copy_local_block(buffer);
    else
      learner->weights(buffer);
    const StreamRead read = time_stream_read(comm, buffer, reads);
    m.read_seconds = read.seconds;
    m.buffer_sum_squares = read.sum_squares;
  }
  const double n = static_cast<double>(timed);
  // Round k holds the steps t − warmup in [k·timed/rounds, (k+1)·timed/rounds).
  double total = 0.0;
  m.seconds_per_example = std::numeric_limits<double>::infinity();
  for (index_t k = 0; k < rounds; ++k) {
    const double steps = static_cast<double>((k + 1) * timed / rounds - k * timed / rounds);
    const double s = comm.allreduce_max(round_seconds[static_cast<std::size_t>(k)]);
    total += s;
    if (steps > 0) m.seconds_per_example = std::min(m.seconds_per_example, s / steps);
    if (k == 0) m.first_seconds_per_example = s / steps;
    if (k == rounds - 1) m.last_seconds_per_example = s / steps;
  }
  m.mean_seconds_per_example = total / n;
  m.mpi_seconds_per_example = comm.allreduce_sum(clock.seconds) / comm.size() / n;
  m.allreduce_calls_per_example = static_cast<double>(clock.calls) / n;
  m.allreduce_bytes_per_example = clock.bytes / n;
  m.mean_loss = loss / n;
  return m;
}

void print_row(const Measurement& m) {
  std::printf("  %-15s %-9s %-6s %11.4g %11.4g %11.4g %11.4g %9.4g %11.4g %9.3g %6.1f%% %6.2f %12.6g\n",
              m.algorithm.c_str(), m.loss.c_str(), m.form == FormChoice::automatic ? "-" : to_string(m.form).c_str(),
              m.seconds_per_example, m.mean_seconds_per_example, m.first_seconds_per_example,
              m.last_seconds_per_example, m.buffer_bytes / 1e6, m.read_seconds, m.seconds_per_example / m.read_seconds,
              100.0 * m.mpi_seconds_per_example / m.mean_seconds_per_example, m.allreduce_calls_per_example, m.mean_loss);
  std::fflush(stdout);
}

void write_measurement(JsonWriter& j, const Measurement& m, index_t timed) {
  j.begin_object();
  j.member("algorithm", m.algorithm);
  j.member("loss", m.loss);
  j.key("form");
  m.form != FormChoice::automatic ? j.value(to_string(m.form)) : j.null();
  j.member("examples", timed);
  j.member("seconds_per_example", m.seconds_per_example);
  j.member("mean_seconds_per_example", m.mean_seconds_per_example);
  j.member("first_round_seconds_per_example", m.first_seconds_per_example);
  j.member("last_round_seconds_per_example", m.last_seconds_per_example);
  j.member("buffer", m.buffer);
  j.member("buffer_rows", m.buffer_rows);
  j.member("buffer_bytes", m.buffer_bytes);
  j.member("read_seconds", m.read_seconds);
  j.member("ratio_example_to_read", m.seconds_per_example / m.read_seconds);
  j.member("mpi_seconds_per_example", m.mpi_seconds_per_example);
  j.member("mpi_share", m.mpi_seconds_per_example / m.mean_seconds_per_example);
  j.member("allreduce_calls_per_example", m.allreduce_calls_per_example);
  j.member("allreduce_bytes_per_example", m.allreduce_bytes_per_example);
  j.member("mean_loss", m.mean_loss);
  j.member("buffer_sum_squares", m.buffer_sum_squares);
  j.end_object();
}

// The report's opening: command, version, every option, ranks and d.
void begin_learners_report(JsonWriter& j, const OptionParser& opts, const Communicator& comm,
                           const BenchExamples& examples) {
  begin_report(j, "bench-learners", opts);
  j.member("ranks", comm.size());
  j.member("d", examples.original_dim());
  j.member("learner_features", examples.dim());
}

int report_form_comparisons(const Communicator& comm, const OptionParser& opts, const std::vector<LearnerSpec>& specs,
                            BenchExamples& examples, index_t steps) {
  if (comm.rank() == 0) {
    std::printf("  forms     sparse vs dense on the first %lld examples\n", static_cast<long long>(steps));
    std::printf("  %-15s %10s %10s %11s %11s %8s %10s %10s\n", "algorithm", "mistakes", "(dense)", "loss diff",
                "weight diff", "rebases", "sparse s", "dense s");
  }
  JsonWriter j;
  begin_learners_report(j, opts, comm, examples);
  j.key("form_comparisons");
  j.begin_array();
  for (const LearnerSpec& spec : specs) {
    const FormComparison c = compare_forms(comm, spec, examples, steps);
    if (comm.rank() == 0) {
      std::printf("  %-15s %10lld %10lld %11.3g %11.3g %8lld %10.4g %10.4g\n", spec.algorithm.c_str(),
                  static_cast<long long>(c.mistakes_sparse), static_cast<long long>(c.mistakes_dense),
                  c.max_loss_difference, c.weight_difference, static_cast<long long>(c.sparse_rebases), c.seconds_sparse,
                  c.seconds_dense);
      std::fflush(stdout);
    }
    j.begin_object();
    j.member("algorithm", spec.algorithm);
    j.member("steps", c.steps);
    j.member("mistakes_sparse", c.mistakes_sparse);
    j.member("mistakes_dense", c.mistakes_dense);
    j.member("max_loss_difference", c.max_loss_difference);
    j.member("weight_difference", c.weight_difference);
    j.member("sparse_rebases", c.sparse_rebases);
    j.member("seconds_sparse", c.seconds_sparse);
    j.member("seconds_dense", c.seconds_dense);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  if (const std::string report = opts.text("report"); !report.empty())
    write_text_file(comm, report, comm.rank() == 0 ? j.str() : std::string(), "option --report");
  return 0;
}

int run_bench(const Communicator& comm, std::span<const std::string> args) {
  OptionParser opts = make_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  const std::vector<std::string> algorithms =
      opts.text("algo") == "none" ? std::vector<std::string>{} : split_list(opts.text("algo"), "algo");
  const std::vector<index_t> probe = probe_sizes(opts);
  const std::string data = opts.text("data"), report = opts.text("report");
  LearnerSpec hyperparameters;  // every learner's, from the table's options
  read_hyperparameter_options(opts, hyperparameters);
  const index_t ell = hyperparameters.ell, warmup = positive(opts, "warmup", 0);
  const index_t pool = positive(opts, "pool", 0), examples_option = positive(opts, "examples", 0);
  const index_t nnz = positive(opts, "nnz", 0);
  if (!data.empty() && opts.given("nnz")) throw InvalidArgument("option --nnz: only for synthetic rows, not with --data");
  const int reads = static_cast<int>(positive(opts, "reads", 0));
  const index_t rounds = positive(opts, "rounds", 1);
  const index_t dim = data.empty() ? positive(opts, "dim", 1) : (opts.given("dim") ? positive(opts, "dim", 1) : 0);
  if (!data.empty() && opts.given("pool")) throw InvalidArgument("option --pool: only for synthetic rows, not with --data");
  std::optional<LossKind> loss;
  if (opts.given("loss")) {
    try {
      loss = from_string<LossKind>(opts.text("loss"));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(std::string("option --loss: ") + e.what());
    }
    if (data.empty() && *loss == LossKind::softmax)
      throw InvalidArgument("option --loss: softmax needs class labels from --data (the synthetic labels are ±1)");
  }
  check_writable(comm, report, "option --report", true);

  const std::string features = opts.text("features");
  if (features != "all" && features != "seen") throw InvalidArgument("option --features: must be seen or all, got '" + features + "'");
  if (data.empty() && features == "seen") throw InvalidArgument("option --features seen: only with --data");
  BenchExamples examples = data.empty() ? BenchExamples::synthetic(comm, dim, hyperparameters.seed, pool, nnz)
                                        : BenchExamples::from_file(comm, data, dim, features == "seen");
  const index_t timed = examples_option > 0 ? examples_option
                        : data.empty()      ? kSyntheticExamples
                                            : examples.stored();
  std::vector<LearnerSpec> specs;
  for (const std::string& name : algorithms) {
    LearnerSpec spec = hyperparameters;
    spec.algorithm = name;
    spec.loss = loss ? *loss : name.ends_with("-son") ? LossKind::squared : LossKind::logistic;
    if (spec.loss == LossKind::softmax)
      spec.classes = LabelMap::softmax_classes(data, examples.labels().min, examples.labels().max,
                                               examples.labels().integral);
    try {
      (void)make_learner(comm, examples.partition(), spec);  // every name and option checked before any timing
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("option --algo " + name + ": " + e.what());
    }
    specs.push_back(spec);
  }

  const index_t dp_max = comm.allreduce_max(examples.partition().size(comm.rank()));
  if (comm.rank() == 0) {
    std::printf("%s: d = %lld%s, ℓ = %lld, %d rank%s, d_p = %lld\n", kBenchProgram,
                static_cast<long long>(examples.original_dim()),
                examples.dim() != examples.original_dim() ? (" (seen features: " + number_text(examples.dim()) + ")").c_str() : "",
                static_cast<long long>(ell), comm.size(), comm.size() == 1 ? "" : "s", static_cast<long long>(dp_max));
    if (data.empty() && nnz > 0)
      std::printf("  examples  Philox(%s) sparse rows, %lld non-zeros at random positions (normals/√s), labels "
                  "sign(βᵀx); %s\n", opts.text("seed").c_str(), static_cast<long long>(nnz),
                  pool > 0 ? ("a pool of " + number_text(pool) + " rows cycled, generated before timing").c_str()
                           : "each generated fresh outside the timed steps");
    else if (data.empty())
      std::printf("  examples  Philox(%s) normals/√d, labels sign(βᵀx); %s\n", opts.text("seed").c_str(),
                  pool > 0 ? ("a pool of " + number_text(pool) + " rows cycled, generated before timing").c_str()
                           : "each generated fresh outside the timed steps");
    else
      std::printf("  examples  %s (%s): %lld in memory, cycled\n", data.c_str(), examples.format().c_str(),
                  static_cast<long long>(examples.stored()));
    if (data.empty() && pool > 0 && pool <= ell)
      std::printf("  note      --pool %lld ≤ ℓ: the rows span at most ℓ directions, so FD shrinks less often than "
                  "on fresh rows\n", static_cast<long long>(pool));
    if (!opts.given("compare-forms") && !specs.empty()) {
      std::printf("  steps     %lld timed per learner, after %lld warm-up; read: best of %d\n",
                  static_cast<long long>(timed), static_cast<long long>(warmup), reads);
      std::printf("            s/example: the best of %lld rounds; mean: all of them; first, last: the first and "
                  "the last round\n", static_cast<long long>(std::min(rounds, timed)));
      std::printf("  %-15s %-9s %-6s %11s %11s %11s %11s %9s %11s %9s %7s %6s %12s\n", "algorithm", "loss", "form",
                  "s/example", "mean", "first", "last", "buf. MB",
                  "read s", "ratio", "MPI", "Allred", "mean loss");
    }
    std::fflush(stdout);
  }
  if (const index_t compared = positive(opts, "compare-forms", 0); compared > 0)
    return report_form_comparisons(comm, opts, specs, examples, compared);
  std::vector<Measurement> results;
  for (const LearnerSpec& spec : specs) {
    results.push_back(run_learner(comm, spec, examples, warmup, timed, reads, std::min(rounds, timed)));
    if (comm.rank() == 0) print_row(results.back());
  }
  std::vector<double> probe_seconds;
  for (const index_t n : probe) {
    probe_seconds.push_back(time_allreduce(comm, n));
    if (comm.rank() == 0)
      std::printf("  allreduce %lld doubles (%lld B): %.4g s per call\n", static_cast<long long>(n),
                  static_cast<long long>(8 * n), probe_seconds.back());
  }

  if (!report.empty()) {
    std::string text;
    if (comm.rank() == 0) {
      JsonWriter j;
      begin_learners_report(j, opts, comm, examples);
      j.member("local_dim_max", dp_max);
      j.member("ell", ell);
      j.member("format", examples.format());
      j.member("nnz", nnz);
      j.member("rows_in_memory", examples.stored());
      j.member("warmup", warmup);
      j.member("examples", timed);
      j.key("learners");
      j.begin_array();
      for (const Measurement& m : results) write_measurement(j, m, timed);
      j.end_array();
      j.key("allreduce_probe");
      j.begin_array();
      for (std::size_t i = 0; i < probe.size(); ++i) {
        j.begin_object();
        j.member("doubles", probe[i]);
        j.member("bytes", 8 * probe[i]);
        j.member("seconds", probe_seconds[i]);
        j.end_object();
      }
      j.end_array();
      j.end_object();
      text = j.str();
    }
    write_text_file(comm, report, text, "option --report");
  }
  return 0;
}

}  // namespace
}  // namespace adasketch::driver

int main(int argc, char** argv) {
  return adasketch::driver::run_mpi_main(argc, argv, adasketch::driver::kBenchProgram, adasketch::driver::run_bench);
}
