#pragma once
// FullNewton's ScaLAPACK side, shared by its construction (full_newton.cpp) and its step
// (full_newton_step.cpp) (internal).
#include <optional>

#include "../../linalg/feature_grid.hpp"
#include "adasketch/learners/exact/full_newton.hpp"

namespace adasketch {

/// The ScaLAPACK side: A⁻¹ and the step's X, V = A⁻¹Xᵀ and (K > 1) r·v_g on the grid.
struct FullNewton::Grid {
  Grid(const Communicator& comm, const BlockPartition& partition, int K, const FullNewtonOptions& o)
      : layout(comm, partition, K, o.grid_rows, o.block), inverse(layout.square()), x(layout.vectors(K)),
        v(layout.vectors(K)) {
    inverse.add_to_diagonal(1.0 / o.alpha0);  // A_0⁻¹ = I/α
    if (K > 1) update.emplace(layout.vectors(1));
  }

  FeatureGrid layout;
  DistributedMatrix inverse;  ///< A_t⁻¹ (both triangles, exactly symmetric)
  DistributedMatrix x, v;     ///< X and V (n×K)
  std::optional<DistributedMatrix> update;  ///< K > 1: r·v_g (K = 1: v itself is scaled)
};

}  // namespace adasketch
