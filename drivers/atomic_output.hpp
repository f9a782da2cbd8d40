#pragma once
// Result files that appear complete or not at all. An AtomicOutput writes `<path>.tmp.<pid>` in
// the same directory; commit() flushes it to disk (fsync), renames it onto `path` and syncs the
// directory. Until then `path` is untouched (an older file stays as it was). Not committed (an
// exception, an early return), the destructor removes the temporary file; a process ended by
// SIGTERM, SIGINT or SIGHUP removes it too (RemoveOnSignal). Only SIGKILL can leave one behind.
#include <cstdio>
#include <string>
#include <string_view>

namespace adasketch::driver {

/// While it lives, a SIGTERM, SIGINT or SIGHUP that ends the process (the signal's default action,
/// which it re-raises) first removes `path`. A signal that has a handler of its own (train's
/// --checkpoint) is left alone. At most 16 paths at a time; more are not guarded.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::string& path);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  int slot_;
};

class AtomicOutput {
 public:
  /// Opens the temporary file; `option` names the file in errors ("option --report"): InvalidArgument
  /// "<option>: cannot open 'PATH' for writing" when it cannot be created.
  AtomicOutput(std::string path, std::string option);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  /// Appends text; throws Error "<option>: error writing 'PATH'" on failure.
  void write(std::string_view text);
  /// The open temporary file, for formatted writes (checked by commit()).
  std::FILE* stream() noexcept { return file_; }
  /// Syncs, closes and renames the temporary file onto the final path; throws Error on failure.
  void commit();

  const std::string& temp_path() const noexcept { return temp_; }

 private:
  [[noreturn]] void fail(const std::string& what);

  std::string path_, option_, temp_;
  std::FILE* file_ = nullptr;
  RemoveOnSignal guard_;
};

/// The temporary name AtomicOutput uses for `path` in this process.
std::string temp_path_for(const std::string& path);

}  // namespace adasketch::driver
