#include "checkpointing.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "adasketch/error.hpp"
#include "adasketch/number_text.hpp"
#include "hyperparameter_options.hpp"
#include "report_file.hpp"

namespace {
volatile std::sig_atomic_t g_stop_signal = 0;
}  // namespace

extern "C" void adasketch_driver_on_stop_signal(int signal) { g_stop_signal = signal; }

namespace adasketch::driver {

namespace {

[[noreturn]] void differs(const std::string& option, const std::string& given, const std::string& saved,
                          const std::string& path) {
  throw InvalidArgument("option --" + option + " " + given + ": the checkpoint '" + path + "' was written with --" +
                        option + " " + saved + " (leave the option out to resume with the checkpoint's value)");
}

}  // namespace

void add_checkpoint_options(OptionParser& p) {
  p.optional("checkpoint", "FILE",
             "save the complete training state to FILE (atomically: FILE.tmp, then a rename) periodically, on "
             "SIGTERM and at the end; resume it with --resume FILE");
  p.optional("checkpoint-every", OptionType::String, "N|T", "10m",
             "with --checkpoint: every N examples, or every T = Ns, Nm or Nh of rank 0's clock; 0: only on SIGTERM and "
             "at the end");
  p.optional("resume", "FILE",
             "continue the run saved in checkpoint FILE (at any rank count); options not given are taken from it, "
             "given ones must match it");
}

CheckpointSettings checkpoint_settings(const OptionParser& opts, const Communicator& comm) {
  CheckpointSettings s;
  s.path = opts.text("checkpoint");
  if (opts.given("checkpoint-every") && s.path.empty())
    throw InvalidArgument("option --checkpoint-every: needs --checkpoint FILE");
  const std::string every = opts.text("checkpoint-every");
  const std::string what = "option --checkpoint-every";
  const char unit = every.empty() ? '\0' : every.back();
  if (unit == 's' || unit == 'm' || unit == 'h') {
    const double v = parse_number<double>(every.substr(0, every.size() - 1), what);
    if (!(v > 0.0)) throw InvalidArgument(what + ": the interval must be positive, got '" + every + "'");
    s.every_seconds = v * (unit == 'h' ? 3600.0 : unit == 'm' ? 60.0 : 1.0);
  } else {
    try {
      s.every_examples = parse_number<std::int64_t>(every, what);
    } catch (const InvalidArgument&) {
      throw InvalidArgument(what + ": expected a number of examples or a time such as 30s, 10m, 2h; got '" + every + "'");
    }
    if (s.every_examples < 0) throw InvalidArgument(what + ": must be ≥ 0, got '" + every + "'");
  }
  // The checkpoint replaces FILE and FILE.tmp: never one of the run's other files.
  for (const char* other : {"data", "test", "model", "report"}) {
    const std::string& path = opts.text(other);
    if (s.path.empty() || path.empty()) continue;
    std::error_code ea, eb;
    auto a = std::filesystem::weakly_canonical(s.path, ea), b = std::filesystem::weakly_canonical(path, eb);
    if (ea || eb) a = s.path, b = path;
    if (a == b || a.string() + ".tmp" == b.string())
      throw InvalidArgument("option --checkpoint " + s.path + ": the same file as --" + other);
  }
  check_writable(comm, s.path.empty() ? "" : s.path + ".tmp", "option --checkpoint", false);
  return s;
}

CheckpointHeader adopt_checkpoint(OptionParser& opts, const Communicator& comm) {
  const std::string path = opts.text("resume");
  CheckpointHeader h = read_checkpoint_header(comm, path);
  const LearnerSpec& s = h.spec;
  for (const auto& [option, saved] :
       {std::pair<const char*, std::string>{"algo", s.algorithm}, {"loss", to_string(s.loss)}})
    if (opts.given(option) && opts.text(option) != saved) differs(option, opts.text(option), saved, path);
  const index_t data_dim = h.dim - (h.run.bias > 0.0 ? 1 : 0);  // the learner's d counts the bias feature
  if (opts.given("dim") && opts.integer("dim") != data_dim)
    throw InvalidArgument("option --dim " + opts.text("dim") + ": the checkpoint '" + path + "' has d = " +
                          number_text(data_dim));
  if (opts.given("bias") && opts.real("bias") != h.run.bias) differs("bias", opts.text("bias"), number_text(h.run.bias), path);
  opts.set_default("bias", number_text(h.run.bias));
  opts.set_default("algo", s.algorithm);
  opts.set_default("loss", to_string(s.loss));
  default_hyperparameter_options(opts, s, comm.size());
  opts.set_default("passes", number_text(h.run.passes));
  opts.set_default("dim", number_text(data_dim));
  // The learner's features are the checkpoint's: a resumed run rebuilds the seen ones from the same data.
  const std::string features = h.run.original_dim > 0 ? "seen" : "all";
  if (opts.given("features") && opts.text("features") != "auto" && opts.text("features") != features)
    differs("features", opts.text("features"), features, path);
  opts.set_default("features", features);
  return h;
}

void require_same_options(const CheckpointHeader& header, const LearnerSpec& given, const std::string& path) {
  const auto diffs = spec_differences(header.spec, given);
  if (diffs.empty()) return;
  differs(option_of_field(diffs.front().field), diffs.front().given, diffs.front().saved, path);
}

void install_stop_signals() {
  struct sigaction action {};
  action.sa_handler = adasketch_driver_on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // reads and MPI calls interrupted by the signal carry on
  for (const int signal : {SIGTERM, SIGUSR1})
    if (sigaction(signal, &action, nullptr) != 0) throw Error("cannot install the SIGTERM and SIGUSR1 handlers");
}

int stop_signal() noexcept { return g_stop_signal; }

}  // namespace adasketch::driver
