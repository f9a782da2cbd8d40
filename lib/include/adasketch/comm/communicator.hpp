#pragma once
/// @file
/// Non-owning view of an MPI communicator with typed, checked collectives.
#include <mpi.h>

#include <cstdint>
#include <span>

#include "adasketch/types.hpp"

namespace adasketch {

/// Throws MpiError naming `call` when rc != MPI_SUCCESS.
void check_mpi(int rc, const char* call);

/// Wraps the caller's communicator. Never calls MPI_Init, never frees the handle, never falls back
/// to MPI_COMM_WORLD: the caller owns the communicator and must keep it alive. Copies are views of
/// the same communicator.
///
/// Every member but get(), rank() and size() is collective: every rank of the communicator calls it,
/// in the same order. They throw MpiError when MPI reports an error, and InvalidArgument when the
/// buffers do not fit (sizes, or a count beyond INT_MAX).
class Communicator {
 public:
  /// Local apart from MPI_Comm_rank and MPI_Comm_size. Throws InvalidArgument for MPI_COMM_NULL,
  /// MpiError when MPI fails.
  explicit Communicator(MPI_Comm comm);

  /// The caller's handle.
  MPI_Comm get() const noexcept { return comm_; }
  /// This process's rank in the communicator.
  int rank() const noexcept { return rank_; }
  /// The number of ranks P.
  int size() const noexcept { return size_; }

  /// In-place element-wise sum over all ranks; every rank receives the same result.
  void allreduce_sum(std::span<double> values) const;
  /// The sum of `value` over all ranks, on every rank.
  ///@{
  double allreduce_sum(double value) const;
  index_t allreduce_sum(index_t value) const;
  ///@}
  /// The largest `value` of all ranks, on every rank.
  ///@{
  double allreduce_max(double value) const;
  index_t allreduce_max(index_t value) const;
  ///@}
  /// The smallest `value` of all ranks, on every rank.
  ///@{
  index_t allreduce_min(index_t value) const;
  double allreduce_min(double value) const;
  ///@}
  /// Root's `values` (or bytes) into every rank's buffer of the same size.
  ///@{
  void broadcast(std::span<double> values, int root) const;
  void broadcast(std::span<char> bytes, int root) const;
  void broadcast(std::span<index_t> values, int root) const;
  ///@}
  /// Every rank's `mine` (the same size on every rank), concatenated in rank order into `all`.
  void allgather(std::span<const index_t> mine, std::span<index_t> all) const;
  /// Block p of `send` (send.size()/P values) goes to rank p; block p of `receive` comes from rank p.
  void alltoall(std::span<const index_t> send, std::span<index_t> receive) const;
  /// Rank p gets send_counts[p] values of `send` (blocks in rank order) and puts what rank p sends it
  /// at the same place in `receive` (receive_counts[p] values, blocks in rank order).
  void alltoallv(std::span<const index_t> send, std::span<const index_t> send_counts, std::span<index_t> receive,
                 std::span<const index_t> receive_counts) const;
  /// Root: block p of `send` (send.size()/P values) goes to rank p's `receive`.
  void scatter(std::span<const index_t> send, std::span<index_t> receive, int root) const;
  /// Root: bytes [offsets[p], offsets[p + 1]) of `send` go to rank p's `receive` (root: in place, its
  /// own block stays where it is; offsets has P + 1 entries and is read on the root only).
  void scatterv(std::span<const char> send, std::span<const index_t> offsets, std::span<char> receive, int root) const;
  /// Waits until every rank has called it.
  void barrier() const;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace adasketch
