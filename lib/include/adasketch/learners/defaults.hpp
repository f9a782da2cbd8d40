#pragma once
/// @file
/// The learners' settings beside the hyperparameter table.

/// The learners' settings that are not rows of the hyperparameter table (whose defaults LearnerSpec
/// and the options structs take from the table itself).
namespace adasketch::defaults {

inline constexpr double max_growth = 1e4;   ///< sparse oja sketch: the rebase threshold
inline constexpr int grid_block = 0;        ///< exact learners: ScaLAPACK block size (0: automatic, ≤ 64)
/// ADA-FULL: eigenvalues λ ≤ rank_tolerance·λ_max of G count as zero (the eigensolver's round-off level).
inline constexpr double full_rank_tolerance = 1e-13;
/// The divergence check (LearnerSpec::divergence; docs/design.md §2, "Divergence"): the steps of a window.
inline constexpr long long divergence_window = 1000;
/// The divergence check of SON and FULL-ON: every how many steps the model's own score is sampled
/// (divergence_window is a multiple of it).
inline constexpr long long divergence_sample = 10;

}  // namespace adasketch::defaults
