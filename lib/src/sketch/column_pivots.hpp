#pragma once
// Column selection for the sparse FD sketch's compaction (internal): which stored rows of Z keep
// carrying the sketch after a shrink, and how the others are written in terms of them.
//
// Given the columns c_0 … c_{n−1} ∈ R^m of the new mixing matrix (each scaled by its basis row's
// norm, so that sizes compare contributions to B), a Gram–Schmidt with column pivoting chooses
//   pass 1  in the caller's preference order, every column whose residual against the pivots so far
//           is at least strong_tolerance·max‖c‖ (well-conditioned, preferred pivots);
//   pass 2  then, largest residual first, columns whose residual exceeds rank_tolerance·max‖c‖
//           (the rest of the numerical rank);
// up to max_pivots. Columns of norm ≤ rank_tolerance·max‖c‖ are dropped; every other column lies in
// the pivots' span to rank_tolerance and gets coefficients c_e = Σ_p w_ep c_p. Pivoting bounds
// |w_ep| by 1/strong_tolerance for pass-1 pivots and by about 1 for pass-2 pivots.
#include <span>
#include <vector>

#include "adasketch/types.hpp"

namespace adasketch::detail {

struct ColumnPivots {
  std::vector<index_t> pivots;      ///< column indices, in the order they were accepted
  std::vector<index_t> eliminated;  ///< columns written in terms of the pivots
  std::vector<index_t> dropped;     ///< negligible columns
  /// eliminated.size() × pivots.size(), row-major: c_{eliminated[e]} = Σ_p w[e][p] c_{pivots[p]}.
  std::vector<double> weights;
  /// Workspace, kept between calls so that a call within the sizes seen before does not allocate.
  std::vector<double> norm, residual, q, r;
  std::vector<int> role;
};

/// `columns` holds n columns of length m, column-major (columns[c·m + i]); `preference` lists the
/// candidates of pass 1, best first (a permutation of a subset of 0..n−1). Fills `out`.
void select_column_pivots(index_t m, index_t n, std::span<const double> columns, std::span<const index_t> preference,
                          index_t max_pivots, double strong_tolerance, double rank_tolerance, ColumnPivots& out);

}  // namespace adasketch::detail
