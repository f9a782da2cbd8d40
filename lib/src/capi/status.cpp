#include "status.hpp"

#include "adasketch/version.hpp"

namespace adasketch::capi {

std::string& last_error() noexcept {
  thread_local std::string message;
  return message;
}

}  // namespace adasketch::capi

extern "C" {

const char* adasketch_last_error(void) { return adasketch::capi::last_error().c_str(); }

const char* adasketch_version(void) { return adasketch::version(); }

}  // extern "C"
