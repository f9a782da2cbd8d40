#pragma once
// Pieces shared by the benchmark drivers (adasketch-bench-sketch, adasketch-bench-learners): the
// clock of every MPI_Allreduce, Philox rows, and the timed streaming read of a rank's buffer that a
// step is compared with (docs/design.md §4).
#include <cstddef>
#include <cstdint>
#include <span>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/random/philox.hpp"
#include "adasketch/types.hpp"

namespace adasketch::driver {

/// Time and calls of MPI_Allreduce, accumulated only while `active`, by a PMPI wrapper
/// (bench_support.cpp) that takes the place of the MPI library's MPI_Allreduce for the whole
/// executable, including the calls made inside libadasketch. Link the benchmark with the object
/// library adasketch_bench_support so that the wrapper is always linked in.
struct MpiClock {
  bool active = false;
  double seconds = 0.0;
  long long calls = 0;
  double bytes = 0.0;  ///< of the calls' buffers (count × type size)
};
MpiClock& mpi_clock() noexcept;

/// out[j] = scale · N(0, 1) drawn as Philox(seed).normal(row, begin + j): row `row` of a matrix of
/// normals indexed by global feature, the same for every rank count.
void fill_normal_row(const Philox& rng, std::uint64_t row, index_t begin, double scale, std::span<double> out);

/// Sum of squares with independent accumulators, so the loop runs at memory speed instead of add
/// latency.
double stream_sum_squares(std::span<const double> x) noexcept;

struct StreamRead {
  double seconds = 0.0;      ///< the best of the timed reads, each the slowest rank's
  double sum_squares = 0.0;  ///< of the whole buffer, summed over ranks (keeps the reads live)
};

/// Collective. Times `reads` ≥ 1 streaming reads (stream_sum_squares) of each rank's `buffer`, all
/// ranks reading at the same time as they do in a benchmark's steps (a barrier before each).
StreamRead time_stream_read(const Communicator& comm, std::span<const double> buffer, int reads);

/// Collective. Seconds per MPI_Allreduce (sum) of `doubles` doubles: the best of 5 rounds of
/// consecutive calls (barrier first), each round the slowest rank's mean per call.
double time_allreduce(const Communicator& comm, index_t doubles);

}  // namespace adasketch::driver
