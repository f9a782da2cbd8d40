// The sparse form of FrequentDirections (see frequent_directions.hpp): deferred shrinks.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "adasketch/error.hpp"
#include "frequent_directions_sparse.hpp"
#include "prefetch_row.hpp"

namespace adasketch {

namespace {

// The history holds d/(kept + 1) shrinks (d the sketch's dimension: as many doubles as the columns
// of all ranks), at least 64 and at most 128 MiB of transitions (as much again for their products;
// pages are only backed once written). When it is full every written column is brought up to date,
// O(R·kept·log) each: with |U_p| ≤ d written local features that is at most about kept + 1 column
// updates per shrink, until the cap; past it (d·R beyond 2²⁴) the sweep every capacity shrinks is what
// grows with the features met.
constexpr index_t kMinHistory = 64;
constexpr std::size_t kMaxHistoryDoubles = std::size_t{1} << 24;

index_t history_capacity(index_t rows, index_t kept, index_t dim) {
  const auto block = sz((kept + 1) * rows);
  const auto most = static_cast<index_t>(std::max<std::size_t>(1, kMaxHistoryDoubles / block));
  return std::min(most, std::max(kMinHistory, dim / (kept + 1)));
}

// Calls f(j, a_j) for the local entries of a (every local feature for a dense row).
template <class F>
void for_each_entry(const LocalRow& a, F&& f) {
  const auto val = a.values();
  if (a.is_dense()) {
    for (std::size_t j = 0; j < val.size(); ++j) f(static_cast<index_t>(j), val[j]);
    return;
  }
  const auto idx = a.indices();
  for (std::size_t n = 0; n < idx.size(); ++n) f(idx[n], val[n]);
}

}  // namespace

FrequentDirections::SparseState::SparseState(index_t rows, index_t kept, index_t local_dim, index_t dim)
    : history(rows, std::max<index_t>(kept, 1), history_capacity(rows, std::max<index_t>(kept, 1), dim)),
      feature(sz(2 * local_dim)),
      written_set(local_dim),
      pending(sz(rows), 0.0),
      shrink(sz(std::max<index_t>(kept, 1) * rows), 0.0),
      column(sz(rows), 0.0) {}

void FrequentDirections::write_row_sparse(const LocalRow& a, index_t k) {
  refresh_sparse();
  const index_t R = rows();
  auto y = stored();
  for_each_entry(a, [&](index_t j, double v) {
    bring_up_to_date(j);
    y[sz(j * R + k)] = v;
  });
}

void FrequentDirections::refresh_sparse() const {
  SparseState& s = *sparse_;
  if (!s.stale) return;
  // A checkpoint reader filled the marks, the deferred weights and the history's transitions.
  s.written_set.rebuild(s.feature, 2);
  s.written = s.written_set.count();
  const index_t base = s.history.base(), count = s.history.epoch() - base;
  if (!(base >= 0 && count >= 0 && count <= s.history.capacity() && base + count == shrinks_))
    throw InvalidArgument("fd sketch: a history of " + number_text(count) + " shrinks from epoch " + number_text(base) +
                          " for a sketch at epoch " + number_text(shrinks_) + ": the restored state is corrupt");
  s.written_set.for_each([&](index_t j) {
    const double m = s.mark(j);
    if (!(m >= static_cast<double>(base + 1) && m <= static_cast<double>(shrinks_ + 1) && m == std::floor(m)))
      throw InvalidArgument("fd sketch: feature " + number_text(j) + " is at epoch " + number_text(m - 1) +
                            ", outside the history [" + number_text(base) + ", " + number_text(shrinks_) +
                            "]: the restored state is corrupt");
  });
  s.history.rebuild();
  s.stale = false;
}

void FrequentDirections::bring_up_to_date(index_t j) {
  SparseState& s = *sparse_;
  const index_t e = s.take_current(j, static_cast<double>(shrinks_ + 1));
  if (e >= 0) s.history.advance(stored().data() + j * rows(), s.deferred(j), e);
}

const double* FrequentDirections::current_column(index_t j, double* weight) const {
  const SparseState& s = *sparse_;
  const double* col = stored().data() + j * rows();
  const double m = s.mark(j);
  double w = s.deferred(j);
  if (m != 0.0 && m != static_cast<double>(shrinks_ + 1)) {
    std::copy_n(col, rows(), s.column.data());
    s.history.advance(s.column.data(), w, static_cast<index_t>(m) - 1);
    col = s.column.data();
  }
  if (weight != nullptr) *weight = w;
  return col;
}

void FrequentDirections::shrink_sparse() {
  SparseState& s = *sparse_;
  const index_t R = rows(), kept = options_.ell - 1;
  if (s.history.full()) {  // (before the shrink, so that the columns reach the history's epoch)
    s.history.begin_sweep();
    const double now = static_cast<double>(shrinks_ + 1);
    s.written_set.sweep(
        stored().data(), R,
        [&](index_t j) {
          if (s.mark(j) == now) return;
          s.history.sweep_advance(stored().data() + j * R, s.deferred(j), static_cast<index_t>(s.mark(j)) - 1);
          s.mark(j) = now;
        },
        s.feature.data(), 2);
    s.history.restart(shrinks_);
  }
  const double delta = shrink_rotation();
  // S = diag(scale) Uᵀ on the kept rows: S[i, r] = rotation[r, i].
  for (index_t i = 0; i < kept; ++i)
    for (index_t r = 0; r < R; ++r) s.shrink[sz(i * R + r)] = rotation_[sz(r * R + i)];
  s.history.push(s.shrink, s.pending);  // ℓ = 1: S = 0 (its one row stays zero), B' = 0
  std::fill(s.pending.begin(), s.pending.end(), 0.0);
  // B'B'ᵀ = diag(scale²)·UᵀMU = diag(λ_i − λ_ℓ) on the kept rows (exact in exact arithmetic).
  auto g = gram_mut();
  std::fill(g.begin(), g.end(), 0.0);
  const auto lambda = eigen_.values();
  for (index_t i = 0; i < kept; ++i) g[sz(i * R + i)] = std::max(lambda[sz(i)] - delta, 0.0);
}

void FrequentDirections::fold_coefficients(std::span<double> c, std::span<double> lazy) {
  if (sparse_ == nullptr) return Sketch::fold_coefficients(c, lazy);
  refresh_sparse();
  // Rows from filled() on are zero now; the insertion that follows may write row filled() before
  // the shrink applies q, so those coefficients (which multiply zero rows now) are left out.
  auto& q = sparse_->pending;
  for (index_t i = 0; i < filled_; ++i) q[sz(i)] += c[sz(i)];
  std::fill(c.begin(), c.begin() + rows(), 0.0);
}

void FrequentDirections::prefetch(const LocalRow& a) const noexcept {
  if (sparse_ == nullptr || a.is_dense()) return;
  // The row's marks and columns lie at scattered places: request them all before the first is used,
  // so that their cache misses overlap.
  const index_t R = rows();
  const double* marks = sparse_->feature.data();
  const double* columns = stored().data();
  for (const index_t j : a.indices()) {
    __builtin_prefetch(marks + 2 * j, 1);
    detail::prefetch_row<1>(columns + j * R, R);
  }
}

void FrequentDirections::settle(const LocalRow& a, std::span<double> lazy) {
  if (sparse_ == nullptr) return;
  refresh_sparse();
  SparseState& s = *sparse_;
  prefetch(a);  // (again, when the learner's hint came a step ahead: by now mostly in cache)
  const index_t R = rows();
  // The columns behind the current epoch advance in batches, so that the blocks their paths share
  // are read once a batch (bring_up_to_date's results, bit for bit).
  constexpr std::size_t kBatch = detail::ShrinkHistory::kBatch;
  std::array<double*, kBatch> columns{}, weights{};
  std::array<index_t, kBatch> epochs{};
  std::size_t batched = 0;
  const auto flush = [&] {
    s.history.advance_batch({columns.data(), batched}, {weights.data(), batched}, {epochs.data(), batched});
    batched = 0;
  };
  const double now = static_cast<double>(shrinks_ + 1);
  for_each_entry(a, [&](index_t j, double) {
    const index_t e = s.take_current(j, now);  // (a repeated index finds its column current)
    if (e < 0) return;
    columns[batched] = stored().data() + j * R;
    weights[batched] = &s.deferred(j);
    epochs[batched] = e;
    if (++batched == kBatch) flush();
  });
  if (batched > 0) flush();
  for_each_entry(a, [&](index_t j, double) {
    lazy[sz(j)] += s.deferred(j);
    s.deferred(j) = 0.0;
  });
}

void FrequentDirections::settle_all(std::span<double> lazy) {
  if (sparse_ == nullptr) return;
  refresh_sparse();
  SparseState& s = *sparse_;
  s.written_set.for_each([&](index_t j) {
    bring_up_to_date(j);
    lazy[sz(j)] += s.deferred(j);
    s.deferred(j) = 0.0;
  });
}

double FrequentDirections::local_deferred_dot(const LocalRow& a) const {
  if (sparse_ == nullptr) return 0.0;
  refresh_sparse();
  double sum = 0.0;
  for_each_entry(a, [&](index_t j, double v) {
    double w = 0.0;
    current_column(j, &w);
    sum += v * w;
  });
  return sum;
}

void FrequentDirections::add_local_deferred(std::span<double> out) const {
  if (sparse_ == nullptr) return;
  refresh_sparse();
  sparse_->written_set.for_each([&](index_t j) {
    double w = 0.0;
    current_column(j, &w);
    out[sz(j)] += w;
  });
}

void FrequentDirections::add_local_product(const LocalRow& a, std::span<double> out) const {
  if (sparse_ == nullptr) return Sketch::add_local_product(a, out);
  refresh_sparse();
  const index_t R = rows();
  for_each_entry(a, [&](index_t j, double) { detail::prefetch_row(stored().data() + j * R, R); });
  for_each_entry(a, [&](index_t j, double v) {
    const double* col = current_column(j);
    for (index_t i = 0; i < R; ++i) out[sz(i)] += v * col[i];
  });
}

void FrequentDirections::add_local_transpose_product(std::span<const double> c, std::span<double> out) const {
  if (sparse_ == nullptr) return Sketch::add_local_transpose_product(c, out);
  refresh_sparse();
  const index_t R = rows();
  sparse_->written_set.for_each([&](index_t j) {
    const double* col = current_column(j);
    double v = 0.0;
    for (index_t i = 0; i < R; ++i) v += col[i] * c[sz(i)];
    out[sz(j)] += v;
  });
}

void FrequentDirections::copy_local_block(std::span<double> out) const {
  if (sparse_ == nullptr) return Sketch::copy_local_block(out);
  refresh_sparse();
  ADASKETCH_REQUIRE(static_cast<index_t>(out.size()) >= local_dim() * rows(), "out is too small");
  const index_t R = rows();
  for (index_t j = 0; j < local_dim(); ++j) std::copy_n(current_column(j), R, out.data() + j * R);
}

}  // namespace adasketch
