#pragma once
/// @file
/// The learners' default hyperparameters: one set, from the hyperparameter table, read by the
/// options structs of every learner (DiagonalAdaGradOptions, SketchedAdaGradOptions,
/// SketchedNewtonOptions, FullAdaGradOptions, FullNewtonOptions, CompAdaGradOptions), so that a
/// learner has the same defaults whichever way it is built.
#include <cstdint>

#include "adasketch/learners/hyperparameters.hpp"
#include "adasketch/types.hpp"

/// The default hyperparameters as constants: one `inline constexpr` per number and switch of the
/// hyperparameter table (ADASKETCH_HYPERPARAMETERS, learners/hyperparameter_table.h), with the
/// table's type, member name and default, and the settings below that are not hyperparameters of
/// LearnerSpec.
namespace adasketch::defaults {

// The numbers and switches of the hyperparameter table, as constants.
#define ADASKETCH_DEFAULT_number(type, member, value) inline constexpr type member = value;
#define ADASKETCH_DEFAULT_flag(type, member, value) inline constexpr type member = value;
#define ADASKETCH_DEFAULT_choice(type, member, value)
#define ADASKETCH_DEFAULT_list(type, member, value)
#define ADASKETCH_DEFAULT(kind, type, member, option, value, ...) ADASKETCH_DEFAULT_##kind(type, member, value)
ADASKETCH_HYPERPARAMETERS(ADASKETCH_DEFAULT)
#undef ADASKETCH_DEFAULT
#undef ADASKETCH_DEFAULT_list
#undef ADASKETCH_DEFAULT_choice
#undef ADASKETCH_DEFAULT_flag
#undef ADASKETCH_DEFAULT_number

// Settings of the learners that are not hyperparameters of LearnerSpec.
inline constexpr double max_growth = 1e4;   ///< sparse oja sketch: the rebase threshold
inline constexpr double rescale_d1 = 0.1;   ///< SON diagonal rescaling: D_1 = 0.1·I (SON §5.2, footnote 6)
inline constexpr int grid_block = 0;        ///< exact learners: ScaLAPACK block size (0: automatic, ≤ 64)
/// ADA-FULL: eigenvalues λ ≤ rank_tolerance·λ_max of G count as zero (the eigensolver's round-off level).
inline constexpr double full_rank_tolerance = 1e-13;

}  // namespace adasketch::defaults
