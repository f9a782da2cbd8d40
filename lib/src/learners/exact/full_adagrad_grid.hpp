#pragma once
// FullAdaGrad's ScaLAPACK side, shared by its construction (full_adagrad.cpp) and its step
// (full_adagrad_step.cpp) (internal).
#include <algorithm>
#include <vector>

#include "../../linalg/feature_grid.hpp"
#include "../../linalg/scalapack_api.hpp"
#include "adasketch/error.hpp"
#include "adasketch/learners/exact/full_adagrad.hpp"

namespace adasketch {

/// The ScaLAPACK side: G, the eigensolver's copy and eigenvectors, the vectors on the grid, and the
/// eigensolver's workspace (sized once by a workspace query).
struct FullAdaGrad::Grid {
  Grid(const Communicator& comm, const BlockPartition& partition, index_t K, const FullAdaGradOptions& o, bool dual)
      : layout(comm, partition, K, o.grid_rows, o.block),
        g(layout.square()),
        copy(layout.square()),
        v(layout.square()),
        in(layout.vectors(dual ? 2 : 1)),
        rotated(layout.vectors(1)),
        out(layout.vectors(1)),
        lambda(sz(layout.n())),
        phi(sz(layout.n())) {
    const int n = layout.n(), query = -1;
    double lwork = 0.0;
    int liwork = 0, info = 0;
    pdsyevd_("V", "L", &n, copy.data(), &detail::kOne, &detail::kOne, copy.desc(), lambda.data(), v.data(), &detail::kOne, &detail::kOne, v.desc(),
             &lwork, &query, &liwork, &query, &info, 1, 1);
    if (info != 0) throw LapackError("pdsyevd (workspace query)", info);
    // The query counts 2·NP·NQ local entries for the divide-and-conquer stage (pdstedc), but pdlaed1
    // lays them out with leading dimension max(NP, 1): a process without rows of G would overrun it.
    const double np = std::max(g.local_rows(), 1), nq = std::max(g.local_cols(), 1);
    const double needed = 1.0 + 8.0 * n + 2.0 * np * nq;  // pdsyevd's LWMIN with NP, NQ ≥ 1
    work.assign(static_cast<std::size_t>(std::max(lwork, needed)), 0.0);
    iwork.assign(static_cast<std::size_t>(std::max(liwork, 1)), 0);
  }

  FeatureGrid layout;
  DistributedMatrix g;        ///< G_t (both triangles: pdger keeps it exactly symmetric)
  DistributedMatrix copy;     ///< the eigensolver's input, destroyed by it
  DistributedMatrix v;        ///< eigenvectors V (columns), ascending λ
  DistributedMatrix in;       ///< g (and Σg) on the grid
  DistributedMatrix rotated;  ///< φ ∘ Vᵀv
  DistributedMatrix out;      ///< H⁻¹v = V(φ ∘ Vᵀv)
  std::vector<double> lambda, phi;
  std::vector<double> work;
  std::vector<int> iwork;
};

}  // namespace adasketch
