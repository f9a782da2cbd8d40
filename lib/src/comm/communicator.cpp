#include "adasketch/comm/communicator.hpp"

#include <climits>
#include <string>
#include <vector>

#include "adasketch/error.hpp"

namespace adasketch {

void check_mpi(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  std::string message = call;
  if (MPI_Error_string(rc, text, &length) == MPI_SUCCESS) message += " (" + std::string(text, length) + ")";
  throw MpiError(message, rc);
}

namespace {
int to_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw InvalidArgument("MPI message of " + number_text(n) + " elements exceeds INT_MAX");
  return static_cast<int>(n);
}

// MPI counts and displacements of blocks laid out back to back in rank order.
void to_counts(std::span<const index_t> counts, std::vector<int>& out, std::vector<int>& offsets) {
  out.resize(counts.size());
  offsets.resize(counts.size());
  std::size_t at = 0;
  for (std::size_t p = 0; p < counts.size(); ++p) {
    out[p] = to_count(static_cast<std::size_t>(counts[p]));
    offsets[p] = to_count(at);
    at += static_cast<std::size_t>(counts[p]);
  }
  (void)to_count(at);
}

void require_blocks(std::size_t values, int ranks, const char* call) {
  if (values % static_cast<std::size_t>(ranks) != 0)
    throw InvalidArgument(std::string(call) + ": " + number_text(values) + " values are not one block per rank");
}
}  // namespace

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  if (comm == MPI_COMM_NULL) throw InvalidArgument("Communicator: condition 'comm != MPI_COMM_NULL' failed");
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

void Communicator::allreduce_sum(std::span<double> values) const {
  if (values.empty()) return;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), to_count(values.size()), MPI_DOUBLE, MPI_SUM, comm_),
            "MPI_Allreduce(sum)");
}

double Communicator::allreduce_sum(double value) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce(sum)");
  return value;
}

index_t Communicator::allreduce_sum(index_t value) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce(sum)");
  return value;
}

double Communicator::allreduce_max(double value) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce(max)");
  return value;
}

index_t Communicator::allreduce_max(index_t value) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_MAX, comm_), "MPI_Allreduce(max)");
  return value;
}

index_t Communicator::allreduce_min(index_t value) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_MIN, comm_), "MPI_Allreduce(min)");
  return value;
}

double Communicator::allreduce_min(double value) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MIN, comm_), "MPI_Allreduce(min)");
  return value;
}

void Communicator::broadcast(std::span<double> values, int root) const {
  if (values.empty()) return;
  check_mpi(MPI_Bcast(values.data(), to_count(values.size()), MPI_DOUBLE, root, comm_), "MPI_Bcast");
}

void Communicator::broadcast(std::span<char> bytes, int root) const {
  if (bytes.empty()) return;
  check_mpi(MPI_Bcast(bytes.data(), to_count(bytes.size()), MPI_CHAR, root, comm_), "MPI_Bcast");
}

void Communicator::broadcast(std::span<index_t> values, int root) const {
  if (values.empty()) return;
  check_mpi(MPI_Bcast(values.data(), to_count(values.size()), MPI_INT64_T, root, comm_), "MPI_Bcast");
}

void Communicator::allgather(std::span<const index_t> mine, std::span<index_t> all) const {
  if (all.size() != mine.size() * static_cast<std::size_t>(size_))
    throw InvalidArgument("MPI_Allgather: " + number_text(all.size()) + " values for " + number_text(size_) +
                          " ranks of " + number_text(mine.size()));
  check_mpi(MPI_Allgather(mine.data(), to_count(mine.size()), MPI_INT64_T, all.data(), to_count(mine.size()),
                          MPI_INT64_T, comm_),
            "MPI_Allgather");
}

void Communicator::alltoall(std::span<const index_t> send, std::span<index_t> receive) const {
  require_blocks(send.size(), size_, "MPI_Alltoall");
  if (receive.size() != send.size())
    throw InvalidArgument("MPI_Alltoall: receive " + number_text(receive.size()) + " values, send " + number_text(send.size()));
  const int block = to_count(send.size() / static_cast<std::size_t>(size_));
  check_mpi(MPI_Alltoall(send.data(), block, MPI_INT64_T, receive.data(), block, MPI_INT64_T, comm_), "MPI_Alltoall");
}

void Communicator::alltoallv(std::span<const index_t> send, std::span<const index_t> send_counts, std::span<index_t> receive,
                             std::span<const index_t> receive_counts) const {
  const auto ranks = static_cast<std::size_t>(size_);
  if (send_counts.size() != ranks || receive_counts.size() != ranks)
    throw InvalidArgument("MPI_Alltoallv: " + number_text(send_counts.size()) + " and " +
                          number_text(receive_counts.size()) + " counts for " + number_text(size_) + " ranks");
  std::vector<int> scounts, sdispls, rcounts, rdispls;
  to_counts(send_counts, scounts, sdispls);
  to_counts(receive_counts, rcounts, rdispls);
  if (static_cast<std::size_t>(sdispls.back()) + static_cast<std::size_t>(scounts.back()) > send.size() ||
      static_cast<std::size_t>(rdispls.back()) + static_cast<std::size_t>(rcounts.back()) > receive.size())
    throw InvalidArgument("MPI_Alltoallv: the counts exceed the buffers");
  check_mpi(MPI_Alltoallv(send.data(), scounts.data(), sdispls.data(), MPI_INT64_T, receive.data(), rcounts.data(),
                          rdispls.data(), MPI_INT64_T, comm_),
            "MPI_Alltoallv");
}

void Communicator::scatter(std::span<const index_t> send, std::span<index_t> receive, int root) const {
  if (rank_ == root && send.size() != receive.size() * static_cast<std::size_t>(size_))
    throw InvalidArgument("MPI_Scatter: " + number_text(send.size()) + " values for " + number_text(size_) +
                          " ranks of " + number_text(receive.size()));
  check_mpi(MPI_Scatter(send.data(), to_count(receive.size()), MPI_INT64_T, receive.data(), to_count(receive.size()),
                        MPI_INT64_T, root, comm_),
            "MPI_Scatter");
}

void Communicator::scatterv(std::span<const char> send, std::span<const index_t> offsets, std::span<char> receive,
                            int root) const {
  std::vector<int> counts, displs;
  if (rank_ == root) {
    const auto ranks = static_cast<std::size_t>(size_);
    if (offsets.size() != ranks + 1 || offsets.back() > static_cast<index_t>(send.size()))
      throw InvalidArgument("MPI_Scatterv: " + number_text(offsets.size()) + " offsets for " + number_text(size_) +
                            " ranks");
    counts.resize(ranks);
    displs.resize(ranks);
    for (std::size_t p = 0; p < ranks; ++p) {
      counts[p] = to_count(static_cast<std::size_t>(offsets[p + 1] - offsets[p]));
      displs[p] = to_count(static_cast<std::size_t>(offsets[p]));
    }
  }
  void* into = rank_ == root ? MPI_IN_PLACE : static_cast<void*>(receive.data());
  check_mpi(MPI_Scatterv(send.data(), counts.data(), displs.data(), MPI_CHAR, into, to_count(receive.size()), MPI_CHAR,
                         root, comm_),
            "MPI_Scatterv");
}

void Communicator::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

}  // namespace adasketch
