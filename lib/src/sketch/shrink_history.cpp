#include "shrink_history.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>

#include "adasketch/error.hpp"
#include "prefetch_row.hpp"

namespace adasketch::detail {

namespace {

// How much of a block is requested ahead: its first cache lines, after which the hardware's own
// stream prefetch follows (the whole block would cost as many instructions as its product when it
// is already in cache, as the recent blocks are).
constexpr index_t kPrefetchDoubles = 64;

// acc[0..n) = Σ_{c < width} z_c·blk[c·n .. c·n + n): a block's columns (P[:, c], q[c]) times the
// column z, four columns a pass (contiguous updates, a quarter of the accumulator's loads and
// stores). Only the columns of z's non-zero entries are read: a column behind the current epoch was
// written at one row or a few in its epoch (a rare feature's at one), so that its first block, out
// of cache, costs a few cache lines instead of all of them. Their list comes from a bit mask (vector
// compares, then one step a set bit) rather than a compare and store an entry. The step's hot loop:
// built for AVX-512 and AVX2 as well where the compiler can, the processor picking one at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(ADASKETCH_SANITIZE_BUILD)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void apply_block(const double* blk, index_t n, index_t width, const double* z, double* acc, index_t* nonzero) {
  index_t m = 0;
  if (width <= 64) {
    std::uint64_t mask = 0;
    for (index_t c = 0; c < width; ++c) mask |= static_cast<std::uint64_t>(z[c] != 0.0) << c;
    for (; mask != 0; mask &= mask - 1) nonzero[m++] = std::countr_zero(mask);
  } else {
    for (index_t c = 0; c < width; ++c) {
      nonzero[m] = c;
      m += z[c] != 0.0 ? 1 : 0;
    }
  }
  if (m == 0) {
    for (index_t r = 0; r < n; ++r) acc[r] = 0.0;
    return;
  }
  // The first pass sets acc (0 + x = x), so that it is not cleared first (a call to memset).
  index_t k = m >= 4 ? 4 : 1;
  if (m >= 4) {
    const double z0 = z[nonzero[0]], z1 = z[nonzero[1]], z2 = z[nonzero[2]], z3 = z[nonzero[3]];
    const double* c0 = blk + nonzero[0] * n;
    const double* c1 = blk + nonzero[1] * n;
    const double* c2 = blk + nonzero[2] * n;
    const double* c3 = blk + nonzero[3] * n;
    for (index_t r = 0; r < n; ++r) acc[r] = (z0 * c0[r] + z1 * c1[r]) + (z2 * c2[r] + z3 * c3[r]);
  } else {
    const double zc = z[nonzero[0]];
    const double* col = blk + nonzero[0] * n;
    for (index_t r = 0; r < n; ++r) acc[r] = zc * col[r];
  }
  for (; k + 4 <= m; k += 4) {
    const index_t a = nonzero[k], b = nonzero[k + 1], c = nonzero[k + 2], d = nonzero[k + 3];
    const double z0 = z[a], z1 = z[b], z2 = z[c], z3 = z[d];
    const double* c0 = blk + a * n;
    const double* c1 = blk + b * n;
    const double* c2 = blk + c * n;
    const double* c3 = blk + d * n;
    for (index_t r = 0; r < n; ++r) acc[r] += (z0 * c0[r] + z1 * c1[r]) + (z2 * c2[r] + z3 * c3[r]);
  }
  for (; k < m; ++k) {
    const double zc = z[nonzero[k]];
    const double* col = blk + nonzero[k] * n;
    for (index_t r = 0; r < n; ++r) acc[r] += zc * col[r];
  }
}

}  // namespace

ShrinkHistory::ShrinkHistory(index_t rows, index_t kept, index_t capacity)
    : rows_(rows),
      kept_(kept),
      block_size_(sz((kept + 1) * rows)),
      capacity_(capacity),
      lane_size_(sz(std::max(rows, kept + 1))),
      lanes_(2 * kBatch * lane_size_, 0.0),
      nonzero_(sz(rows), 0),
      product_(block_size_, 0.0) {
  ADASKETCH_REQUIRE(kept >= 1 && kept <= rows, "kept = " + number_text(kept) + ", rows = " + number_text(rows));
  ADASKETCH_REQUIRE(capacity >= 1, "capacity = " + number_text(capacity));
  // Level i holds one block for every 2^i transitions.
  for (index_t n = capacity; n > 0; n /= 2) levels_.emplace_back(sz(n) * block_size_);
  // A tier t is used by a path that ascends past 2^(kTierBits·t) ≤ capacity.
  for (index_t t = 1; kTierBits * t < static_cast<index_t>(levels_.size()); ++t)
    tiers_.emplace_back(sz(capacity >> (kTierBits * (t - 1))) * block_size_);
  const std::size_t prefix_levels = levels_.size() + 1;  // h ≤ bit_width(capacity)
  prefixes_.assign(prefix_levels * block_size_, 0.0);
  prefix_at_.assign(prefix_levels, nullptr);
  prefix_generation_.assign(prefix_levels, 0);
  prefix_position_.assign(prefix_levels, 0);
}

const double* ShrinkHistory::prefix(int h) const {
  const auto level = static_cast<std::size_t>(h);
  const index_t position = count_ >> kPrefixLowBits;
  if (prefix_generation_[level] == generation_ && prefix_position_[level] == position) return prefix_at_[level];
  // From q, the block of the highest set bit b of the position between (q to q + 2^b), then the
  // rest: prefix(b) (Fenwick's descent, its products formed once for the columns that take it).
  const index_t q = count_ & ~((index_t{1} << h) - 1), p = prefix_end();
  const auto b = static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(p - q))) - 1;
  const double* first = block(b, q >> b);
  const double* result = first;
  if (q + (index_t{1} << b) != p) {
    double* out = prefixes_.data() + level * block_size_;
    combine(first, prefix(static_cast<int>(b)), out);
    result = out;
  }
  prefix_at_[level] = result;
  prefix_generation_[level] = generation_;
  prefix_position_[level] = position;
  return result;
}

void ShrinkHistory::restart(index_t epoch) {
  changed();
  base_ = epoch;
  count_ = 0;
  sweeping_ = false;
}

void ShrinkHistory::begin_sweep() {
  changed();
  // Block p becomes T_E ⋯ T_{base+p+1} (the map from epoch base + p to E), from the last down:
  // product_p = product_{p+1} ∘ T_{base+p+1}.
  for (index_t p = count_ - 2; p >= 0; --p) {
    combine(block(0, p), block(0, p + 1), product_.data());
    std::copy(product_.begin(), product_.end(), block(0, p));
  }
  sweeping_ = true;
}

void ShrinkHistory::sweep_advance(double* z, double& w, index_t e) const {
  ADASKETCH_REQUIRE(sweeping_, "sweep_advance() outside a sweep");
  ADASKETCH_REQUIRE(e >= base_ && e <= epoch(), "epoch " + number_text(e) + " is outside the history [" +
                                                      number_text(base_) + ", " + number_text(epoch()) + "]");
  if (e == epoch()) return;
  // The column may be non-zero on every row (written in its epoch): all R columns of the block.
  double* acc = lanes_.data();
  apply_block(block(0, e - base_), kept_ + 1, rows_, z, acc, nonzero_.data());
  w += acc[kept_];
  std::copy_n(acc, kept_, z);
  std::fill(z + kept_, z + rows_, 0.0);
}

void ShrinkHistory::push(std::span<const double> s, std::span<const double> q) {
  ADASKETCH_REQUIRE(s.size() >= sz(kept_ * rows_) && q.size() >= sz(rows_), "a transition needs kept·R + R entries");
  ADASKETCH_REQUIRE(!full(), "the history is full (" + number_text(capacity_) + " transitions)");
  ADASKETCH_REQUIRE(!sweeping_, "push() during a sweep");
  // Stored by columns, each (S[:, c], q[c]): a column's kept + 1 entries are one contiguous update.
  double* out = block(0, count_);
  const index_t k = kept_;
  for (index_t c = 0; c < rows_; ++c) {
    for (index_t r = 0; r < k; ++r) out[c * (k + 1) + r] = s[sz(r * rows_ + c)];
    out[c * (k + 1) + k] = q[sz(c)];
  }
  ++count_;
  complete(count_);
}

void ShrinkHistory::complete(index_t n) {
  // Transition n completes the block of 2^i transitions ending at it for every 2^i | n.
  for (std::size_t level = 1; level < levels_.size() && n % (index_t{1} << level) == 0; ++level) {
    const index_t b = (n >> level) - 1;  // its index on this level; children 2b and 2b + 1 below
    combine(block(level - 1, 2 * b), block(level - 1, 2 * b + 1), block(level, b));
  }
  // Transition n completes tier t's chunk ending at it for every 2^(kTierBits·t) | n: its suffixes,
  // from the last piece down (a piece: the aligned block of 2^(kTierBits·(t − 1)) transitions).
  for (std::size_t t = 1; t <= tiers_.size() && n % (index_t{1} << (kTierBits * t)) == 0; ++t) {
    const int low = kTierBits * (static_cast<int>(t) - 1);
    const index_t last = (n >> low) - 1, first = last + 1 - (index_t{1} << kTierBits);
    const auto tier = static_cast<int>(t);
    std::copy_n(block(static_cast<std::size_t>(low), last), block_size_, suffix(tier, last));
    for (index_t i = last - 1; i >= first; --i)
      combine(block(static_cast<std::size_t>(low), i), suffix(tier, i + 1), suffix(tier, i));
  }
}

void ShrinkHistory::rebuild() {
  ADASKETCH_REQUIRE(count_ >= 0 && count_ <= capacity_, "count = " + number_text(count_) + " of " +
                                                            number_text(capacity_) + " transitions");
  for (index_t n = 1; n <= count_; ++n) complete(n);
  changed();
}

void ShrinkHistory::combine(const double* low, const double* high, double* out) const {
  // [P_H 0; q_Hᵀ 1][P_L 0; q_Lᵀ 1] = [P_H P_L 0; q_Lᵀ + q_Hᵀ P_L 1]. By columns (a block's column c
  // is (P[:, c], q[c])): out_c = H applied to L's column c, plus (0, q_L[c]); P_L's rows from kept
  // on are zero, so only the first kept columns of H take part.
  const index_t n = kept_ + 1;
  for (index_t c = 0; c < rows_; ++c) {
    apply_block(high, n, kept_, low + c * n, out + c * n, nonzero_.data());
    out[c * n + kept_] += low[c * n + kept_];
  }
}

void ShrinkHistory::advance(double* z, double& w, index_t e) const {
  double* const zs[] = {z};
  double* const ws[] = {&w};
  const index_t es[] = {e};
  advance_batch(zs, ws, es);
}

void ShrinkHistory::advance_batch(std::span<double* const> z, std::span<double* const> w,
                                  std::span<const index_t> e) const {
  const std::size_t n = z.size();
  ADASKETCH_REQUIRE(n <= kBatch && w.size() == n && e.size() == n,
                    number_text(static_cast<index_t>(n)) + " columns, at most " +
                        number_text(static_cast<index_t>(kBatch)));
  ADASKETCH_REQUIRE(!sweeping_, "advance() during a sweep");
  // order[head, live): the columns still short of epoch(), by their position (epoch − base).
  std::array<index_t, kBatch> pos{}, width{};
  std::array<std::size_t, kBatch> order{};
  // Column i's entries between blocks: z[i] itself before the first, then its two lanes in turn.
  std::array<const double*, kBatch> current{};
  const auto lane = [&](std::size_t i, std::size_t which) { return lanes_.data() + (2 * i + which) * lane_size_; };
  std::size_t live = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ADASKETCH_REQUIRE(e[i] >= base_ && e[i] <= epoch(), "epoch " + number_text(e[i]) + " is outside the history [" +
                                                            number_text(base_) + ", " + number_text(epoch()) + "]");
    if (e[i] == epoch()) continue;
    pos[i] = e[i] - base_;
    current[i] = z[i];
    width[i] = rows_;  // written in its epoch: non-zero on any row
    std::size_t at = live++;
    for (; at > 0 && pos[order[at - 1]] > pos[i]; --at) order[at] = order[at - 1];
    order[at] = i;
  }
  // The first block of each path is the one furthest back, out of cache for a rare feature: all are
  // requested before the first is used, so that their misses overlap.
  for (std::size_t k = 0; k < live; ++k)
    if (k == 0 || pos[order[k]] != pos[order[k - 1]])
      prefetch_row(step_at(pos[order[k]]).first, std::min(kPrefetchDoubles, rows_ * (kept_ + 1)));
  std::size_t head = 0;
  while (head < live) {
    // The columns at the smallest position take its block, one after another; then they move on
    // together, past the columns still behind them.
    const index_t p = pos[order[head]];
    const auto [blk, next] = step_at(p);
    std::size_t end = head;
    while (end < live && pos[order[end]] == p) ++end;
    const index_t after = end < live ? std::min(next, pos[order[end]]) : next;
    if (after < count_) prefetch_row(step_at(after).first, std::min(kPrefetchDoubles, kept_ * (kept_ + 1)));
    for (std::size_t k = head; k < end; ++k) {
      const std::size_t i = order[k];
      double* out = lane(i, current[i] == lane(i, 0) ? 1 : 0);
      apply_block(blk, kept_ + 1, width[i], current[i], out, nonzero_.data());  // (P z, qᵀz)
      *w[i] += out[kept_];
      current[i] = out;
      width[i] = kept_;
      pos[i] = next;
    }
    if (next == count_) {
      for (std::size_t k = head; k < end; ++k) {  // done: z ← P z, its rows from kept on zero
        const std::size_t i = order[k];
        std::copy_n(current[i], kept_, z[i]);
        std::fill(z[i] + kept_, z[i] + rows_, 0.0);
      }
      head = end;
      continue;
    }
    std::size_t behind = end;  // the columns before `next` go ahead of the group
    while (behind < live && pos[order[behind]] < next) ++behind;
    std::rotate(order.begin() + static_cast<std::ptrdiff_t>(head), order.begin() + static_cast<std::ptrdiff_t>(end),
                order.begin() + static_cast<std::ptrdiff_t>(behind));
  }
}

}  // namespace adasketch::detail
