#pragma once
// The shrinks a sparse-form FD sketch has not yet applied to every column (internal; docs/design.md
// §3, "Deferred shrinks"). Shrink t maps every column b of B (a feature's R entries) by one matrix,
// b ← S_t b (S_t: kept × R; the rows from kept on become zero), and the learner's fold in the epoch
// before it adds q_tᵀ b to the feature's deferred weight (q_t ∈ R^R, the coefficients c folded then).
// On (b, w) that is the map T_t = [S_t 0; q_tᵀ 1]. A column last brought up to date at epoch e reaches
// the current epoch E through T_E ⋯ T_{e+1}. The history keeps the products over aligned ranges of
// 2^i transitions, as a Fenwick tree does, their suffixes to coarser boundaries (tiers) and the
// current epoch's prefixes, so that takes a bounded number of small products (design.md §6, "Cost"),
// each O(kept·R), whatever the number of features: the cost of a sparse row is its own features',
// never the features met so far.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "adasketch/linalg/page_buffer.hpp"
#include "adasketch/types.hpp"

namespace adasketch::detail {

class ShrinkHistory {
 public:
  /// rows: R, the entries of a column; kept: the rows a shrink leaves non-zero (1 ≤ kept ≤ R);
  /// capacity: the transitions it holds before it is full (≥ 1; its storage is allocated up front,
  /// so that a push never allocates).
  ShrinkHistory(index_t rows, index_t kept, index_t capacity);

  /// The epoch the history starts at: columns at an earlier epoch cannot be brought up to date.
  index_t base() const noexcept { return base_; }
  /// The current epoch E (the shrinks so far).
  index_t epoch() const noexcept { return base_ + count_; }
  index_t capacity() const noexcept { return capacity_; }
  /// Whether push() needs restart() first.
  bool full() const noexcept { return count_ == capacity_; }

  /// Appends transition E + 1: s is S (kept × R, row-major), q the folded coefficients (R entries).
  void push(std::span<const double> s, std::span<const double> q);
  /// Brings a column z (R entries) and its deferred weight w from epoch e (base() ≤ e ≤ epoch()) to
  /// epoch(); entries of z from kept on are then zero.
  void advance(double* z, double& w, index_t e) const;
  /// The most columns advance_batch() takes at once.
  static constexpr std::size_t kBatch = 64;
  /// advance(z[i], *w[i], e[i]) for up to kBatch distinct columns, with the same results bit for
  /// bit: the columns whose paths meet at a block take it one after another while it is in cache (a
  /// row's paths share most of their blocks, its rare features' first blocks excepted).
  void advance_batch(std::span<double* const> z, std::span<double* const> w, std::span<const index_t> e) const;
  /// Suffix tier t (t ≥ 1) maps a position aligned to 2^(kTierBits·(t − 1)) to the next multiple of
  /// 2^(kTierBits·t): a path's ascent from an old position takes one product a tier instead of one a
  /// level, the first of them (the only one out of cache for a rare feature) and then coarser ones.
  static constexpr int kTierBits = 6;
  /// Forgets every transition: the caller brought every column up to date (base() = epoch()).
  void restart(index_t epoch);
  /// Starts a sweep that brings every column to epoch() before a restart(): replaces the transitions
  /// by their products up to epoch() (O(count·kept²·R) once), after which sweep_advance() takes one
  /// block product a column, whatever its gap. Until restart(), advance() and push() are refused.
  void begin_sweep();
  /// advance() during a sweep.
  void sweep_advance(double* z, double& w, index_t e) const;

  /// For a checkpoint: the base, the count and the transitions themselves (capacity × (kept + 1)·R
  /// doubles, the first count in use, each by columns (S[:, c], q[c])). After a reader filled them, rebuild() recomputes the products.
  std::int64_t& base_field() noexcept { return base_; }
  std::int64_t& count_field() noexcept { return count_; }
  std::span<double> transitions() noexcept { return levels_[0]; }
  void rebuild();

 private:
  /// The product over transitions [b·2^level + 1, (b + 1)·2^level] after base, by columns: for each
  /// c < R, (P[:, c], q[c]) (kept + 1 doubles).
  const double* block(std::size_t level, index_t b) const {
    return levels_[level].data() + static_cast<std::size_t>(b) * block_size_;
  }
  double* block(std::size_t level, index_t b) { return levels_[level].data() + static_cast<std::size_t>(b) * block_size_; }
  /// The level of the block a column at position pos (epoch base + pos < epoch()) takes next: the
  /// largest aligned block that starts there and ends at or before epoch() (a path from e to epoch()
  /// takes at most two a level).
  std::size_t level_at(index_t pos) const {
    // The largest level ≤ the top one with 2^level dividing pos and pos + 2^level ≤ epoch() − base.
    const auto p = static_cast<std::uint64_t>(pos);
    const auto aligned = p == 0 ? levels_.size() - 1 : static_cast<std::size_t>(std::countr_zero(p));
    const auto fits = static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(count_ - pos))) - 1;
    return std::min({aligned, fits, levels_.size() - 1});
  }
  /// The product a column at position pos (< epoch() − base) takes next, and the position it
  /// reaches: when pos is the current position with its low h bits cleared (where a path's ascent
  /// ends), the way down to the current position with its low kPrefixLowBits bits cleared at once
  /// (prefix(h)); else a tier's suffix when it stays below that point; else the aligned block of
  /// level_at().
  std::pair<const double*, index_t> step_at(index_t pos) const {
    const auto h = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(pos ^ count_)));  // agree from bit h on
    if ((pos & ((index_t{1} << h) - 1)) == 0 && h > kPrefixLowBits) return {prefix(h), prefix_end()};
    const int t = std::countr_zero(static_cast<std::uint64_t>(pos)) / kTierBits + 1;
    if (kTierBits * t < h) {  // the ascent ends at the multiple of 2^(h − 1) above pos
      const int low = kTierBits * (t - 1);
      return {suffix(t, pos >> low), ((pos >> (kTierBits * t)) + 1) << (kTierBits * t)};
    }
    const std::size_t level = level_at(pos);
    return {block(level, pos >> level), pos + (index_t{1} << level)};
  }
  const double* suffix(int tier, index_t i) const {
    return tiers_[static_cast<std::size_t>(tier - 1)].data() + static_cast<std::size_t>(i) * block_size_;
  }
  double* suffix(int tier, index_t i) {
    return tiers_[static_cast<std::size_t>(tier - 1)].data() + static_cast<std::size_t>(i) * block_size_;
  }
  /// The prefixes stop at the current position with its low kPrefixLowBits bits cleared (the last
  /// few Fenwick blocks of the way down are taken one by one): they change once every
  /// 2^kPrefixLowBits shrinks, not at each (plain FD shrinks at every row).
  static constexpr int kPrefixLowBits = 3;
  /// Where every prefix ends: the current position with its low kPrefixLowBits bits cleared.
  index_t prefix_end() const noexcept { return count_ & ~((index_t{1} << kPrefixLowBits) - 1); }
  /// T_{p} ⋯ T_{q+1}, where q and p are the current position with its low h and low kPrefixLowBits
  /// bits cleared (h > kPrefixLowBits, q < p): the aligned blocks of the set bits of the position
  /// between, one product per such bit, formed when a column first needs it after they changed (a
  /// function of the blocks: a rebuilt copy forms it alike).
  const double* prefix(int h) const;
  /// out = H ∘ L (L first), each a block.
  void combine(const double* low, const double* high, double* out) const;
  /// The products of the blocks, and the tiers' suffixes, that transition n (1-based) completes.
  void complete(index_t n);
  /// The blocks were replaced (restart, rebuild, sweep): the prefixes formed so far are stale.
  void changed() noexcept { ++generation_; }

  index_t rows_, kept_;
  std::size_t block_size_;
  index_t capacity_ = 0, base_ = 0, count_ = 0;
  bool sweeping_ = false;  // level 0 holds the products up to epoch() (begin_sweep)
  std::vector<PageBuffer> levels_;  // levels_[i]: the complete blocks of 2^i transitions
  std::vector<PageBuffer> tiers_;   // tiers_[t − 1]: suffix(t, i) for i < capacity / 2^(kTierBits·(t − 1))
  std::size_t lane_size_;
  mutable std::vector<double> lanes_;  // advance_batch: two lanes a column (max(R, kept + 1) each)
  mutable std::vector<index_t> nonzero_;  // apply_block: the positions of a column's non-zero entries
  std::vector<double> product_;  // one block: begin_sweep's running product
  std::uint64_t generation_ = 1;  // counts the changes of the blocks (restart, rebuild, sweep)
  mutable std::vector<double> prefixes_;  // prefix(h)'s storage, a block for each h
  mutable std::vector<const double*> prefix_at_;  // prefix(h), valid while it was formed at
  mutable std::vector<std::uint64_t> prefix_generation_;  // this generation_
  mutable std::vector<index_t> prefix_position_;  // and position >> kPrefixLowBits
};

}  // namespace adasketch::detail
