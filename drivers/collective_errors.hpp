#pragma once
// How the drivers end on an error, on any number of ranks, without hanging (docs/design.md §5).
//
// run_mpi_main() initializes MPI, sets MPI_ERRORS_RETURN on MPI_COMM_WORLD (so MPI failures become
// MpiError exceptions instead of aborts), and duplicates MPI_COMM_WORLD into a private error
// communicator. When the body throws on a rank, that rank enters MPI_Ibarrier on the error
// communicator and polls it for up to a few seconds:
//   - the barrier completes: every rank failed (the usual case: the readers validate the input so
//     bad input fails on every rank together). Rank 0 alone prints `<program>: error: <what>`, all
//     ranks agree on the exit status (the largest), call MPI_Finalize and exit with it;
//   - it times out: the error is local to some ranks, which may never reach the barrier because
//     the others wait in a collective. Each failing rank prints
//     `<program>: error on rank R: <what>` and calls MPI_Abort, which ends every rank.
// Exit status: 2 for usage errors (adasketch::InvalidArgument: bad options or arguments), 1 for
// everything else. The message is always a single line.
//
// Under Open MPI's mpirun, pass --quiet (or set OMPI_MCA_orte_execute_quiet=1) so that mpirun does
// not add its own multi-line banner about ranks that exited with a non-zero status.
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <span>
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/error.hpp"

namespace adasketch::driver {

inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// The driver's body: receives MPI_COMM_WORLD (with MPI_ERRORS_RETURN set) and argv[1..].
using MainBody = std::function<int(const Communicator& world, std::span<const std::string> args)>;

/// The whole main() of a driver; returns the process exit status. `program` prefixes the error line.
/// Never returns for a local (not all-ranks) error: that path ends in MPI_Abort.
int run_mpi_main(int argc, char** argv, const std::string& program, const MainBody& body);

/// Exit status for an exception: kExitUsage for InvalidArgument, kExitFailure otherwise.
int exit_status_for(const std::exception_ptr& error) noexcept;
/// what() of an exception, flattened to one line.
std::string one_line_message(const std::exception_ptr& error);

/// Collective. Runs `body` (which must not communicate) on every rank; if it throws on any rank,
/// every rank throws the same error: the message of the lowest failing rank, as InvalidArgument
/// when that was a usage error and as Error otherwise. Turns a rank-local failure (writing a file
/// on rank 0, say) into an all-ranks failure, which ends cleanly with a single error line.
void collective_section(const Communicator& comm, const std::function<void()>& body);

/// Returns make(); an allocation failure in it (std::bad_alloc, or std::length_error for a size
/// beyond the address space) becomes an Error "not enough memory for <what>". Sizes come from the
/// data (d) and the options (ℓ), so this names them instead of a bare std::bad_alloc.
template <class Make>
auto with_memory_context(const std::string& what, Make&& make) {
  try {
    return make();
  } catch (const std::bad_alloc&) {
    throw Error("not enough memory for " + what);
  } catch (const std::length_error&) {
    throw Error("not enough memory for " + what + " (more than the address space)");
  }
}

/// Owns an object whose destructor may be collective (MPI_File_close, a BLACS grid). Leaving the
/// scope normally destroys it; leaving it by an exception leaks it instead: the other ranks may not
/// be unwinding too, a collective destructor would then hang before the error protocol above can
/// end the job, and the process ends right after anyway (MPI_Finalize or MPI_Abort).
template <class T>
class CollectiveOwner {
 public:
  explicit CollectiveOwner(std::unique_ptr<T> object)
      : object_(std::move(object)), uncaught_(std::uncaught_exceptions()) {}
  ~CollectiveOwner() {
    if (std::uncaught_exceptions() > uncaught_) (void)object_.release();
  }
  CollectiveOwner(const CollectiveOwner&) = delete;
  CollectiveOwner& operator=(const CollectiveOwner&) = delete;

  T* get() const noexcept { return object_.get(); }
  T* operator->() const noexcept { return object_.get(); }
  T& operator*() const noexcept { return *object_; }

 private:
  std::unique_ptr<T> object_;
  int uncaught_;
};

}  // namespace adasketch::driver
