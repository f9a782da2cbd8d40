// Sketches a few rows through the installed library on the caller's own communicator.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "adasketch/sketch/frequent_directions.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 0;
  {
    adasketch::Communicator comm(MPI_COMM_WORLD);
    adasketch::FrequentDirections fd(comm, 8, {.ell = 2, .fast = true});
    std::vector<double> row(static_cast<std::size_t>(fd.local_dim()), 1.0);
    for (int i = 0; i < 5; ++i) fd.insert(adasketch::LocalRow::dense(row));
    // Five copies of the all-ones row: ‖a‖² = 8, so BBᵀ has trace 5·8 = 40 (rank one, kept exactly).
    double trace = 0.0;
    for (adasketch::index_t i = 0; i < fd.rows(); ++i) trace += fd.gram()[i * fd.rows() + i];
    if (comm.rank() == 0) std::printf("trace %.6f\n", trace);
    code = (trace > 39.999999 && trace < 40.000001) ? 0 : 1;
  }
  MPI_Finalize();
  return code;
}
