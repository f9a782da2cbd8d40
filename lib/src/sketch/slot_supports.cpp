#include "slot_supports.hpp"

#include <algorithm>

namespace adasketch::detail {

namespace {

// A narrow list longer than U / kWideFraction makes its slot wide: from then on its operations
// share the sweeps of U with the other wide slots instead of walking their own lists.
constexpr index_t kWideFraction = 4;

}  // namespace

SlotSupports::SlotSupports(index_t slots, index_t local_dim)
    : slots_(slots),
      local_dim_(local_dim),
      support_(sz(slots)),
      wide_(sz(slots), 0),
      dirty_(sz(slots), 0),
      touched_(local_dim),
      appended_(sz(slots), 0) {
  // A narrow list holds at most about U / kWideFraction features: reserved once (untouched memory
  // until used), so that the steps do not allocate.
  for (auto& list : support_) list.reserve(sz(local_dim / kWideFraction + 2));
  wide_sources_.reserve(sz(slots));
  dense_weights_.reserve(sz(slots * slots));
}

void SlotSupports::rebuild_if_stale(std::span<const double> z) {
  if (stale_) rebuild(z);
}

void SlotSupports::make_wide(index_t s) {
  wide_[sz(s)] = 1;
  dirty_[sz(s)] = 0;
  support_[sz(s)].clear();
}

void SlotSupports::widen_if_large(index_t s) {
  if (!wide_[sz(s)] && static_cast<index_t>(support_[sz(s)].size()) * kWideFraction > touched()) make_wide(s);
}

void SlotSupports::append(index_t s, index_t j) {
  auto& list = support_[sz(s)];
  list.push_back(j);
  dirty_[sz(s)] = 1;
  appended_[sz(s)] = 1;
  widen_if_large(s);  // keeps the list within its reserved size
}

void SlotSupports::tidy(index_t s) {
  if (!dirty_[sz(s)]) return;
  auto& list = support_[sz(s)];
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  dirty_[sz(s)] = 0;
}

void SlotSupports::write(std::span<double> z, index_t s, const LocalRow& a) {
  const auto values = a.values();
  if (a.is_dense()) {
    for (index_t j = 0; j < local_dim_; ++j) z[sz(j * slots_ + s)] = values[sz(j)];
    touched_.touch_all();
    make_wide(s);
    return;
  }
  const auto indices = a.indices();
  for (std::size_t k = 0; k < indices.size(); ++k) {
    z[sz(indices[k] * slots_ + s)] = values[k];
    touched_.touch(indices[k]);
  }
  dirty_[sz(s)] = 0;
  wide_[sz(s)] = 0;
  if (static_cast<index_t>(indices.size()) * kWideFraction > touched()) {
    make_wide(s);
    return;
  }
  support_[sz(s)].assign(indices.begin(), indices.end());  // ascending, distinct
}

void SlotSupports::fold(std::span<double> z, std::span<const index_t> pivots, std::span<const index_t> sources,
                        std::span<const double> w) {
  const std::size_t P = pivots.size(), R = sz(slots_);
  // Each source's weights as a full row over the slots (zero off the pivots), so that a feature's
  // update is one contiguous multiply-add over its row of Z.
  auto& dense_w = dense_weights_;
  dense_w.assign(sources.size() * R, 0.0);
  for (std::size_t e = 0; e < sources.size(); ++e)
    for (std::size_t p = 0; p < P; ++p) dense_w[e * R + sz(pivots[p])] = w[e * P + p];
  auto& wide_sources = wide_sources_;
  wide_sources.clear();
  std::fill(appended_.begin(), appended_.end(), 0);
  for (std::size_t e = 0; e < sources.size(); ++e) {
    const index_t src = sources[e];
    if (wide_[sz(src)]) {
      wide_sources.push_back(e);
      continue;
    }
    tidy(src);
    const double* we = dense_w.data() + e * R;
    for (const index_t j : support_[sz(src)]) {
      double* row = z.data() + j * slots_;
      const double v = row[src];
      if (v == 0.0) continue;
      // Every non-zero entry's feature is listed; a zero one may be new (tidy removes duplicates).
      for (std::size_t p = 0; p < P; ++p) {
        const index_t dst = pivots[p];
        if (!wide_[sz(dst)] && row[dst] == 0.0 && w[e * P + p] != 0.0) append(dst, j);
      }
      for (std::size_t c = 0; c < R; ++c) row[c] += we[c] * v;
    }
  }
  if (!wide_sources.empty()) {
    sweep_touched(z.data(), [&](index_t j) {
      double* row = z.data() + j * slots_;
      for (const std::size_t e : wide_sources) {
        const double v = row[sources[e]];
        if (v == 0.0) continue;
        const double* we = dense_w.data() + e * R;
        for (std::size_t c = 0; c < R; ++c) row[c] += we[c] * v;
      }
    });
    for (std::size_t p = 0; p < P; ++p)
      for (const std::size_t e : wide_sources)
        if (w[e * P + p] != 0.0) make_wide(pivots[p]);
  }
  for (std::size_t p = 0; p < P; ++p)
    if (appended_[sz(pivots[p])]) tidy(pivots[p]);
}

void SlotSupports::add_to(std::span<const double> z, std::span<const index_t> slots, std::span<const double> w,
                          std::span<double> lazy, index_t stride) {
  auto& wide_slots = wide_sources_;
  wide_slots.clear();
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const index_t s = slots[k];
    if (w[k] == 0.0) continue;
    if (wide_[sz(s)]) {
      wide_slots.push_back(k);
      continue;
    }
    tidy(s);
    for (const index_t j : support_[sz(s)]) lazy[sz(j * stride)] += w[k] * z[sz(j * slots_ + s)];
  }
  if (wide_slots.empty()) return;
  sweep_touched(z.data(), [&](index_t j) {
    const double* row = z.data() + j * slots_;
    double sum = 0.0;
    for (const std::size_t k : wide_slots) sum += w[k] * row[slots[k]];
    lazy[sz(j * stride)] += sum;
  }, lazy.data(), stride);
}

void SlotSupports::erase(std::span<double> z, std::span<const index_t> slots) {
  bool any_wide = false;
  for (const index_t s : slots) {
    if (wide_[sz(s)]) {
      any_wide = true;
      continue;
    }
    for (const index_t j : support_[sz(s)]) z[sz(j * slots_ + s)] = 0.0;
    support_[sz(s)].clear();
    dirty_[sz(s)] = 0;
  }
  if (!any_wide) return;
  sweep_touched(z.data(), [&](index_t j) {
    double* row = z.data() + j * slots_;
    for (const index_t s : slots)
      if (wide_[sz(s)]) row[s] = 0.0;
  });
  for (const index_t s : slots) wide_[sz(s)] = 0;
}

void SlotSupports::reset(index_t wide_slots) {
  for (index_t s = 0; s < slots_; ++s) {
    support_[sz(s)].clear();
    dirty_[sz(s)] = 0;
    wide_[sz(s)] = s < wide_slots ? 1 : 0;
  }
}

void SlotSupports::rebuild(std::span<const double> z) {
  touched_.rebuild(z, slots_);
  for (index_t s = 0; s < slots_; ++s) {
    support_[sz(s)].clear();
    wide_[sz(s)] = 0;
    dirty_[sz(s)] = 0;
  }
  for_each_touched([&](index_t j) {
    for (index_t s = 0; s < slots_; ++s)
      if (!wide_[sz(s)] && z[sz(j * slots_ + s)] != 0.0) {
        support_[sz(s)].push_back(j);
        widen_if_large(s);
      }
  });
  stale_ = false;
}

}  // namespace adasketch::detail
