#include "atomic_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "adasketch/error.hpp"

namespace adasketch::driver {

namespace {

// Paths to remove on a fatal signal: fixed storage, so the handler needs no allocation.
constexpr int kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
std::array<std::array<char, kPathBytes>, kSlots> g_paths{};
std::array<std::atomic<bool>, kSlots> g_used{};
constexpr std::array kSignals{SIGTERM, SIGINT, SIGHUP};

extern "C" void remove_outputs_and_die(int signal) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i].data());
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// Installs the handler for the signals that still have their default action.
void install_handler() {
  for (const int signal : kSignals) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0) throw Error("cannot read the action of signal " + number_text(signal));
    if (current.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_handler = remove_outputs_and_die;
    sigemptyset(&action.sa_mask);
    if (sigaction(signal, &action, nullptr) != 0) throw Error("cannot install the handler of signal " + number_text(signal));
  }
}

}  // namespace

RemoveOnSignal::RemoveOnSignal(const std::string& path) : slot_(-1) {
  if (path.size() >= kPathBytes) return;
  install_handler();
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) continue;
    std::memcpy(g_paths[i].data(), path.c_str(), path.size() + 1);
    g_used[i].store(true);
    slot_ = i;
    return;
  }
}

RemoveOnSignal::~RemoveOnSignal() {
  if (slot_ >= 0) g_used[slot_].store(false);
}

std::string temp_path_for(const std::string& path) { return path + ".tmp." + number_text(::getpid()); }

AtomicOutput::AtomicOutput(std::string path, std::string option)
    : path_(std::move(path)), option_(std::move(option)), temp_(temp_path_for(path_)), guard_(temp_) {
  file_ = std::fopen(temp_.c_str(), "w");
  if (file_ == nullptr) throw InvalidArgument(option_ + ": cannot open '" + path_ + "' for writing");
}

AtomicOutput::~AtomicOutput() {
  if (file_ != nullptr) std::fclose(file_);  // not committed: the temporary file goes
  if (!temp_.empty()) std::remove(temp_.c_str());
}

void AtomicOutput::fail(const std::string& what) {
  throw Error(option_ + ": error writing '" + path_ + "'" + (what.empty() ? "" : " (" + what + ")"));
}

void AtomicOutput::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail(std::strerror(errno));
}

void AtomicOutput::commit() {
  if (std::fflush(file_) != 0 || std::ferror(file_) != 0) fail(std::strerror(errno));
  if (::fsync(::fileno(file_)) != 0 && errno != EINVAL) fail(std::string("fsync: ") + std::strerror(errno));
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) fail(std::strerror(errno));
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) fail(std::string("rename: ") + std::strerror(errno));
  temp_.clear();
  // The rename is durable once the directory entry is on disk.
  const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
  const int dir = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir < 0) return;  // a directory that cannot be read: the rename stands, unsynced
  const bool synced = ::fsync(dir) == 0 || errno == EINVAL;
  ::close(dir);
  if (!synced) fail(std::string("fsync of its directory: ") + std::strerror(errno));
}

}  // namespace adasketch::driver
