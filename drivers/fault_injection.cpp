#include "fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>

#include "adasketch/error.hpp"

namespace adasketch::driver {

namespace {

constexpr const char* kVariable = "ADASKETCH_TEST_FAIL_ON_RANK";

long long parse_field(const std::string& text, const std::string& value) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0)
    throw InvalidArgument(std::string(kVariable) + "=" + value + ": expected R or R:N[:KIND] with integers R, N ≥ 0");
  return v;
}

}  // namespace

TrainTestHooks train_test_hooks() {
  TrainTestHooks hooks{requested_fault(), {}};
  const char* env = std::getenv("ADASKETCH_TEST_CRASH_BEFORE_RENAME");
  if (env == nullptr || *env == '\0') return hooks;
  hooks.before_checkpoint_rename = [at = std::atoi(env), saves = 0]() mutable {
    if (++saves != at) return;
    std::fflush(stdout);
    ::kill(::getpid(), SIGKILL);
  };
  return hooks;
}

InjectedFault requested_fault() {
  InjectedFault fault;
  const char* env = std::getenv(kVariable);
  if (env == nullptr || *env == '\0') return fault;
  const std::string value = env;
  const auto first = value.find(':');
  const long long rank = parse_field(value.substr(0, first), value);
  if (rank > std::numeric_limits<int>::max()) throw InvalidArgument(std::string(kVariable) + "=" + value + ": rank too large");
  fault.rank = static_cast<int>(rank);
  if (first == std::string::npos) return fault;
  const auto second = value.find(':', first + 1);
  fault.example = parse_field(value.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1), value);
  if (second != std::string::npos) fault.kind = value.substr(second + 1);
  if (fault.kind != "error" && fault.kind != "alloc" && fault.kind != "lapack" && fault.kind != "nan")
    throw InvalidArgument(std::string(kVariable) + "=" + value + ": unknown kind '" + fault.kind +
                          "' (expected error, alloc, lapack or nan)");
  return fault;
}

void throw_injected(const InjectedFault& fault, const std::string& where) {
  const std::string what = "injected failure " + where + " (" + kVariable + ")";
  if (fault.kind == "alloc") throw std::bad_alloc();
  if (fault.kind == "lapack") throw LapackError("dsyevd (" + what + ")", 1);
  throw Error(what);
}

bool FaultInjectingSource::next(Example& out) {
  if (!inner_.next(out)) return false;
  if (++served_ != fault_.example) return true;
  if (fault_.kind != "nan") throw_injected(fault_, "at example " + number_text(served_));
  for (double& v : out.values) v = std::numeric_limits<double>::quiet_NaN();
  if (out.values.empty()) ++fault_.example;  // nothing on this rank here: poison the next example instead
  return true;
}

index_t FaultInjectingSource::skip(index_t n) {
  const index_t skipped = inner_.skip(n);
  served_ += skipped;
  return skipped;
}

}  // namespace adasketch::driver
