#include "bench_support.hpp"

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "adasketch/error.hpp"

namespace adasketch::driver {

MpiClock& mpi_clock() noexcept {
  static MpiClock clock;
  return clock;
}

void fill_normal_row(const Philox& rng, std::uint64_t row, index_t begin, double scale, std::span<double> out) {
  for (std::size_t j = 0; j < out.size(); ++j) out[j] = scale * rng.normal(row, static_cast<std::uint64_t>(begin) + j);
}

double stream_sum_squares(std::span<const double> x) noexcept {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const std::size_t n = x.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (std::size_t k = 0; k < 8; ++k) s[k] += x[i + k] * x[i + k];
  for (; i < n; ++i) s[0] += x[i] * x[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

StreamRead time_stream_read(const Communicator& comm, std::span<const double> buffer, int reads) {
  ADASKETCH_REQUIRE(reads >= 1, "reads = " + number_text(reads));
  StreamRead r{std::numeric_limits<double>::infinity(), 0.0};
  double local_sum = 0.0;
  for (int trial = 0; trial < reads; ++trial) {
    comm.barrier();
    const double t0 = MPI_Wtime();
    local_sum = stream_sum_squares(buffer);
    const double local = MPI_Wtime() - t0;
    r.seconds = std::min(r.seconds, comm.allreduce_max(local));
  }
  r.sum_squares = comm.allreduce_sum(local_sum);
  return r;
}

double time_allreduce(const Communicator& comm, index_t doubles) {
  ADASKETCH_REQUIRE(doubles >= 1, "doubles = " + number_text(doubles));
  std::vector<double> buffer(static_cast<std::size_t>(doubles), 0.0);
  // About 8 MB moved per round, between 10 and 1000 calls.
  const index_t calls = std::clamp<index_t>((index_t{1} << 20) / doubles, 10, 1000);
  comm.allreduce_sum(buffer);  // warm-up: connections, buffers
  double best = std::numeric_limits<double>::infinity();
  for (int round = 0; round < 5; ++round) {
    comm.barrier();
    const double t0 = MPI_Wtime();
    for (index_t c = 0; c < calls; ++c) comm.allreduce_sum(buffer);
    best = std::min(best, comm.allreduce_max((MPI_Wtime() - t0) / static_cast<double>(calls)));
  }
  return best;
}

}  // namespace adasketch::driver

// PMPI profiling wrapper (see MpiClock).
extern "C" int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  adasketch::driver::MpiClock& clock = adasketch::driver::mpi_clock();
  if (!clock.active) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  const double t0 = PMPI_Wtime();
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  clock.seconds += PMPI_Wtime() - t0;
  ++clock.calls;
  int type_size = 0;
  PMPI_Type_size(datatype, &type_size);
  clock.bytes += static_cast<double>(count) * type_size;
  return rc;
}
