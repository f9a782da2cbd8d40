#include "report_file.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "adasketch/error.hpp"
#include "adasketch/version.hpp"
#include "atomic_output.hpp"
#include "collective_errors.hpp"

namespace adasketch::driver {

void begin_report(JsonWriter& j, const char* command, const OptionParser& opts) {
  j.begin_object();
  j.member("command", command);
  j.member("version", version());
  j.key("options");
  j.begin_object();
  opts.write_json(j);
  j.end_object();
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;  // both exist (hard or symbolic links included)
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

}  // namespace

void check_distinct_files(const Communicator& comm, const std::vector<NamedFile>& files) {
  collective_section(comm, [&] {
    if (comm.rank() != 0) return;
    for (std::size_t i = 0; i < files.size(); ++i)
      for (std::size_t j = i + 1; j < files.size(); ++j) {
        const NamedFile &a = files[i], &b = files[j];
        if ((a.output || b.output) && !a.path.empty() && !b.path.empty() && same_file(a.path, b.path))
          throw InvalidArgument(a.option + " and " + b.option + " name the same file '" + b.path + "'");
      }
  });
}

void check_writable(const Communicator& comm, const std::string& path, const std::string& option, bool atomic) {
  if (path.empty()) return;
  collective_section(comm, [&] {
    if (comm.rank() != 0) return;
    if (atomic) {
      const AtomicOutput probe(path, option);  // never committed: removed again
      return;
    }
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) throw InvalidArgument(option + ": cannot open '" + path + "' for writing");
    const bool closed = std::fclose(f) == 0;
    std::remove(path.c_str());
    if (!closed) throw Error(option + ": error writing '" + path + "'");
  });
}

void write_text_file(const Communicator& comm, const std::string& path, const std::string& text, const std::string& option) {
  collective_section(comm, [&] {
    if (comm.rank() != 0) return;
    AtomicOutput out(path, option);
    out.write(text);
    out.commit();
  });
}

}  // namespace adasketch::driver
