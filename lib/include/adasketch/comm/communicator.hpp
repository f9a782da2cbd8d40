#pragma once
// Non-owning view of an MPI communicator with typed, checked collectives.
#include <mpi.h>

#include <cstdint>
#include <span>

#include "adasketch/types.hpp"

namespace adasketch {

/// Throws MpiError naming `call` when rc != MPI_SUCCESS.
void check_mpi(int rc, const char* call);

/// Wraps the caller's communicator. Never calls MPI_Init, never frees the handle, never falls back
/// to MPI_COMM_WORLD: the caller owns the communicator and must keep it alive.
class Communicator {
 public:
  explicit Communicator(MPI_Comm comm);

  MPI_Comm get() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

  /// In-place element-wise sum over all ranks; every rank receives the same result.
  void allreduce_sum(std::span<double> values) const;
  double allreduce_sum(double value) const;
  index_t allreduce_sum(index_t value) const;
  double allreduce_max(double value) const;
  index_t allreduce_max(index_t value) const;
  index_t allreduce_min(index_t value) const;
  void broadcast(std::span<double> values, int root) const;
  void broadcast(std::span<char> bytes, int root) const;
  void barrier() const;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace adasketch
