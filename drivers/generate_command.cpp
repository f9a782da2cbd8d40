// `adasketch generate`: write the examples of a synthetic spec (or of any data file the commands
// read) to a file in the dense binary format or as LIBSVM text. Each example is gathered to rank 0,
// which writes FILE.tmp and renames it to FILE once it is complete.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "atomic_output.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"
#include "data_input.hpp"
#include "report_file.hpp"

namespace adasketch::driver {

namespace {

using Clock = std::chrono::steady_clock;

OptionParser make_parser() {
  OptionParser p(std::string(kProgram) + " generate", "--data DATA --out FILE [options]",
                 "Writes the examples of DATA, in order, to FILE: the dense binary format (docs/formats.md, \"Data\": magic\n"
                 "ADSKDNS1, uint64 n, uint64 d, n records of label and x_1..x_d as float64) or LIBSVM text (values\n"
                 "with 17 significant digits, so they read back exactly; zeros omitted). The file is written as\n"
                 "FILE.tmp by rank 0 and renamed to FILE when complete. Training on FILE gives the same numbers as\n"
                 "training on DATA.\n\n" + data_help());
  p.required("data", OptionType::String, "DATA", "a synthetic spec (or a data file, to convert)");
  p.required("out", OptionType::String, "FILE", "the file to write");
  p.optional("format", OptionType::String, "F", "dense-binary", "dense-binary or libsvm");
  p.optional("dim", OptionType::Integer, "D", "0",
             "number of features d; 0 takes the spec's d, the largest index of a LIBSVM file or the dense header's d");
  add_quiet_option(p);
  return p;
}

// Rank 0's output file; the other ranks hold none. Rank 0 stops writing at the first problem and
// remembers it; finish() makes every rank throw it.
class Output {
 public:
  /// `source` names the data in errors about its values.
  Output(const Communicator& comm, std::string path, std::string source, bool dense, index_t dim)
      : comm_(comm), path_(std::move(path)), tmp_(path_ + ".tmp"), source_(std::move(source)), dense_(dense), dim_(dim) {
    if (comm_.rank() != 0) return;
    file_ = std::fopen(tmp_.c_str(), "wb");
    if (file_ == nullptr) {
      set_failure('W', "cannot open '" + tmp_ + "' for writing (" + std::strerror(errno) + ")");
    } else if (dense_) {
      row_.assign(static_cast<std::size_t>(dim_), 0.0);
      write_header(0);  // n is filled in by finish()
    }
  }
  ~Output() {
    if (file_ == nullptr) return;
    std::fclose(file_);  // not finished (an error): no FILE.tmp left behind
    std::remove(tmp_.c_str());
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  /// Rank 0: one example as ascending global indices (0-based) and values.
  void write(double label, const std::vector<std::int64_t>& index, const std::vector<double>& value, index_t position) {
    if (failure_kind_ != 0) return;
    bool finite = std::isfinite(label);
    for (double v : value) finite = finite && std::isfinite(v);
    if (!finite) return set_failure('I', "row " + number_text(position) + ": a value or the label is not finite");
    if (dense_) {
      std::fill(row_.begin(), row_.end(), 0.0);
      for (std::size_t e = 0; e < index.size(); ++e) row_[static_cast<std::size_t>(index[e])] = value[e];
      put(&label, 1);
      put(row_.data(), row_.size());
    } else {
      text_.clear();
      append("%.17g", label);
      for (std::size_t e = 0; e < index.size(); ++e)
        if (value[e] != 0.0) append(" %" PRId64 ":%.17g", index[e] + 1, value[e]);
      text_ += '\n';
      if (std::fwrite(text_.data(), 1, text_.size(), file_) != text_.size()) set_failure('W', write_error());
    }
    ++rows_;
  }

  /// Collective: completes the file (header, close, rename) or throws rank 0's failure on every rank.
  /// Returns the bytes written (on rank 0).
  long long finish() {
    long long bytes = 0;
    if (comm_.rank() == 0 && failure_kind_ == 0) {
      if (dense_) {
        if (std::fseek(file_, 0, SEEK_SET) != 0) set_failure('W', write_error());
        else write_header(static_cast<std::uint64_t>(rows_));
      }
      if (failure_kind_ == 0 && std::fseek(file_, 0, SEEK_END) == 0) bytes = static_cast<long long>(std::ftell(file_));
      if (failure_kind_ == 0 && (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)) set_failure('W', write_error());
      const int closed = std::fclose(file_);
      file_ = nullptr;
      if (failure_kind_ == 0 && closed != 0) set_failure('W', write_error());
      if (failure_kind_ == 0 && std::rename(tmp_.c_str(), path_.c_str()) != 0)
        set_failure('W', "renaming '" + tmp_ + "' to '" + path_ + "' failed (" + std::strerror(errno) + ")");
    }
    if (comm_.rank() == 0 && failure_kind_ != 0) {
      if (file_ != nullptr) std::fclose(file_);
      file_ = nullptr;
      std::remove(tmp_.c_str());
    }
    std::vector<char> message(1024, '\0');
    if (comm_.rank() == 0) std::snprintf(message.data(), message.size(), "%c%s", failure_kind_ == 0 ? ' ' : failure_kind_, failure_.c_str());
    comm_.broadcast(message, 0);
    if (message[0] == 'I') throw InputError(source_, 0, message.data() + 1);
    if (message[0] == 'W') throw Error("option --out: " + std::string(message.data() + 1));
    return bytes;
  }

 private:
  void write_header(std::uint64_t n) {
    const std::uint64_t sizes[2] = {n, static_cast<std::uint64_t>(dim_)};
    if (std::fwrite("ADSKDNS1", 1, 8, file_) != 8 || std::fwrite(sizes, 8, 2, file_) != 2) set_failure('W', write_error());
  }
  void put(const double* data, std::size_t n) {
    if (std::fwrite(data, sizeof(double), n, file_) != n) set_failure('W', write_error());
  }
  template <class... T>
  void append(const char* format, T... args) {
    char buffer[64];
    const int n = std::snprintf(buffer, sizeof buffer, format, args...);
    text_.append(buffer, static_cast<std::size_t>(n));
  }
  std::string write_error() const { return "error writing '" + tmp_ + "' (" + std::strerror(errno) + ")"; }
  void set_failure(char kind, std::string what) {
    if (failure_kind_ != 0) return;
    failure_kind_ = kind;
    failure_ = std::move(what);
  }

  Communicator comm_;
  std::string path_, tmp_, source_;
  RemoveOnSignal guard_{tmp_};  // FILE.tmp goes with a SIGTERM
  bool dense_;
  index_t dim_, rows_ = 0;
  std::FILE* file_ = nullptr;
  std::vector<double> row_;
  std::string text_;
  char failure_kind_ = 0;  // 0: none, 'I': bad input data, 'W': writing failed
  std::string failure_;
};

// Collective: the example's entries of every rank on rank 0, as ascending global indices and values
// (the blocks are in rank order). Dense examples send every local entry.
class Gather {
 public:
  explicit Gather(const Communicator& comm) : comm_(comm), counts_(comm.size()), displacements_(comm.size()) {}

  void operator()(const Example& e, const BlockPartition& partition) {
    const index_t begin = partition.begin(comm_.rank());
    const std::size_t n = e.dense ? e.values.size() : e.indices.size();
    ADASKETCH_REQUIRE(n < INT_MAX, "local entries = " + number_text(n));
    local_index_.resize(n);
    for (std::size_t k = 0; k < n; ++k) local_index_[k] = begin + (e.dense ? static_cast<index_t>(k) : e.indices[k]);
    int count = static_cast<int>(n);
    check_mpi(MPI_Gather(&count, 1, MPI_INT, counts_.data(), 1, MPI_INT, 0, comm_.get()), "MPI_Gather");
    int total = 0;
    if (comm_.rank() == 0) {
      for (int r = 0; r < comm_.size(); ++r) {
        displacements_[r] = total;
        ADASKETCH_REQUIRE(counts_[r] <= INT_MAX - total, "entries of one example exceed INT_MAX");
        total += counts_[r];
      }
      index.resize(static_cast<std::size_t>(total));
      value.resize(static_cast<std::size_t>(total));
    }
    check_mpi(MPI_Gatherv(local_index_.data(), count, MPI_INT64_T, index.data(), counts_.data(), displacements_.data(),
                          MPI_INT64_T, 0, comm_.get()),
              "MPI_Gatherv(indices)");
    check_mpi(MPI_Gatherv(e.values.data(), count, MPI_DOUBLE, value.data(), counts_.data(), displacements_.data(),
                          MPI_DOUBLE, 0, comm_.get()),
              "MPI_Gatherv(values)");
  }

  std::vector<std::int64_t> index;  ///< rank 0: global, 0-based
  std::vector<double> value;        ///< rank 0

 private:
  Communicator comm_;
  std::vector<int> counts_, displacements_;
  std::vector<std::int64_t> local_index_;
};

}  // namespace

int run_generate(const Communicator& comm, std::span<const std::string> args) {
  const auto start = Clock::now();
  OptionParser opts = make_parser();
  if (!parse_command_line(opts, comm, args)) return 0;
  const std::string format = opts.text("format"), path = opts.text("data"), out = opts.text("out");
  if (format != "dense-binary" && format != "libsvm")
    throw InvalidArgument("option --format: unknown format '" + format + "' (expected dense-binary or libsvm)");
  const index_t dim_option = opts.integer("dim");
  if (dim_option < 0) throw InvalidArgument("option --dim: must be ≥ 0, got " + opts.text("dim"));
  if (out.empty()) throw InvalidArgument("option --out: empty file name");
  check_writable(comm, out + ".tmp", "option --out", false);

  DataInput data = open_data(comm, path, dim_option, "option --data", "option --dim");
  CollectiveOwner<ExampleSource> source(std::move(data.source));
  const index_t dim = source->dim();
  Output output(comm, out, path, format == "dense-binary", dim);
  Gather gather(comm);
  Example example;
  index_t rows = 0;
  while (source->next(example)) {
    gather(example, source->partition());
    if (comm.rank() == 0) output.write(example.label, gather.index, gather.value, example.position);
    ++rows;
  }
  const long long bytes = output.finish();
  const double seconds = comm.allreduce_max(std::chrono::duration<double>(Clock::now() - start).count());
  if (comm.rank() == 0 && !opts.flag_set("quiet")) {
    std::printf("adasketch generate: %s (%s): d = %lld, examples = %lld\n", path.c_str(), data.format.c_str(),
                static_cast<long long>(dim), static_cast<long long>(rows));
    std::printf("  wrote         %s (%s, %lld bytes) in %.3g s\n", out.c_str(), format.c_str(), bytes, seconds);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace adasketch::driver
