// Sketches a few rows through the installed library on the caller's own communicator and, when the
// package has the exact learners (ScaLAPACK in the core library), trains full-on on them.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "adasketch/learners/learner.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/version.hpp"

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
#if ADASKETCH_WITH_EXACT_LEARNERS
    // FULL-ON on the all-ones row x, squared loss, label 1, α = 1, C = ∞, σ = 1/8, η = 0: at u = 0,
    // ℓ' = −2, c = σℓ'² = 1/2, q = xᵀA⁻¹x = 8, so u = −ℓ'·x/(1 + cq) = 2x/5 and uᵀx = 16/5.
    adasketch::LearnerSpec spec;
    spec.algorithm = "full-on";
    spec.loss = adasketch::LossKind::squared;
    spec.C = INFINITY;
    spec.sigma = 0.125;
    spec.eta = 0.0;
    spec.alpha0 = 1.0;
    spec.scale = adasketch::ScaleRule::none;  // α = 1 as given
    auto learner = adasketch::make_learner(comm, 8, spec);
    learner->step(adasketch::LocalRow::dense(row), 1.0);
    double score = 0.0;
    learner->predict(adasketch::LocalRow::dense(row), {&score, 1});
    if (comm.rank() == 0) std::printf("full-on score %.6f\n", score);
    if (!(std::abs(score - 3.2) < 1e-12)) code = 1;
#endif
  }
  MPI_Finalize();
  return code;
}
