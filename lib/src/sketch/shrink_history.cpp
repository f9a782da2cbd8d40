#include "shrink_history.hpp"

#include <algorithm>
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
// stores). The step's hot loop: built for AVX-512 and AVX2 as well where the compiler can, the
// processor picking one at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(ADASKETCH_SANITIZE_BUILD)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void apply_block(const double* blk, index_t n, index_t width, const double* z, double* acc) {
  for (index_t r = 0; r < n; ++r) acc[r] = 0.0;
  index_t c = 0;
  for (; c + 4 <= width; c += 4) {
    const double z0 = z[c], z1 = z[c + 1], z2 = z[c + 2], z3 = z[c + 3];
    const double* c0 = blk + c * n;
    const double* c1 = c0 + n;
    const double* c2 = c1 + n;
    const double* c3 = c2 + n;
    for (index_t r = 0; r < n; ++r) acc[r] += (z0 * c0[r] + z1 * c1[r]) + (z2 * c2[r] + z3 * c3[r]);
  }
  for (; c < width; ++c) {
    const double zc = z[c];
    const double* col = blk + c * n;
    for (index_t r = 0; r < n; ++r) acc[r] += zc * col[r];
  }
}

}  // namespace

ShrinkHistory::ShrinkHistory(index_t rows, index_t kept, index_t capacity)
    : rows_(rows),
      kept_(kept),
      block_size_(sz((kept + 1) * rows)),
      capacity_(capacity),
      scratch_(sz(kept + 1), 0.0),
      product_(block_size_, 0.0) {
  ADASKETCH_REQUIRE(kept >= 1 && kept <= rows, "kept = " + number_text(kept) + ", rows = " + number_text(rows));
  ADASKETCH_REQUIRE(capacity >= 1, "capacity = " + number_text(capacity));
  // Level i holds one block for every 2^i transitions.
  for (index_t n = capacity; n > 0; n /= 2) levels_.emplace_back(sz(n) * block_size_);
}

void ShrinkHistory::restart(index_t epoch) {
  base_ = epoch;
  count_ = 0;
  sweeping_ = false;
}

void ShrinkHistory::begin_sweep() {
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
  double* acc = scratch_.data();
  apply_block(block(0, e - base_), kept_ + 1, rows_, z, acc);
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
}

void ShrinkHistory::rebuild() {
  ADASKETCH_REQUIRE(count_ >= 0 && count_ <= capacity_, "count = " + number_text(count_) + " of " +
                                                            number_text(capacity_) + " transitions");
  for (index_t n = 1; n <= count_; ++n) complete(n);
}

void ShrinkHistory::combine(const double* low, const double* high, double* out) const {
  // [P_H 0; q_Hᵀ 1][P_L 0; q_Lᵀ 1] = [P_H P_L 0; q_Lᵀ + q_Hᵀ P_L 1]. By columns (a block's column c
  // is (P[:, c], q[c])): out_c = Σ_{i<kept} P_L[i, c]·H_i + (0, q_L[c]). P_L's rows from kept on are
  // zero, so only the first kept columns of H take part.
  const index_t R = rows_, k = kept_, n = k + 1;
  for (index_t c = 0; c < R; ++c) {
    const double* lc = low + c * n;
    double* oc = out + c * n;
    std::fill(oc, oc + k, 0.0);
    oc[k] = lc[k];
    for (index_t i = 0; i < k; ++i) {
      const double f = lc[i];
      const double* hi = high + i * n;
      for (index_t r = 0; r < n; ++r) oc[r] += f * hi[r];
    }
  }
}

void ShrinkHistory::prefetch_path(index_t e) const {
  if (e < base_ || e >= epoch() || sweeping_) return;
  // The first block: the one furthest back (the later ones are shared with the other columns).
  for_each_block(e, [&](const double* blk) {
    prefetch_row(blk, std::min(kPrefetchDoubles, rows_ * (kept_ + 1)));
    return false;
  });
}

void ShrinkHistory::advance(double* z, double& w, index_t e) const {
  ADASKETCH_REQUIRE(e >= base_ && e <= epoch(), "epoch " + number_text(e) + " is outside the history [" +
                                                      number_text(base_) + ", " + number_text(epoch()) + "]");
  ADASKETCH_REQUIRE(!sweeping_, "advance() during a sweep");
  const index_t R = rows_, k = kept_, n = k + 1;
  double* acc = scratch_.data();  // (P z, qᵀz): kept + 1 entries
  // Each block's successor is requested while the block is applied: a rare feature's path lies far
  // back in the history, out of cache.
  const double* path[2 * 64];
  std::size_t steps = 0;
  for_each_block(e, [&](const double* blk) {
    path[steps++] = blk;
    return true;
  });
  // A column written in its epoch may be non-zero on every row; after one transition only on the
  // first kept.
  index_t width = R;
  for (std::size_t i = 0; i < steps; ++i) {
    const double* blk = path[i];
    if (i + 1 < steps) prefetch_row(path[i + 1], std::min(kPrefetchDoubles, k * n));
    apply_block(blk, n, width, z, acc);
    w += acc[k];
    std::copy_n(acc, k, z);
    std::fill(z + k, z + width, 0.0);
    width = k;
  }
}

}  // namespace adasketch::detail
