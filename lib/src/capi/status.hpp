#pragma once
// The C interface's error handling: every call runs its body through guarded(), which maps each
// exception to an adasketch_status and keeps its message for adasketch_last_error().
#include <exception>
#include <new>
#include <string>

#include "adasketch/adasketch.h"
#include "adasketch/error.hpp"

namespace adasketch::capi {

/// The calling thread's last message ("" after a successful call).
std::string& last_error() noexcept;

/// Runs f, mapping every exception to its status and the thread's message.
template <class F>
adasketch_status guarded(F&& f) noexcept {
  const auto failed = [](adasketch_status status, const char* what) {
    last_error() = what;
    return status;
  };
  try {
    f();
    last_error().clear();
    return ADASKETCH_OK;
  } catch (const InvalidArgument& e) {
    return failed(ADASKETCH_INVALID_ARGUMENT, e.what());
  } catch (const InputError& e) {
    return failed(ADASKETCH_INPUT_ERROR, e.what());
  } catch (const NumericError& e) {
    return failed(ADASKETCH_NUMERIC_ERROR, e.what());
  } catch (const MpiError& e) {
    return failed(ADASKETCH_MPI_ERROR, e.what());
  } catch (const LapackError& e) {
    return failed(ADASKETCH_LAPACK_ERROR, e.what());
  } catch (const std::bad_alloc&) {
    return failed(ADASKETCH_ERROR, "out of memory");
  } catch (const std::exception& e) {
    return failed(ADASKETCH_ERROR, e.what());
  } catch (...) {
    return failed(ADASKETCH_ERROR, "unknown error");
  }
}

/// Throws InvalidArgument "<what> is NULL" when p is.
inline void require_pointer(const void* p, const char* what) {
  if (p == nullptr) throw InvalidArgument(std::string(what) + " is NULL");
}

}  // namespace adasketch::capi
