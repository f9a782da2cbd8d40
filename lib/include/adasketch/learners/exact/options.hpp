#pragma once
/// @file
/// The options of the exact learners FullAdaGrad (ada-full, ada-full-da) and FullNewton (full-on).
#include "adasketch/learners/defaults.hpp"
#include "adasketch/learners/hyperparameters.hpp"
#include "adasketch/learners/learner.hpp"

namespace adasketch {

/// The hyperparameters of FullAdaGrad: the table's rows marked F (hyperparameter_table.h: eta, delta
/// with H = δI + G^{1/2}, scale, grid_rows, with its defaults), and the settings below.
struct FullAdaGradOptions {
  /// The update: mirror descent or dual averaging.
  enum class Update {
    mirror_descent,  ///< composite mirror descent, φ = 0 (ADA-FD paper eq. (2))
    dual_averaging,  ///< primal-dual subgradient / dual averaging, φ = 0 (ADA-FD paper eq. (1))
  };
  Update update = Update::mirror_descent;  ///< mirror descent, or dual averaging ("-da")
  ADASKETCH_OPTIONS_FIELDS(F)
  /// Eigenvalues λ ≤ rank_tolerance·λ_max of G count as zero, in [0, 1). The default is about the
  /// eigensolver's round-off n·u·λ_max for n = dK up to ~10³ (u = 2⁻⁵³); raise it for larger n.
  double rank_tolerance = defaults::full_rank_tolerance;
  /// The grid's square block size ≥ 1 (0: automatic, ⌈dK/(2·max(nprow, npcol))⌉ clamped to [1, 64]).
  int block = defaults::grid_block;
};

/// The hyperparameters of FullNewton: the table's rows marked O (hyperparameter_table.h, with its
/// defaults: alpha0 is SON's α > 0 with A_0 = αI, α = 0 refused, docs/design.md §2; C, sigma, eta,
/// eta_schedule and diag_rescale as in SketchedNewtonOptions; grid_rows), and the grid's block size.
struct FullNewtonOptions {
  ADASKETCH_OPTIONS_FIELDS(O)
  /// The grid's square block size ≥ 1 (0: automatic, ⌈n/(2·max(nprow, npcol))⌉ clamped to [1, 64]).
  int block = defaults::grid_block;
};

}  // namespace adasketch
