#pragma once
// The local supports of the stored basis rows ("slots") of a sparse-form sketch (internal): which of
// this rank's features each column of the feature-major block Z (d_p × R_z) may be non-zero on, so
// that writing, combining, erasing and reading a row costs its support, not d_p.
//
// The touched set U holds every feature any slot was ever non-zero on (touched_set.hpp). A slot is either narrow, with its own list of features (a new row, or one that
// absorbed a few), or wide: its support is most of U, as FD's old rows become on data whose rows share
// features (each fold adds a row's support to the pivots). Operations on wide slots are one sweep of
// U for all of them together, so folding several wide rows into the pivots reads each touched
// feature's row of Z once. Supports are local and only affect cost, never results; after a checkpoint
// restore they are rebuilt from the stored values.
#include <cstdint>
#include <span>
#include <vector>

#include "adasketch/sketch/local_row.hpp"
#include "adasketch/types.hpp"
#include "touched_set.hpp"

namespace adasketch::detail {

class SlotSupports {
 public:
  SlotSupports(index_t slots, index_t local_dim);

  /// The next use rebuilds every support from the stored values (after the block was restored).
  void mark_stale() noexcept { stale_ = true; }
  void rebuild_if_stale(std::span<const double> z);

  /// Z[j, s] = a_j for the zero slot s.
  void write(std::span<double> z, index_t s, const LocalRow& a);
  /// For every pair (e, p): Z[:, pivots[p]] += w[e·pivots.size() + p]·Z[:, sources[e]]. A narrow
  /// source costs its support times the pivots; all wide sources together cost one sweep of U.
  void fold(std::span<double> z, std::span<const index_t> pivots, std::span<const index_t> sources,
            std::span<const double> w);
  /// lazy[j·stride] += Σ_k w[k]·Z[j, slots[k]] (the wide slots in one sweep of U).
  void add_to(std::span<const double> z, std::span<const index_t> slots, std::span<const double> w,
              std::span<double> lazy, index_t stride);
  /// Z[:, s] = 0 for each s (the wide ones in one sweep of U); they become narrow and empty.
  void erase(std::span<double> z, std::span<const index_t> slots);
  /// After a rewrite of the block within U (a rebase): slots 0..wide_slots−1 are wide, the others empty.
  void reset(index_t wide_slots);
  /// Every slot's support from the non-zero values (after the block was replaced).
  void rebuild(std::span<const double> z);

  /// Calls f(j) for every feature of U, ascending.
  template <class F>
  void for_each_touched(F&& f) const {
    touched_.for_each(f);
  }
  /// TouchedSet::sweep over U for z (d_p × slots).
  template <class F>
  void sweep_touched(const double* z, F&& f, const double* also = nullptr, index_t stride = 0) const {
    touched_.sweep(z, slots_, f, also, stride);
  }
  /// |U|.
  index_t touched() const noexcept { return touched_.count(); }

 private:
  /// Sorts and deduplicates s's list when entries were appended since (so no feature is read twice).
  void tidy(index_t s);
  /// Lists feature j for the narrow slot s (which becomes wide when its list grows large).
  void append(index_t s, index_t j);
  void make_wide(index_t s);
  /// Makes s wide when its list is a large part of U.
  void widen_if_large(index_t s);

  index_t slots_, local_dim_;
  std::vector<std::vector<index_t>> support_;  // features of each narrow slot
  std::vector<char> wide_, dirty_;
  TouchedSet touched_;  // U
  bool stale_ = false;
  // fold's and add_to's scratch
  std::vector<std::size_t> wide_sources_;
  std::vector<double> dense_weights_;
  std::vector<char> appended_;  // narrow pivots whose lists grew
};

}  // namespace adasketch::detail
