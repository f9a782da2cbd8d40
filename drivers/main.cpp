// `adasketch <command> [options]`: dispatch to the subcommands, with the error protocol of
// collective_errors.hpp around them.
#include <array>
#include <cstdio>
#include <string>

#include "adasketch/error.hpp"
#include "cli_options.hpp"
#include "collective_errors.hpp"
#include "commands.hpp"

namespace adasketch::driver {
namespace {

constexpr std::array kCommands{
    Command{"sketch", "stream a data file into a matrix sketch and report its exact spectral error", run_sketch},
    Command{"train", "train an online learner on a data file; test it, save the model", run_train},
    Command{"tune", "train a grid of configurations (groups of ranks), report each and the best", run_tune},
    Command{"predict", "score a saved model on a data file", run_predict},
    Command{"generate", "write synthetic examples (or convert a data file) to a dense binary or LIBSVM file", run_generate},
    Command{"export", "write a saved model as a LIBLINEAR model, text or NumPy .npy", run_export},
};

std::string top_usage() {
  std::string u = std::string("usage: ") + kProgram + " <command> [options]\n\ncommands:\n";
  for (const Command& c : kCommands) {
    std::string name = c.name;
    u += "  " + name + std::string(name.size() < 10 ? 10 - name.size() : 1, ' ') + c.summary + "\n";
  }
  u += std::string("\nRun '") + kProgram + " <command> --help' for the options of a command, '" + kProgram +
       " --version' for the version.\n" +
       "Under Open MPI, run as `mpirun --quiet -np N " + kProgram +
       " ...` so that errors are reported by a single line.\n";
  return u;
}

int dispatch(const Communicator& world, std::span<const std::string> args) {
  const std::string name = args.empty() ? "--help" : args[0];  // alone, `adasketch` prints its usage
  if (name == "--help" || name == "-h" || name == "help" || name == "--version") {
    if (world.rank() == 0) std::fputs((name == "--version" ? version_line() + "\n" : top_usage()).c_str(), stdout);
    return 0;
  }
  for (const Command& c : kCommands)
    if (name == c.name) return c.run(world, args.subspan(1));
  throw InvalidArgument("unknown command '" + name + "' (run '" + kProgram + " --help' for the list)");
}

}  // namespace
}  // namespace adasketch::driver

int main(int argc, char** argv) {
  return adasketch::driver::run_mpi_main(argc, argv, adasketch::driver::kProgram, adasketch::driver::dispatch);
}
