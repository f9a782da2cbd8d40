#pragma once
// `adasketch train` as pieces: its options, and one run of parsed options on a given communicator
// (`train` runs it on MPI_COMM_WORLD, `tune` on each group's communicator).
#include "adasketch/comm/communicator.hpp"
#include "cli_options.hpp"
#include "fault_injection.hpp"
#include "train_output.hpp"

namespace adasketch::driver {

/// `adasketch train`'s options (its --help).
OptionParser train_parser();

/// The checks of the options' values that need no data (learner options, --passes, --dim, --bias,
/// --progress-every): InvalidArgument naming the option.
void check_train_options(const OptionParser& opts);

/// Collective on `comm`: the whole `train` run of the parsed `opts` (header, progress, summary, test,
/// model, report as the options say), its results in `r`, in steps: parse the options, open the data,
/// build the learner, run, evaluate, report. `hooks` are the tests' (train_test_hooks()). Returns 0,
/// or kExitStopped when a signal stopped it after its final checkpoint (r.saved: where). Errors are
/// thrown as `train` throws them.
int train_configuration(const Communicator& comm, OptionParser& opts, TrainResults& r, const TrainTestHooks& hooks);

}  // namespace adasketch::driver
