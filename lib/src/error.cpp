#include "adasketch/error.hpp"

namespace adasketch {

namespace {
std::string located(const std::string& file, std::int64_t line, const std::string& what) {
  std::string message = file;
  if (line > 0) message.append(":").append(number_text(line));
  message.append(": ").append(what);
  return message;
}
}  // namespace

InputError::InputError(const std::string& file, std::int64_t line, const std::string& what)
    : Error(located(file, line, what)), file_(file), line_(line) {}

MpiError::MpiError(const std::string& call, int code)
    : Error(call + " failed with MPI error code " + number_text(code)), code_(code) {}

LapackError::LapackError(const std::string& routine, long long info)
    : Error(routine + " failed with info = " + number_text(info)), info_(info) {}

namespace detail {
void throw_invalid_argument(const char* function, const char* condition, const std::string& detail) {
  std::string message = std::string(function) + ": condition '" + condition + "' failed";
  if (!detail.empty()) message += " (" + detail + ")";
  throw InvalidArgument(message);
}
}  // namespace detail

}  // namespace adasketch
