#pragma once
// `adasketch train`'s checkpoints (docs/slurm.md): the --checkpoint, --checkpoint-every
// and --resume options, the SIGTERM flag, and a test hook that crashes a save.
//
// --resume FILE takes every learner option (--algo, --loss and the hyperparameter table's options),
// --passes and d from the checkpoint unless given; a given one
// must agree with the checkpoint (options the algorithm does not read are not compared), and
// --passes may differ (more passes continue the run; fewer than the checkpoint has done are refused).
// The label map (and softmax K) comes from the checkpoint too.
//
// SIGTERM (what SLURM sends before the time limit) or SIGUSR1 (which Open MPI's mpirun passes on to
// the ranks, while it ends the job on a SIGTERM of its own): with --checkpoint, a handler only sets a
// flag; the training loop's next poll (within about 0.1 s) stops every rank after the same example,
// writes a final checkpoint, rank 0 prints one line on stdout saying where it stopped and how to
// continue, and the command exits with kExitStopped (no test, model or report).
#include <functional>
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "cli_options.hpp"

namespace adasketch::driver {

/// Exit status of a run stopped by SIGTERM after its final checkpoint: EX_TEMPFAIL of sysexits.h
/// ("try again later"), so a job script can tell it from success (0) and errors (1, 2) and requeue.
inline constexpr int kExitStopped = 75;

/// Declares --checkpoint, --checkpoint-every and --resume.
void add_checkpoint_options(OptionParser& parser);

struct CheckpointSettings {
  std::string path;            ///< --checkpoint; empty: none
  index_t every_examples = 0;  ///< --checkpoint-every N
  double every_seconds = 0.0;  ///< --checkpoint-every Ns, Nm or Nh
};

/// Collective. Parses the options (InvalidArgument naming the option) and checks that
/// --checkpoint's temporary file can be created.
CheckpointSettings checkpoint_settings(const OptionParser& opts, const Communicator& comm);

/// Collective. With --resume FILE: reads the checkpoint's header (InputError for a bad file) and
/// takes the options not given from it (header of this file); --dim must match its d.
CheckpointHeader adopt_checkpoint(OptionParser& opts, const Communicator& comm);

/// Throws InvalidArgument naming the first given option that differs from the checkpoint `path`
/// (`given` is the spec of the learner built from the options).
void require_same_options(const CheckpointHeader& header, const LearnerSpec& given, const std::string& path);

/// Installs the SIGTERM and SIGUSR1 handler (which only records the signal).
void install_stop_signals();
/// The stop signal received (SIGTERM or SIGUSR1), 0 if none.
int stop_signal() noexcept;

}  // namespace adasketch::driver
