#pragma once
// The subcommands of the `adasketch` executable. To add one (e.g. `train`): write
// `int run_train(const Communicator&, std::span<const std::string>)` in its own file, declare it
// here, and add a row to the table in main.cpp.
#include <span>
#include <string>

#include "adasketch/comm/communicator.hpp"

namespace adasketch::driver {

/// The executable's name as printed in usage and error lines.
inline constexpr const char* kProgram = "adasketch";

struct Command {
  const char* name;
  const char* summary;
  /// Runs the subcommand on every rank with the arguments after its name; returns the exit status.
  /// Errors are thrown (see collective_errors.hpp).
  int (*run)(const Communicator& world, std::span<const std::string> args);
};

int run_sketch(const Communicator& world, std::span<const std::string> args);
int run_train(const Communicator& world, std::span<const std::string> args);
int run_tune(const Communicator& world, std::span<const std::string> args);
int run_predict(const Communicator& world, std::span<const std::string> args);
int run_generate(const Communicator& world, std::span<const std::string> args);
int run_export(const Communicator& world, std::span<const std::string> args);

}  // namespace adasketch::driver
