// adasketch-bench-sketch: time per inserted dense row of a sketch, next to the time of one streaming
// read of the rank's sketch buffer, measured in the same run (docs/design.md §4).
//
// Rows: Philox(seed) normals indexed by (row, global feature), so every rank count inserts the same
// rows. To keep generation out of the timing, a pool of --pool rows is generated before the timed
// loop and cycled (row t is pool row t mod pool); --pool 0 generates every row fresh, between the
// timed steps. The cost of an insertion does not depend on the values, only on d, ℓ and the method.
//
// A step is timed in three parts, exactly the split of Sketch::insert(a):
//   product    Y_p a_p and ‖a_p‖² (one read of the local buffer: a dgemv over d_p × R),
//   allreduce  the one MPI_Allreduce of R + 1 numbers,
//   insert     Sketch::insert(a, Ya, ‖a‖²): writing the row, and for some steps a shrink (FD family)
//              or a Gram refresh / re-orthonormalization (rp, oja), which do their own Allreduce.
// MPI time is measured by a PMPI wrapper of MPI_Allreduce (bench_support.hpp), which also sees the
// Allreduce inside shrinks. Steps whose insert() called MPI are counted as "collective" (shrinks for FD).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/random/philox.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "bench_support.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "json_writer.hpp"
#include "report_file.hpp"

namespace adasketch::driver {
namespace {

constexpr const char* kBenchProgram = "adasketch-bench-sketch";

OptionParser make_parser() {
  OptionParser p(kBenchProgram, "[options]",
                 "Inserts dense random rows into a sketch and reports the time per row next to the time of one\n"
                 "streaming read of the rank's sketch buffer (R × d_p doubles), from the same run.");
  p.optional("dim", OptionType::Integer, "D", "1000000", "number of features d");
  p.optional("ell", OptionType::Integer, "N", "20", "sketch size ℓ");
  p.optional("rows", OptionType::Integer, "N", "500", "rows to insert (about rows/(ℓ+1) shrinks for fast-fd)");
  p.optional("method", OptionType::String, "NAME", "fast-fd", "fd, fast-fd, rfd, fast-rfd, rp or oja");
  p.optional("seed", OptionType::Unsigned, "S", "1", "Philox seed of the rows (and of rp)");
  p.optional("pool", OptionType::Integer, "N", "16",
             "rows generated before timing and cycled; 0 generates each row fresh, outside the timed parts");
  p.optional("reads", OptionType::Integer, "N", "10", "timed streaming reads of the buffer (the best is kept)");
  p.optional("report", "FILE", "write a JSON report (rank 0)");
  return p;
}

int run_bench(const Communicator& comm, std::span<const std::string> args) {
  OptionParser opts = make_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  const index_t dim = opts.integer("dim"), rows = opts.integer("rows"), pool = opts.integer("pool");
  const int reads = static_cast<int>(std::clamp<std::int64_t>(opts.integer("reads"), 1, 1000));
  if (dim <= 0) throw InvalidArgument("option --dim: must be a positive integer, got " + opts.text("dim"));
  if (rows <= 0) throw InvalidArgument("option --rows: must be a positive integer, got " + opts.text("rows"));
  if (pool < 0) throw InvalidArgument("option --pool: must be ≥ 0, got " + opts.text("pool"));
  if (opts.integer("ell") <= 0)
    throw InvalidArgument("option --ell: must be a positive integer, got " + opts.text("ell"));
  const std::string report = opts.text("report");
  check_writable(comm, report, "option --report", true);
  SketchSpec spec;
  try {
    spec.kind = from_string<SketchKind>(opts.text("method"));
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("option --method: ") + e.what());
  }
  spec.ell = opts.integer("ell");
  spec.seed = opts.unsigned_integer("seed");
  std::unique_ptr<Sketch> sketch = make_sketch(comm, dim, spec);
  const index_t R = sketch->rows(), dp = sketch->local_dim();
  const index_t begin = sketch->partition().begin(comm.rank());
  const index_t max_dp = comm.allreduce_max(dp);
  const Philox rng(spec.seed);

  // Rows, outside the timed region.
  const index_t stored_rows = pool > 0 ? std::min(pool, rows) : 1;
  std::vector<double> rows_data(static_cast<std::size_t>(stored_rows * dp));
  for (index_t p = 0; p < stored_rows; ++p)
    fill_normal_row(rng, static_cast<std::uint64_t>(p), begin, 1.0,
                    std::span<double>(rows_data).subspan(static_cast<std::size_t>(p * dp), static_cast<std::size_t>(dp)));

  std::vector<double> reduce(static_cast<std::size_t>(R + 1));
  double t_product = 0, t_allreduce = 0, t_local_insert = 0, t_collective_insert = 0, mpi_in_collective = 0;
  long long collective_steps = 0;
  comm.barrier();
  MpiClock& clock = mpi_clock();
  clock = MpiClock{};
  clock.active = true;
  for (index_t t = 0; t < rows; ++t) {
    const index_t slot = pool > 0 ? t % stored_rows : 0;
    auto values = std::span<const double>(rows_data).subspan(static_cast<std::size_t>(slot * dp),
                                                             static_cast<std::size_t>(dp));
    if (pool == 0) {
      clock.active = false;
      fill_normal_row(rng, static_cast<std::uint64_t>(t), begin, 1.0, rows_data);
      clock.active = true;
    }
    const LocalRow row = LocalRow::dense(values);
    const double a = MPI_Wtime();
    std::fill(reduce.begin(), reduce.end(), 0.0);
    sketch->add_local_product(row, reduce);
    reduce[static_cast<std::size_t>(R)] = row.local_norm2();
    const double b = MPI_Wtime();
    comm.allreduce_sum(reduce);
    const double c = MPI_Wtime();
    const long long calls_before = clock.calls;
    const double mpi_before = clock.seconds;
    sketch->insert(row, std::span<const double>(reduce).first(static_cast<std::size_t>(R)),
                   reduce[static_cast<std::size_t>(R)]);
    const double e = MPI_Wtime();
    t_product += b - a;
    t_allreduce += c - b;
    if (clock.calls > calls_before) {
      ++collective_steps;
      t_collective_insert += e - c;
      mpi_in_collective += clock.seconds - mpi_before;
    } else {
      t_local_insert += e - c;
    }
  }
  clock.active = false;
  const bool mpi_measured = clock.calls >= rows;  // false if the PMPI wrapper was not linked in
  const double t_total = t_product + t_allreduce + t_local_insert + t_collective_insert;

  // One streaming read of a buffer of the sketch's size (a copy of the local block), best of N,
  // all ranks reading at the same time as they do during the insertions.
  std::vector<double> block(static_cast<std::size_t>(R * dp));
  sketch->copy_local_block(block);
  const StreamRead read = time_stream_read(comm, block, reads);
  // The checksum ‖B‖_F² = trace(BᵀB) (unlike B itself, whose rows are defined up to sign) must agree
  // across rank counts to round-off: a check that every rank count sketched the same rows.
  const double best_read = read.seconds, checksum = read.sum_squares;

  // Per-row time: the slowest rank (ranks wait for each other in the Allreduce anyway); the split
  // into parts: the mean over ranks.
  const double n = static_cast<double>(rows), P = static_cast<double>(comm.size());
  const double per_row = comm.allreduce_max(t_total) / n;
  const auto mean = [&](double v) { return comm.allreduce_sum(v) / P / n; };
  const double product = mean(t_product), allreduce = mean(t_allreduce), local_insert = mean(t_local_insert),
               collective_insert = mean(t_collective_insert), collective_mpi = mean(mpi_in_collective);
  const double mpi_total = mpi_measured ? mean(clock.seconds) : std::nan("");
  const double steps = static_cast<double>(comm.allreduce_max(static_cast<index_t>(collective_steps)));
  const double buffer_bytes = static_cast<double>(R) * static_cast<double>(max_dp) * 8.0;
  const double read_bw = buffer_bytes / best_read / 1e9;          // GB/s per rank
  const double row_bw = buffer_bytes / per_row / 1e9;             // GB/s per rank, if a step read the buffer once
  const double allreduce_per_call = allreduce;                    // one explicit Allreduce per row
  const double floor = best_read + allreduce_per_call;            // §4: one read of the buffer + one Allreduce
  const double ratio = per_row / best_read;
  const double share = 1.0 / (per_row > 0 ? per_row : 1.0);

  if (comm.rank() == 0) {
    std::printf("%s: %s, d = %lld, ℓ = %lld (buffer R = %lld rows), %lld rows, %d rank%s, d_p = %lld\n",
                kBenchProgram, to_string(spec.kind).c_str(), static_cast<long long>(dim),
                static_cast<long long>(spec.ell),
                static_cast<long long>(R), static_cast<long long>(rows), comm.size(), comm.size() == 1 ? "" : "s",
                static_cast<long long>(max_dp));
    if (pool > 0)
      std::printf("  rows             Philox(%llu) normals, a pool of %lld rows cycled, generated before timing\n",
                  static_cast<unsigned long long>(spec.seed), static_cast<long long>(stored_rows));
    else
      std::printf("  rows             Philox(%llu) normals, each generated fresh outside the timed parts\n",
                  static_cast<unsigned long long>(spec.seed));
    std::printf("  per inserted row %.6g ms (slowest rank; includes its Allreduce and amortized shrinks)\n",
                per_row * 1e3);
    std::printf("    product Y·a    %.6g ms  (%4.1f%%)\n", product * 1e3, 100 * product * share);
    std::printf("    allreduce      %.6g ms  (%4.1f%%)  one MPI_Allreduce of R + 1 doubles\n", allreduce * 1e3,
                100 * allreduce * share);
    std::printf("    local inserts  %.6g ms  (%4.1f%%)  amortized over all rows\n", local_insert * 1e3,
                100 * local_insert * share);
    std::printf("    %-14s %.6g ms  (%4.1f%%)  amortized; %.0f steps, %.6g ms each, of which MPI %.6g ms\n",
                spec.kind != SketchKind::rp && spec.kind != SketchKind::oja ? "shrinks" : "refreshes",
                collective_insert * 1e3,
                100 * collective_insert * share, steps, steps > 0 ? collective_insert * n / steps * 1e3 : 0.0,
                steps > 0 ? collective_mpi * n / steps * 1e3 : 0.0);
    if (mpi_measured)
      std::printf("    MPI (all)      %.6g ms  (%4.1f%%)  every MPI_Allreduce, by a PMPI wrapper\n", mpi_total * 1e3,
                  100 * mpi_total * share);
    std::printf("  buffer read      %.6g ms for R × d_p × 8 = %.4g MB (best of %d, all ranks at once): %.3g GB/s "
                "per rank, %.3g GB/s total\n",
                best_read * 1e3, buffer_bytes / 1e6, reads, read_bw, read_bw * P);
    std::printf("  ratio            per row / buffer read = %.3g  (a row runs at %.3g GB/s per rank equivalent)\n",
                ratio, row_bw);
    std::printf("  floor (§4)       read + one Allreduce = %.6g ms; per row / floor = %.3g\n", floor * 1e3,
                per_row / floor);
    std::printf("  check            ‖B‖_F² = %.12g (the same for every rank count, to round-off)\n", checksum);
    std::fflush(stdout);
  }

  if (!report.empty()) {
    std::string text;
    if (comm.rank() == 0) {
      JsonWriter j;
      begin_report(j, "bench-sketch", opts);
      j.member("algorithm", to_string(spec.kind));
      j.member("ranks", comm.size());
      j.member("d", dim);
      j.member("local_dim_max", max_dp);
      j.member("ell", spec.ell);
      j.member("buffer_rows", R);
      j.member("rows", rows);
      j.member("pool_rows", pool > 0 ? stored_rows : 0);
      j.member("seconds_per_row", per_row);
      j.member("product_seconds_per_row", product);
      j.member("allreduce_seconds_per_row", allreduce);
      j.member("local_insert_seconds_per_row", local_insert);
      j.member("collective_insert_seconds_per_row", collective_insert);
      j.member("collective_steps", static_cast<index_t>(steps));
      j.member("collective_mpi_seconds_per_row", collective_mpi);
      j.member("mpi_seconds_per_row", mpi_total);
      j.member("buffer_bytes", buffer_bytes);
      j.member("buffer_read_seconds", best_read);
      j.member("read_gb_per_s_per_rank", read_bw);
      j.member("row_gb_per_s_per_rank", row_bw);
      j.member("ratio_row_to_read", ratio);
      j.member("floor_seconds", floor);
      j.member("ratio_row_to_floor", per_row / floor);
      j.member("sketch_frobenius2", checksum);
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
