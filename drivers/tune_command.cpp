// `adasketch tune`: a grid of `train` configurations in one job. The ranks are split into groups;
// each group trains one configuration at a time with `train`'s own code (train_configuration), on
// its communicator; world rank 0 gathers the rows after every round (one configuration per group),
// keeps the checkpoint file, and writes the CSV and JSON report with the best row marked.
#include <mpi.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/training/online_training.hpp"
#include "checkpointing.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"
#include "json_writer.hpp"
#include "report_file.hpp"
#include "train_command.hpp"
#include "tune_grid.hpp"

namespace adasketch::driver {

namespace {

constexpr const char* kStateMagic = "adasketch-tune-state 1";

OptionParser make_parser() {
  OptionParser p(std::string(kProgram) + " tune", "[train options] --vary NAME=LIST [--vary ...] [options]",
                 "Trains every configuration of a grid with `adasketch train` and reports each one's results, the\n"
                 "best marked. Every option that is not one of tune's below is a train option, the same for every\n"
                 "configuration (see 'adasketch train --help'); --model, --predictions, --resume and --progress-every\n"
                 "are not allowed. Each --vary NAME=LIST varies train option --NAME over LIST:\n"
                 "  v1,v2,...   the values as given (e.g. eta=0.01,0.1,1; algo=ada-diag,ada-fd)\n"
                 "  LO:HI       every decade from LO to HI (e.g. eta=1e-4:1e2 is 7 values)\n"
                 "  LO:HI:N     N log-spaced values from LO to HI, both included (6 significant digits)\n"
                 "The grid is the cartesian product, configuration 0, 1, ... in the order of the first --vary\n"
                 "varying slowest, the last fastest. Every configuration's options are checked before any training.\n"
                 "The ranks are split into --groups equal groups; group g trains configurations g, g+G, ... one at a\n"
                 "time on its ranks (the results do not depend on the grouping, to round-off). A configuration that\n"
                 "diverges (a non-finite score or loss) is reported as failed; any other error ends the command.\n"
                 "With --checkpoint FILE, every finished configuration is saved in FILE and each running one in\n"
                 "FILE.config<i> (train's checkpoint); SIGTERM or SIGUSR1 stops within about a second, saving both,\n"
                 "with status 75, and the same command continues the grid (docs/cli.md).");
  p.repeatable("vary", "NAME=LIST", "a train option and its values (repeatable; at least one)");
  p.optional("groups", OptionType::Integer, "G", "0", "number of groups of ranks, a divisor of the rank count (0: one rank per group)");
  p.optional("select", OptionType::String, "S", "online",
             "online: fewest online mistakes, then lowest cumulative loss (classification) or lowest cumulative loss "
             "(regression); test: highest test accuracy, then lowest test mean loss, or lowest test mean loss "
             "(regression), which needs --test");
  p.optional("out-csv", "FILE", "write the results as CSV, one row per configuration (rank 0)");
  p.optional("report", "FILE", "write a JSON report of the options, grid, rows and best configuration (rank 0)");
  p.optional("checkpoint", "FILE", "keep the finished configurations in FILE and continue from it when it exists");
  add_quiet_option(p);
  return p;
}

// Splits tune's own options (and --help, --version) from the train options, in order.
void split_arguments(std::span<const std::string> args, std::vector<std::string>& tune, std::vector<std::string>& train) {
  const OptionParser own = make_parser();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::size_t eq = a.find('=');
    const std::string name = a.starts_with("--") ? a.substr(2, eq == std::string::npos ? eq : eq - 2) : "";
    if (a == "--help" || a == "-h" || a == "--version") {
      tune.push_back(a);
    } else if (!name.empty() && own.declared(name)) {
      tune.push_back(a);
      if (name != "quiet" && eq == std::string::npos && i + 1 < args.size()) tune.push_back(args[++i]);  // its value
    } else {
      train.push_back(a);
    }
  }
}

// FNV-1a of the train options and the grid: what the rows depend on.
std::string fingerprint(const std::vector<std::string>& train_args, const Grid& grid) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto add = [&](const std::string& s) {
    for (const char c : s + '\x1f') h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  };
  for (const std::string& a : train_args) add(a);
  for (const VariedOption& v : grid.varied()) {
    add("--vary " + v.name);
    for (const std::string& value : v.values) add(value);
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

struct Tune {
  std::vector<std::string> train_args;
  Grid grid;
  std::string checkpoint;

  std::vector<std::string> config_args(index_t i) const {
    std::vector<std::string> args = train_args;
    const std::vector<std::string> values = grid.values(i);
    for (std::size_t k = 0; k < values.size(); ++k) args.push_back("--" + grid.varied()[k].name + "=" + values[k]);
    return args;
  }
  std::string config_checkpoint(index_t i) const { return checkpoint + ".config" + number_text(i); }
};

// Parses and checks every configuration's train options (no communication): InvalidArgument naming it.
void check_configurations(const Tune& t, const OptionParser& opts, Selection select) {
  const OptionParser train = train_parser();
  for (const VariedOption& v : t.grid.varied()) {
    if (!train.declared(v.name) || v.name == "config")
      throw InvalidArgument("option --vary " + v.name + "=...: 'adasketch train' has no option --" + v.name);
    for (const std::string& a : t.train_args)
      if (a == "--" + v.name || a.starts_with("--" + v.name + "="))
        throw InvalidArgument("option --vary " + v.name + "=...: --" + v.name + " is also given as a fixed option");
  }
  for (index_t i = 0; i < t.grid.size(); ++i) {
    OptionParser p = train_parser();
    try {
      p.parse(t.config_args(i));
      for (const char* name : {"model", "predictions", "resume", "progress-every"})
        if (p.given(name))
          throw InvalidArgument(std::string("option --") + name +
                                ": not allowed with 'adasketch tune' (train the chosen configuration with 'adasketch train')");
      if (p.given("checkpoint-every") && opts.text("checkpoint").empty())
        throw InvalidArgument("option --checkpoint-every: needs --checkpoint FILE");
      if (select == Selection::test && p.text("test").empty()) throw InvalidArgument("option --select test: needs --test DATA");
      check_train_options(p);
    } catch (const InvalidArgument& e) {
      throw InvalidArgument("configuration " + number_text(i) + " (" + t.grid.describe(i) + "): " + e.what());
    }
  }
}

// Group rank 0's row line (others ""), gathered on world rank 0 in world rank order.
std::vector<std::string> gather_lines(const Communicator& world, const std::string& mine) {
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(world.size())), offsets(lengths.size() + 1, 0);
  check_mpi(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world.get()), "MPI_Gather");
  for (std::size_t p = 0; p < lengths.size(); ++p) offsets[p + 1] = offsets[p] + lengths[p];
  std::string all(static_cast<std::size_t>(world.rank() == 0 ? offsets.back() : 0), '\0');
  check_mpi(MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, world.get()),
            "MPI_Gatherv");
  std::vector<std::string> lines;
  for (std::size_t p = 0; p < lengths.size(); ++p)
    if (lengths[p] > 0) lines.push_back(all.substr(static_cast<std::size_t>(offsets[p]), static_cast<std::size_t>(lengths[p])));
  return lines;
}

bool file_exists_on_leader(const Communicator& group, const std::string& path) {
  std::error_code ignored;
  char exists = group.rank() == 0 && std::filesystem::exists(path, ignored) ? 1 : 0;
  group.broadcast(std::span<char>(&exists, 1), 0);
  return exists != 0;
}

// Trains configuration i on `group`. nullopt: stopped by a signal (its checkpoint keeps it).
std::optional<TuneRow> train_one(const Communicator& group, const Tune& t, index_t i) {
  std::vector<std::string> args = t.config_args(i);
  args.push_back("--quiet");
  const std::string ck = t.checkpoint.empty() ? "" : t.config_checkpoint(i);
  if (!ck.empty()) {
    args.push_back("--checkpoint=" + ck);
    if (file_exists_on_leader(group, ck)) args.push_back("--resume=" + ck);
  }
  OptionParser p = train_parser();
  p.parse(args);
  TrainResults r;
  TuneRow row;
  row.index = i;
  try {
    if (train_configuration(group, p, r, train_test_hooks()) == kExitStopped) return std::nullopt;
    row.examples = r.train.examples;
    row.classified = r.train.classified;
    row.mistakes = r.train.mistakes;
    row.cumulative_loss = r.train.cumulative_loss;
    row.tested = r.tested;
    row.test_accuracy = r.test.accuracy;
    row.test_mean_loss = r.test.mean_loss;
    row.seconds = r.train.seconds;
  } catch (const DivergenceError&) {  // thrown on every rank of the group together
    row.failed = true;
    row.message = one_line_message(std::current_exception());
  }
  std::error_code ignored;  // a file left behind is not reused: the configuration is done
  if (!ck.empty() && group.rank() == 0) std::filesystem::remove(ck, ignored);
  return row;
}

std::string state_text(const std::string& print, const std::vector<TuneRow>& rows) {
  std::string text = std::string(kStateMagic) + "\n" + print + "\n";
  for (const TuneRow& r : rows) text += row_line(r) + "\n";
  return text;
}

// Rank 0: the rows of an existing checkpoint file written for the same grid (InvalidArgument otherwise).
std::vector<TuneRow> read_state(const std::string& path, const std::string& print, index_t configurations) {
  std::ifstream in(path);
  std::string magic, saved;
  if (!std::getline(in, magic) || magic != kStateMagic || !std::getline(in, saved))
    throw InputError(path, 0, "is not an adasketch tune checkpoint");
  if (saved != print)
    throw InvalidArgument("option --checkpoint " + path + ": it was written for other train options or another grid; "
                          "remove it (and its .config* files) to start this grid");
  std::vector<TuneRow> rows;
  for (std::string line; std::getline(in, line);) {
    rows.push_back(row_from_line(line));
    if (rows.back().index < 0 || rows.back().index >= configurations) throw InputError(path, 0, "row beyond the grid");
  }
  return rows;
}

}  // namespace

int run_tune(const Communicator& world, std::span<const std::string> args) {
  std::vector<std::string> own_args;
  Tune t{.train_args = {}, .grid = Grid({}), .checkpoint = {}};
  split_arguments(args, own_args, t.train_args);
  OptionParser opts = make_parser();
  if (!parse_command_line(opts, world, own_args)) return 0;
  if (opts.values("vary").empty()) throw InvalidArgument("missing required option --vary NAME=LIST (see 'adasketch tune --help')");
  std::vector<VariedOption> varied;
  for (const std::string& text : opts.values("vary")) {
    varied.push_back(parse_vary(text));
    for (std::size_t k = 0; k + 1 < varied.size(); ++k)
      if (varied[k].name == varied.back().name) throw InvalidArgument("option --vary " + text + ": " + varied.back().name + " varied twice");
  }
  t.grid = Grid(std::move(varied));
  t.checkpoint = opts.text("checkpoint");
  const Selection select = parse_selection(opts.text("select"));
  const std::int64_t groups_option = opts.integer("groups");
  const int groups = groups_option == 0 ? world.size() : static_cast<int>(std::min<std::int64_t>(groups_option, 1 << 30));
  if (groups_option < 0 || world.size() % groups != 0)
    throw InvalidArgument("option --groups " + opts.text("groups") + ": must divide the number of ranks (" +
                          number_text(world.size()) + ")");
  check_configurations(t, opts, select);
  const std::string csv = opts.text("out-csv"), report = opts.text("report");
  check_distinct_files(world, {{"option --out-csv", csv, true}, {"option --report", report, true}, {"option --checkpoint", t.checkpoint, true}});
  check_writable(world, csv, "option --out-csv", true);
  check_writable(world, report, "option --report", true);
  check_writable(world, t.checkpoint, "option --checkpoint", true);
  const bool quiet = opts.flag_set("quiet");
  const index_t n = t.grid.size();

  // The finished rows (rank 0) and which configurations are done (every rank).
  const std::string print = fingerprint(t.train_args, t.grid);
  std::vector<TuneRow> rows;
  std::vector<index_t> done(static_cast<std::size_t>(n), 0);
  collective_section(world, [&] {
    if (world.rank() != 0 || t.checkpoint.empty()) return;
    if (std::filesystem::exists(t.checkpoint)) {
      rows = read_state(t.checkpoint, print, n);
    } else {
      for (index_t i = 0; i < n; ++i) std::filesystem::remove(t.config_checkpoint(i));  // another grid's
    }
    for (const TuneRow& r : rows) done[static_cast<std::size_t>(r.index)] = 1;
  });
  world.broadcast(std::span<index_t>(done), 0);
  std::vector<index_t> pending;
  for (index_t i = 0; i < n; ++i)
    if (!done[static_cast<std::size_t>(i)]) pending.push_back(i);
  if (!t.checkpoint.empty()) {
    install_stop_signals();
    write_text_file(world, t.checkpoint, world.rank() == 0 ? state_text(print, rows) : "", "option --checkpoint");
  }

  const int group_size = world.size() / groups, group_index = world.rank() / group_size;
  MPI_Comm group_handle = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split(world.get(), group_index, world.rank(), &group_handle), "MPI_Comm_split");
  const Communicator group(group_handle);
  if (world.rank() == 0 && !quiet) {
    std::printf("adasketch tune: %lld configurations, %d group%s of %d rank%s, select %s\n", static_cast<long long>(n),
                groups, groups == 1 ? "" : "s", group_size, group_size == 1 ? "" : "s", to_string(select));
    if (!rows.empty())
      std::printf("  resumed: %zu of %lld done (%s)\n", rows.size(), static_cast<long long>(n), t.checkpoint.c_str());
    std::fflush(stdout);
  }

  bool stopped = false;
  for (std::size_t round = 0; round * static_cast<std::size_t>(groups) < pending.size() && !stopped; ++round) {
    const std::size_t k = round * static_cast<std::size_t>(groups) + static_cast<std::size_t>(group_index);
    std::optional<TuneRow> row;
    bool mine_stopped = false;
    if (k < pending.size()) {
      row = train_one(group, t, pending[k]);
      mine_stopped = !row;
    }
    const std::vector<std::string> lines = gather_lines(world, row && group.rank() == 0 ? row_line(*row) : "");
    // A signal stops the grid: now if a configuration stopped, else before the next round, if any.
    const bool more = (round + 1) * static_cast<std::size_t>(groups) < pending.size();
    stopped = world.allreduce_max(static_cast<index_t>(mine_stopped || (more && stop_signal() != 0))) != 0;
    if (world.rank() == 0)
      for (const std::string& line : lines) {
        rows.push_back(row_from_line(line));
        if (!quiet) std::printf("%s\n", row_summary(t.grid, rows.back()).c_str());
      }
    std::fflush(stdout);
    if (!t.checkpoint.empty())
      write_text_file(world, t.checkpoint, world.rank() == 0 ? state_text(print, rows) : "", "option --checkpoint");
  }
  check_mpi(MPI_Comm_free(&group_handle), "MPI_Comm_free");
  if (stopped) {
    if (world.rank() == 0)
      std::printf("adasketch tune: stopped by %s with %zu of %lld configurations done; %s and its .config* files "
                  "hold the grid: run the same command to continue\n",
                  stop_signal() == SIGUSR1 ? "SIGUSR1" : "SIGTERM", rows.size(), static_cast<long long>(n), t.checkpoint.c_str());
    std::fflush(stdout);
    return kExitStopped;
  }

  std::sort(rows.begin(), rows.end(), [](const TuneRow& a, const TuneRow& b) { return a.index < b.index; });
  const std::optional<std::size_t> best = best_row(rows, select);
  if (world.rank() == 0 && !quiet) {
    std::printf("  best (%s): %s\n", to_string(select),
                best ? row_summary(t.grid, rows[*best]).substr(2).c_str() : "none: every configuration failed");
    std::fflush(stdout);
  }
  if (!csv.empty()) write_text_file(world, csv, world.rank() == 0 ? tune_csv(t.grid, rows, best) : "", "option --out-csv");
  if (!report.empty()) {
    std::string text;
    if (world.rank() == 0) {
      JsonWriter j;
      begin_report(j, "tune", opts);
      j.member("ranks", world.size());
      j.member("groups", groups);
      j.member("select", to_string(select));
      write_tune_json(j, t.train_args, t.grid, rows, best);
      j.end_object();
      text = j.str();
    }
    write_text_file(world, report, text, "option --report");
  }
  return 0;
}

}  // namespace adasketch::driver
