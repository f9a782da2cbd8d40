#include "adasketch/comm/communicator.hpp"

#include <climits>
#include <string>

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
  if (n > static_cast<std::size_t>(INT_MAX)) throw InvalidArgument("MPI message of " + std::to_string(n) + " elements exceeds INT_MAX");
  return static_cast<int>(n);
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

void Communicator::broadcast(std::span<double> values, int root) const {
  if (values.empty()) return;
  check_mpi(MPI_Bcast(values.data(), to_count(values.size()), MPI_DOUBLE, root, comm_), "MPI_Bcast");
}

void Communicator::broadcast(std::span<char> bytes, int root) const {
  if (bytes.empty()) return;
  check_mpi(MPI_Bcast(bytes.data(), to_count(bytes.size()), MPI_CHAR, root, comm_), "MPI_Bcast");
}

void Communicator::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

}  // namespace adasketch
