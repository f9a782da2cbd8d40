#pragma once
// Input files must be regular files: a directory fails late with confusing messages (and hangs
// MPI-IO reads at some rank counts), and a pipe or device cannot be read twice (the readers scan
// before they stream) and may block the open itself. Internal to the library.
#include <string>

namespace adasketch::detail {

/// Empty when `path` is a regular file (after symbolic links) or does not exist (the open then
/// reports it); else why it cannot be read, e.g. "it is a directory".
std::string not_a_regular_file(const std::string& path);

}  // namespace adasketch::detail
