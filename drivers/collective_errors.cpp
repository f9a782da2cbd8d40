#include "collective_errors.hpp"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include "adasketch/error.hpp"
#include "fault_injection.hpp"

namespace adasketch::driver {

namespace {

using Clock = std::chrono::steady_clock;

// How long a failing rank waits for the other ranks to fail too before it concludes the error is
// local and aborts the job. Ranks that fail together (bad input, detected collectively) arrive
// within milliseconds of each other. ADASKETCH_ERROR_TIMEOUT (seconds) overrides it.
double error_timeout_seconds() {
  if (const char* env = std::getenv("ADASKETCH_ERROR_TIMEOUT")) {
    char* end = nullptr;
    const double v = std::strtod(env, &end);
    if (end != env && *end == '\0' && v > 0.0 && v < 3600.0) return v;
  }
  return 5.0;  // oversubscribed or loaded nodes can delay a rank by seconds: the tests use more
}

void print_line(const std::string& program, const std::string& where, const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error%s: %s\n", program.c_str(), where.c_str(), message.c_str());
  std::fflush(stderr);
}

class ErrorChannel {
 public:
  ErrorChannel() {
    int rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    ok_ = rc == MPI_SUCCESS;
  }
  ~ErrorChannel() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  ErrorChannel(const ErrorChannel&) = delete;
  ErrorChannel& operator=(const ErrorChannel&) = delete;

  bool ok() const noexcept { return ok_; }
  int rank() const noexcept { return rank_; }

  /// The protocol of the header. Returns the agreed exit status when every rank failed.
  int fail(const std::string& program, const std::exception_ptr& error) {
    const std::string message = one_line_message(error);
    int status = exit_status_for(error);
    bool everyone = false;
    MPI_Request request = MPI_REQUEST_NULL;
    if (ok_ && MPI_Ibarrier(comm_, &request) == MPI_SUCCESS) {
      const auto deadline = Clock::now() + std::chrono::duration<double>(error_timeout_seconds());
      for (;;) {
        int done = 0;
        if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) break;
        if (done) {
          everyone = true;
          break;
        }
        if (Clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    if (everyone) {
      // Every rank is here, so a blocking collective on the private communicator is safe.
      int agreed = status;
      if (MPI_Allreduce(&status, &agreed, 1, MPI_INT, MPI_MAX, comm_) == MPI_SUCCESS) status = agreed;
      if (rank_ == 0) print_line(program, "", message);
      return status;
    }
    print_line(program, " on rank " + number_text(rank_), message);
    MPI_Abort(MPI_COMM_WORLD, status);
    _exit(status);  // MPI_Abort does not return; this is only a guard
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  bool ok_ = false;
};

}  // namespace

int exit_status_for(const std::exception_ptr& error) noexcept {
  try {
    if (error) std::rethrow_exception(error);
  } catch (const InvalidArgument&) {
    return kExitUsage;
  } catch (...) {
    return kExitFailure;
  }
  return kExitFailure;
}

std::string one_line_message(const std::exception_ptr& error) {
  std::string message = "unknown error";
  try {
    if (error) std::rethrow_exception(error);
  } catch (const std::bad_alloc&) {
    message = "out of memory (std::bad_alloc)";
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "unknown exception";
  }
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  while (!message.empty() && (message.back() == ' ' || message.back() == '\t')) message.pop_back();
  if (message.empty()) message = "unknown error";
  return message;
}

int run_mpi_main(int argc, char** argv, const std::string& program, const MainBody& body) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    std::fprintf(stderr, "%s: error: MPI_Init failed\n", program.c_str());
    return kExitFailure;
  }
  int status = 0;
  {
    ErrorChannel channel;
    if (!channel.ok()) {
      print_line(program, "", "cannot set up the MPI error communicator");
      MPI_Abort(MPI_COMM_WORLD, kExitFailure);
    }
    try {
      if (const InjectedFault fault = requested_fault(); fault.rank == channel.rank() && fault.example == 0)
        throw_injected(fault, "before the command, on this rank only");
      const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
      status = body(Communicator(MPI_COMM_WORLD), args);
    } catch (...) {
      status = channel.fail(program, std::current_exception());
    }
  }
  std::fflush(stdout);
  MPI_Finalize();
  return status;
}

void collective_section(const Communicator& comm, const std::function<void()>& body) {
  std::exception_ptr error;
  try {
    body();
  } catch (...) {
    error = std::current_exception();
  }
  const int mine = error ? comm.rank() : comm.size();
  int first = comm.size();
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.get()), "MPI_Allreduce(min)");
  if (first == comm.size()) return;
  std::string message = first == comm.rank() ? one_line_message(error) : std::string();
  int header[2] = {first == comm.rank() ? exit_status_for(error) : 0, static_cast<int>(message.size())};
  check_mpi(MPI_Bcast(header, 2, MPI_INT, first, comm.get()), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(header[1]));
  if (header[1] > 0) check_mpi(MPI_Bcast(message.data(), header[1], MPI_CHAR, first, comm.get()), "MPI_Bcast");
  if (header[0] == kExitUsage) throw InvalidArgument(message);
  throw Error(message);
}

}  // namespace adasketch::driver
