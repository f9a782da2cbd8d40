#include "report_file.hpp"

#include <cstdio>

#include "adasketch/error.hpp"
#include "collective_errors.hpp"

namespace adasketch::driver {

namespace {

void write_local(const std::string& path, const std::string& text, const std::string& option) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw InvalidArgument(option + ": cannot open '" + path + "' for writing");
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw Error(option + ": error writing '" + path + "'");
}

}  // namespace

void check_writable(const Communicator& comm, const std::string& path, const std::string& option, bool keep) {
  if (path.empty()) return;
  collective_section(comm, [&] {
    if (comm.rank() != 0) return;
    write_local(path, "", option);
    if (!keep) std::remove(path.c_str());
  });
}

void write_text_file(const Communicator& comm, const std::string& path, const std::string& text, const std::string& option) {
  collective_section(comm, [&] {
    if (comm.rank() == 0) write_local(path, text, option);
  });
}

}  // namespace adasketch::driver
