#include "file_kind.hpp"

#include <filesystem>
#include <system_error>

namespace adasketch::detail {

std::string not_a_regular_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status) || fs::is_regular_file(status)) return {};
  if (fs::is_directory(status)) return "it is a directory";
  return "not a regular file (a pipe or device cannot be read more than once)";
}

}  // namespace adasketch::detail
