#pragma once
// The local supports of the stored basis rows ("slots") of a sparse-form sketch (internal): which of
// this rank's features each column of the feature-major block Z (d_p × R_z) may be non-zero on, so
// that writing, combining, erasing and reading a row costs its support, not d_p. A support larger
// than d_p/8 is kept as "dense" (every feature). Supports are local and only affect cost, never
// results; after a checkpoint restore they are rebuilt from the stored values.
#include <span>
#include <vector>

#include "adasketch/sketch/local_row.hpp"
#include "adasketch/types.hpp"

namespace adasketch::detail {

class SlotSupports {
 public:
  SlotSupports(index_t slots, index_t local_dim);

  /// The next use rebuilds every support from the stored values (after the block was restored).
  void mark_stale() noexcept { stale_ = true; }
  void rebuild_if_stale(std::span<const double> z);

  /// Z[j, s] = a_j for the zero slot s.
  void write(std::span<double> z, index_t s, const LocalRow& a);
  /// Z[j, dst] += w·Z[j, src] on src's support.
  void add_scaled(std::span<double> z, index_t dst, double w, index_t src);
  /// lazy[j·stride] += w·Z[j, s] on s's support.
  void add_to(std::span<const double> z, index_t s, double w, std::span<double> lazy, index_t stride);
  /// For every pair (e, p): Z[:, p] += w[e·pivots.size() + p]·Z[:, e]. The sources kept as dense
  /// are read in one pass over the block (a dense source costs one sweep whatever its fan-out).
  void fold(std::span<double> z, std::span<const index_t> pivots, std::span<const index_t> sources,
            std::span<const double> w);
  /// Z[:, s] = 0 for each s (the dense ones in one pass over the block).
  void erase(std::span<double> z, std::span<const index_t> slots);
  /// Every slot's support from the non-zero values (after a dense rewrite of the block).
  void rebuild(std::span<const double> z);

 private:
  /// Sorts and deduplicates s's list when entries were appended since (so no feature is read twice).
  void tidy(index_t s);
  void make_dense(index_t s);

  index_t slots_, local_dim_;
  std::vector<std::vector<index_t>> support_;  // features of each slot (all of them when dense_)
  std::vector<char> dense_, dirty_;
  std::vector<std::size_t> dense_sources_;  // fold's scratch
  bool stale_ = false;
};

}  // namespace adasketch::detail
