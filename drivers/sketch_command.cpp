// `adasketch sketch`: stream a data file into a sketch and into the exact covariance AᵀA, then
// report the sketch's exact relative spectral error against the FD (or RFD) bound.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "adasketch/error.hpp"
#include "adasketch/evaluation/exact_covariance.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"
#include "data_input.hpp"
#include "json_writer.hpp"
#include "report_file.hpp"

namespace adasketch::driver {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

OptionParser make_parser() {
  OptionParser p(std::string(kProgram) + " sketch", "--method NAME --ell N --data DATA [options]",
                 "Streams the rows of DATA into a matrix sketch B and into the exact covariance AᵀA, then prints\n"
                 "(rank 0) the exact relative spectral error ‖AᵀA − BᵀB − (α − α₀)I‖₂/‖A‖₂² next to the FD bound\n"
                 "‖A − A_k‖²_F/(ℓ − k)/‖A‖₂² at k = ⌊ℓ/2⌋ (halved for rfd and fast-rfd). Seconds and rows/s time\n"
                 "the sketch's insertions only.\n\n" + data_help());
  p.required("method", OptionType::String, "NAME", "sketch: fd, fast-fd, rfd, fast-rfd, rp or oja");
  p.required("ell", OptionType::Integer, "N", "sketch size ℓ ≥ 1 (fast-fd and fast-rfd buffer 2ℓ rows)");
  p.required("data", OptionType::String, "DATA", "input rows: a file or a synthetic spec");
  p.optional("dim", OptionType::Integer, "D", "0",
             "number of features d; 0 takes the largest index of a LIBSVM file, the dense header's d or the spec's d");
  p.optional("seed", OptionType::Unsigned, "S", "1", "random seed of rp");
  p.optional("alpha0", OptionType::Real, "A", "0", "initial α ≥ 0 of rfd and fast-rfd");
  p.optional("report", "FILE", "write a JSON report of the options and results (rank 0)");
  add_quiet_option(p);
  return p;
}

struct Results {
  SketchKind kind = SketchKind::fd;
  std::string format;
  index_t dim = 0, rows = 0, buffer_rows = 0, k = 0;
  double alpha = 0.0;
  SketchError error;
  std::string bound_name;
  double bound = 0.0, relative_bound = 0.0;
  bool bound_guaranteed = false, within_bound = false;
  double sketch_seconds = 0.0, evaluate_seconds = 0.0, wall_seconds = 0.0;
};

const char* yes_no(bool b) { return b ? "yes" : "no"; }

void print_summary(const OptionParser& opts, const Communicator& comm, const Results& r) {
  const std::string method = to_string(r.kind);
  std::printf("adasketch sketch: %s, ℓ = %lld, %d rank%s\n", method.c_str(),
              static_cast<long long>(opts.integer("ell")), comm.size(), comm.size() == 1 ? "" : "s");
  std::printf("  data          %s (%s): d = %lld, rows = %lld\n", opts.text("data").c_str(), r.format.c_str(),
              static_cast<long long>(r.dim), static_cast<long long>(r.rows));
  std::printf("  α             %.6g\n", r.alpha);
  std::printf("  rel. error    ‖α₀I + AᵀA − αI − BᵀB‖₂/‖A‖₂² = %.6g   (‖A‖₂² = %.6g)\n", r.error.relative_error,
              r.error.a_norm2);
  std::printf("  %-4s bound    ‖A − A_k‖²_F/%s/‖A‖₂² at k = %lld: %.6g\n", r.bound_name.c_str(),
              r.bound_name == "RFD" ? "(2(ℓ − k))" : "(ℓ − k)", static_cast<long long>(r.k), r.relative_bound);
  if (r.bound_guaranteed)
    std::printf("  within bound  %s\n", yes_no(r.within_bound));
  else
    std::printf("  within bound  %s (for reference only: %s has no deterministic bound)\n", yes_no(r.within_bound),
                method.c_str());
  std::printf("  λ_min         λ_min(α₀I + AᵀA − αI − BᵀB) = %.6g\n", r.error.min_eigenvalue);
  std::printf("  sketch time   %.6g s, %.6g rows/s (insertions only; total %.3g s, evaluation %.3g s)\n",
              r.sketch_seconds, r.sketch_seconds > 0.0 ? static_cast<double>(r.rows) / r.sketch_seconds : 0.0,
              r.wall_seconds, r.evaluate_seconds);
  std::fflush(stdout);
}

std::string report_json(const OptionParser& opts, const Communicator& comm, const Results& r) {
  JsonWriter j;
  begin_report(j, "sketch", opts);
  j.member("algorithm", to_string(r.kind));
  j.member("ranks", comm.size());
  j.member("format", r.format);
  j.member("d", r.dim);
  j.member("rows", r.rows);
  j.member("examples", r.rows);
  j.member("passes", 1);
  j.member("ell", opts.integer("ell"));
  j.member("buffer_rows", r.buffer_rows);
  j.member("alpha", r.alpha);
  j.member("spectral_error", r.error.spectral_error);
  j.member("a_norm2", r.error.a_norm2);
  j.member("relative_error", r.error.relative_error);
  j.member("min_eigenvalue", r.error.min_eigenvalue);
  j.member("max_eigenvalue", r.error.max_eigenvalue);
  j.member("bound_name", r.bound_name);
  j.member("bound_k", r.k);
  j.member("bound", r.bound);
  j.member("relative_bound", r.relative_bound);
  j.member("bound_guaranteed", r.bound_guaranteed);
  j.member("within_bound", r.within_bound);
  j.member("sketch_seconds", r.sketch_seconds);
  j.member("seconds_per_row", r.rows > 0 ? r.sketch_seconds / static_cast<double>(r.rows) : 0.0);
  j.member("rows_per_second", r.sketch_seconds > 0.0 ? static_cast<double>(r.rows) / r.sketch_seconds : 0.0);
  j.member("evaluate_seconds", r.evaluate_seconds);
  j.member("wall_seconds", r.wall_seconds);
  j.end_object();
  return j.str();
}

}  // namespace

int run_sketch(const Communicator& comm, std::span<const std::string> args) {
  const auto wall_start = Clock::now();
  OptionParser opts = make_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  SketchSpec spec;
  try {
    spec.kind = from_string<SketchKind>(opts.text("method"));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("option --method: ") + e.what());
  }
  spec.ell = opts.integer("ell");
  if (spec.ell <= 0) throw InvalidArgument("option --ell: must be a positive integer, got " + opts.text("ell"));
  spec.seed = opts.unsigned_integer("seed");
  spec.alpha0 = opts.real("alpha0");
  if (spec.alpha0 < 0.0) throw InvalidArgument("option --alpha0: must be ≥ 0, got " + opts.text("alpha0"));
  const index_t dim_option = opts.integer("dim");
  if (dim_option < 0) throw InvalidArgument("option --dim: must be ≥ 0, got " + opts.text("dim"));
  const std::string path = opts.text("data");
  const std::string report = opts.text("report");
  check_distinct_files(comm, {{"option --data", path, false}, {"option --report", report, true}});
  // Fail on a bad report path now, not after the work (and on every rank, not just rank 0).
  check_writable(comm, report, "option --report", true);

  Results r;
  r.kind = spec.kind;
  DataInput data = open_data(comm, path, dim_option, "option --data", "option --dim");
  r.format = data.format;
  CollectiveOwner<ExampleSource> source(std::move(data.source));
  r.dim = source->dim();
  if (r.dim > INT_MAX)  // ScaLAPACK's int dimensions
    throw InputError(path, 0, "d = " + number_text(r.dim) + " is too large for the exact d × d covariance (at most 2^31 - 1)");
  const std::string sizes = "d = " + number_text(r.dim) + ", ell = " + number_text(spec.ell);
  std::unique_ptr<Sketch> sketch = with_memory_context("the " + to_string(spec.kind) + " sketch (" + sizes + ")",
                                                       [&] { return make_sketch(comm, r.dim, spec); });
  const BlockPartition& sp = sketch->partition();
  const BlockPartition& dp = source->partition();
  if (sp.dim() != dp.dim() || sp.begin(comm.rank()) != dp.begin(comm.rank()) || sp.end(comm.rank()) != dp.end(comm.rank()))
    throw Error("internal error: the data source and the sketch partition the features differently");
  CollectiveOwner<ExactCovariance> covariance(with_memory_context(
      "the exact d × d covariance (d = " + number_text(r.dim) + ")", [&] { return std::make_unique<ExactCovariance>(comm, sp); }));

  Example example;
  double local_sketch_seconds = 0.0;
  while (source->next(example)) {
    const LocalRow row = example.row();
    covariance->add(row);
    const auto t0 = Clock::now();
    try {
      sketch->insert(row);
    } catch (const NumericError& e) {
      // The sketch checks the all-reduced ‖a‖² and Y·a, so every rank gets here together. The LIBSVM
      // reader rejects NaN and Inf itself; the dense binary format can carry them.
      throw InputError(path, 0, "row " + number_text(example.position) + ": " + e.what());
    }
    local_sketch_seconds += seconds_since(t0);
    ++r.rows;
  }
  if (r.rows == 0) throw InputError(path, 0, "contains no examples");
  // Ranks wait for each other inside insert() (its Allreduce), so the slowest rank's total is the
  // sketch's time.
  r.sketch_seconds = comm.allreduce_max(local_sketch_seconds);

  const auto eval_start = Clock::now();
  r.error = covariance->evaluate(*sketch);
  r.evaluate_seconds = seconds_since(eval_start);
  r.alpha = sketch->alpha();
  r.buffer_rows = sketch->rows();

  // The bound of docs/design.md §2 at k = ⌊ℓ/2⌋: ‖A − A_k‖²_F/(ℓ − k), halved for RFD. The fast variants
  // use the same ℓ (the shrink index), not their 2ℓ buffer.
  const bool regularized = spec.kind == SketchKind::rfd || spec.kind == SketchKind::fast_rfd;
  r.k = spec.ell / 2;
  r.bound = r.error.fd_bound(r.k, spec.ell, regularized);
  r.bound_name = regularized ? "RFD" : "FD";
  r.relative_bound = r.error.a_norm2 > 0.0 ? r.bound / r.error.a_norm2 : 0.0;
  // The guarantees hold for FD and RFD with or without the doubled buffer (the error compares
  // α₀I + AᵀA with αI + BᵀB, so α₀ does not change it); rp and oja are compared with the FD bound
  // for reference only.
  r.bound_guaranteed = spec.kind != SketchKind::rp && spec.kind != SketchKind::oja;
  // Round-off allowance: the error is computed from d×d eigenvalues of size up to ‖A‖₂².
  r.within_bound = r.error.spectral_error <= r.bound + 1e-9 * r.error.a_norm2;
  r.wall_seconds = comm.allreduce_max(seconds_since(wall_start));

  if (comm.rank() == 0 && !opts.flag_set("quiet")) print_summary(opts, comm, r);
  if (!report.empty()) {
    const std::string text = comm.rank() == 0 ? report_json(opts, comm, r) : std::string();
    write_text_file(comm, report, text, "option --report");
  }
  return 0;
}

}  // namespace adasketch::driver
