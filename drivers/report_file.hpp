#pragma once
// Output files of the subcommands (JSON reports, model files), written by rank 0 or collectively,
// with failures raised on every rank (collective_errors.hpp).
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "cli_options.hpp"
#include "json_writer.hpp"

namespace adasketch::driver {

/// Opens a JSON report: begins its object and writes "command", "version" and every option
/// ("options"); the command adds its own members and ends the object.
void begin_report(JsonWriter& j, const char* command, const OptionParser& opts);

/// A file named by an option ("option --model"), read or written by the command.
struct NamedFile {
  std::string option, path;
  bool output = false;
};

/// Collective. Throws InvalidArgument on every rank when an output file is the same file as
/// another named file (same path, or an existing link to it): writing it would destroy an input or
/// the other output. Empty paths are ignored. Call it before check_writable.
void check_distinct_files(const Communicator& comm, const std::vector<NamedFile>& files);

/// Collective. Checks, before any work, that rank 0 can create a file: throws InvalidArgument
/// "<option>: cannot open 'PATH' for writing" on every rank otherwise. `atomic`: `path` is a result
/// written at the end through an AtomicOutput (atomic_output.hpp), so its temporary name next to it
/// is tried; otherwise `path` itself (a temporary name of its own writer). Either is removed again:
/// nothing is left behind, and an existing `path` is untouched. Does nothing for an empty path.
void check_writable(const Communicator& comm, const std::string& path, const std::string& option, bool atomic);

/// Collective. Rank 0 writes `text` (only rank 0's text is used) to `path` atomically (an
/// AtomicOutput); a failure is thrown on every rank, naming the option.
void write_text_file(const Communicator& comm, const std::string& path, const std::string& text, const std::string& option);

}  // namespace adasketch::driver
