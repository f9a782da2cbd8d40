#pragma once
// The learners' default hyperparameters: one set, read by the options structs of every learner
// (DiagonalAdaGradOptions, SketchedAdaGradOptions, SketchedNewtonOptions, FullAdaGradOptions,
// FullNewtonOptions), by LearnerSpec (so
// make_learner) and by `adasketch train`'s --help, so a learner has the same defaults whichever way
// it is built.
#include <cstdint>

#include "adasketch/types.hpp"

namespace adasketch::defaults {

inline constexpr index_t ell = 10;          ///< sketch size ℓ (τ in the AdaGrad papers, m in SON)
inline constexpr double eta = 0.1;          ///< AdaGrad step size η; SON: scale of the η_t schedule
inline constexpr double delta = 1.0;        ///< AdaGrad δ (σ in the ADA-GP/DP paper)
inline constexpr double alpha = 1.0;        ///< SON α; RFD-SON α₀
inline constexpr double C = 1.0;            ///< SON projection radius: K_t = {w : |wᵀx_t| ≤ C}
inline constexpr double sigma = 0.0;        ///< SON curvature σ_t (constant)
inline constexpr std::uint64_t seed = 1;    ///< the random projection (rp)
inline constexpr double max_growth = 1e4;   ///< sparse oja sketch: the rebase threshold
inline constexpr double lambda1 = 0.0;      ///< composite φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖²: the ℓ1 weight
inline constexpr double lambda2 = 0.0;      ///< … and the ℓ2 weight
inline constexpr double tau = 1.0;          ///< CompAdaGrad τ: weight of the diagonal block on the complement
inline constexpr double rescale_d1 = 0.1;   ///< SON diagonal rescaling: D_1 = 0.1·I (SON §5.2, footnote 6)
inline constexpr int grid_rows = 0;         ///< exact learners: ScaLAPACK grid rows (0: the most nearly square grid)
inline constexpr int grid_block = 0;        ///< exact learners: ScaLAPACK block size (0: automatic, ≤ 64)
/// ADA-FULL: eigenvalues λ ≤ rank_tolerance·λ_max of G count as zero (the eigensolver's round-off level).
inline constexpr double full_rank_tolerance = 1e-13;

}  // namespace adasketch::defaults
