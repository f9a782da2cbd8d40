#include "slot_supports.hpp"

#include <algorithm>

namespace adasketch::detail {

SlotSupports::SlotSupports(index_t slots, index_t local_dim)
    : slots_(slots),
      local_dim_(local_dim),
      support_(static_cast<std::size_t>(slots)),
      dense_(static_cast<std::size_t>(slots), 0),
      dirty_(static_cast<std::size_t>(slots), 0) {
  // Each list holds at most local_dim/8 + 1 features before its slot counts as dense: reserved once,
  // so that the steps do not allocate (R·d_p bytes, an eighth of the block).
  for (auto& list : support_) list.reserve(static_cast<std::size_t>(local_dim / 8 + 2));
  dense_sources_.reserve(static_cast<std::size_t>(slots));
}

void SlotSupports::rebuild_if_stale(std::span<const double> z) {
  if (stale_) rebuild(z);
}

void SlotSupports::make_dense(index_t s) {
  dense_[s] = 1;
  dirty_[s] = 0;
  support_[s].clear();
}

void SlotSupports::tidy(index_t s) {
  if (!dirty_[s]) return;
  auto& list = support_[s];
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  dirty_[s] = 0;
}

void SlotSupports::write(std::span<double> z, index_t s, const LocalRow& a) {
  const auto values = a.values();
  if (a.is_dense()) {
    for (index_t j = 0; j < local_dim_; ++j) z[j * slots_ + s] = values[j];
    make_dense(s);
    return;
  }
  const auto indices = a.indices();
  for (std::size_t k = 0; k < indices.size(); ++k) z[indices[k] * slots_ + s] = values[k];
  dirty_[s] = 0;
  if (static_cast<index_t>(indices.size()) * 8 > local_dim_) {
    make_dense(s);
    return;
  }
  support_[s].assign(indices.begin(), indices.end());  // ascending, distinct
  dense_[s] = 0;
}

void SlotSupports::add_scaled(std::span<double> z, index_t dst, double w, index_t src) {
  if (w == 0.0) return;
  if (dense_[src]) {
    for (index_t j = 0; j < local_dim_; ++j) z[j * slots_ + dst] += w * z[j * slots_ + src];
    if (!dense_[dst]) make_dense(dst);
    return;
  }
  tidy(src);
  auto& list = support_[dst];
  for (const index_t j : support_[src]) {
    double& target = z[j * slots_ + dst];
    // Every non-zero entry's feature is listed; a zero one may be new (duplicates are removed by tidy).
    if (target == 0.0 && !dense_[dst]) {
      list.push_back(j);
      dirty_[dst] = 1;
      if (static_cast<index_t>(list.size()) * 8 > local_dim_) make_dense(dst);
    }
    target += w * z[j * slots_ + src];
  }
}

void SlotSupports::add_to(std::span<const double> z, index_t s, double w, std::span<double> lazy, index_t stride) {
  if (w == 0.0) return;
  if (dense_[s]) {
    for (index_t j = 0; j < local_dim_; ++j) lazy[j * stride] += w * z[j * slots_ + s];
    return;
  }
  tidy(s);
  for (const index_t j : support_[s]) lazy[j * stride] += w * z[j * slots_ + s];
}

void SlotSupports::fold(std::span<double> z, std::span<const index_t> pivots, std::span<const index_t> sources,
                        std::span<const double> w) {
  const std::size_t P = pivots.size();
  auto& dense_sources = dense_sources_;
  dense_sources.clear();
  for (std::size_t e = 0; e < sources.size(); ++e) {
    if (dense_[sources[e]]) {
      dense_sources.push_back(e);
      continue;
    }
    for (std::size_t p = 0; p < P; ++p) add_scaled(z, pivots[p], w[e * P + p], sources[e]);
  }
  if (dense_sources.empty()) return;
  for (index_t j = 0; j < local_dim_; ++j) {
    double* zj = z.data() + j * slots_;
    for (const std::size_t e : dense_sources) {
      const double v = zj[sources[e]];
      if (v == 0.0) continue;
      for (std::size_t p = 0; p < P; ++p) zj[pivots[p]] += w[e * P + p] * v;
    }
  }
  for (std::size_t p = 0; p < P; ++p)
    for (const std::size_t e : dense_sources)
      if (w[e * P + p] != 0.0 && !dense_[pivots[p]]) make_dense(pivots[p]);
}

void SlotSupports::erase(std::span<double> z, std::span<const index_t> slots) {
  bool any_dense = false;
  for (const index_t s : slots) {
    if (dense_[s]) {
      any_dense = true;
      continue;
    }
    for (const index_t j : support_[s]) z[j * slots_ + s] = 0.0;
    support_[s].clear();
    dirty_[s] = 0;
  }
  if (!any_dense) return;
  for (index_t j = 0; j < local_dim_; ++j)
    for (const index_t s : slots)
      if (dense_[s]) z[j * slots_ + s] = 0.0;
  for (const index_t s : slots) dense_[s] = 0;
}

void SlotSupports::rebuild(std::span<const double> z) {
  for (index_t s = 0; s < slots_; ++s) {
    support_[s].clear();
    dense_[s] = 0;
    dirty_[s] = 0;
  }
  for (index_t j = 0; j < local_dim_; ++j)
    for (index_t s = 0; s < slots_; ++s)
      if (!dense_[s] && z[j * slots_ + s] != 0.0) {
        support_[s].push_back(j);
        if (static_cast<index_t>(support_[s].size()) * 8 > local_dim_) make_dense(s);
      }
  stale_ = false;
}

}  // namespace adasketch::detail
