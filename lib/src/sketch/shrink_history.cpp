#include "shrink_history.hpp"

#include <algorithm>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch::detail {

ShrinkHistory::ShrinkHistory(index_t rows, index_t kept, index_t capacity)
    : rows_(rows), kept_(kept), block_size_(sz((kept + 1) * rows)), capacity_(capacity), scratch_(sz(rows), 0.0) {
  ADASKETCH_REQUIRE(kept >= 1 && kept <= rows, "kept = " + number_text(kept) + ", rows = " + number_text(rows));
  ADASKETCH_REQUIRE(capacity >= 1, "capacity = " + number_text(capacity));
  // Level i holds one block for every 2^i transitions.
  for (index_t n = capacity; n > 0; n /= 2) levels_.emplace_back(sz(n) * block_size_);
}

void ShrinkHistory::restart(index_t epoch) {
  base_ = epoch;
  count_ = 0;
}

void ShrinkHistory::push(std::span<const double> s, std::span<const double> q) {
  ADASKETCH_REQUIRE(s.size() >= sz(kept_ * rows_) && q.size() >= sz(rows_), "a transition needs kept·R + R entries");
  ADASKETCH_REQUIRE(!full(), "the history is full (" + number_text(capacity_) + " transitions)");
  double* out = block(0, count_);
  std::copy_n(s.data(), kept_ * rows_, out);
  std::copy_n(q.data(), rows_, out + kept_ * rows_);
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
  // [P_H 0; q_Hᵀ 1][P_L 0; q_Lᵀ 1] = [P_H P_L 0; q_Lᵀ + q_Hᵀ P_L 1]. P_L's rows from kept on are zero,
  // so only the first kept columns of P_H and q_H take part.
  const index_t R = rows_, k = kept_;
  const double* pl = low;
  const double* ql = low + k * R;
  const double* ph = high;
  const double* qh = high + k * R;
  double* po = out;
  double* qo = out + k * R;
  std::fill(po, po + k * R, 0.0);
  std::copy(ql, ql + R, qo);
  for (index_t i = 0; i < k; ++i) {
    const double* row = pl + i * R;  // row i of P_L
    for (index_t r = 0; r < k; ++r) {
      const double h = ph[r * R + i];
      if (h != 0.0)
        for (index_t c = 0; c < R; ++c) po[r * R + c] += h * row[c];
    }
    const double g = qh[i];
    if (g != 0.0)
      for (index_t c = 0; c < R; ++c) qo[c] += g * row[c];
  }
}

void ShrinkHistory::advance(double* z, double& w, index_t e) const {
  ADASKETCH_REQUIRE(e >= base_ && e <= epoch(), "epoch " + number_text(e) + " is outside the history [" +
                                                      number_text(base_) + ", " + number_text(epoch()) + "]");
  const index_t R = rows_, k = kept_;
  // A column written in its epoch may be non-zero on every row; after one transition only on the
  // first kept.
  index_t width = R;
  for (index_t pos = e - base_; pos < count_;) {
    std::size_t level = 0;
    while (level + 1 < levels_.size() && pos % (index_t{1} << (level + 1)) == 0 &&
           pos + (index_t{1} << (level + 1)) <= count_)
      ++level;
    const double* blk = block(level, pos >> level);
    const double* q = blk + k * R;
    double acc = 0.0;
    for (index_t c = 0; c < width; ++c) acc += q[c] * z[c];
    w += acc;
    for (index_t r = 0; r < k; ++r) {
      const double* p = blk + r * R;
      double v = 0.0;
      for (index_t c = 0; c < width; ++c) v += p[c] * z[c];
      scratch_[sz(r)] = v;
    }
    std::copy_n(scratch_.data(), k, z);
    std::fill(z + k, z + width, 0.0);
    width = k;
    pos += index_t{1} << level;
  }
}

}  // namespace adasketch::detail
