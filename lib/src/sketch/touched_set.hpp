#pragma once
// The features of a rank's block that any stored row of a sparse-form sketch is non-zero on (internal):
// a two-level bitmap (one bit a feature, one summary bit a word) walked in ascending order, so that
// the operations that would read the whole d_p × R block (a learner's fold of Zᵀc, an exact Gram, a
// rebase) read only the touched features' rows. A dense row touches every feature. The set only
// affects cost, never results: rows outside it are zero.
#include <cstdint>
#include <span>
#include <vector>

#include "adasketch/types.hpp"
#include "prefetch_row.hpp"

namespace adasketch::detail {

class TouchedSet {
 public:
  explicit TouchedSet(index_t local_dim);

  void touch(index_t j) noexcept {
    const std::size_t w = static_cast<std::size_t>(j) / 64;
    const std::uint64_t bit = std::uint64_t{1} << (static_cast<std::size_t>(j) % 64);
    if (bits_[w] & bit) return;
    bits_[w] |= bit;
    summary_[w / 64] |= std::uint64_t{1} << (w % 64);
    ++count_;
  }
  /// Every feature (a dense row was written).
  void touch_all() noexcept { all_ = true; }
  void clear() noexcept;
  /// The set of the features whose row of z (local_dim × row_length, feature-major) has a non-zero.
  void rebuild(std::span<const double> z, index_t row_length);
  bool all() const noexcept { return all_; }
  /// |U|.
  index_t count() const noexcept { return all_ ? local_dim_ : count_; }

  /// Calls f(j) for every touched feature, ascending.
  template <class F>
  void for_each(F&& f) const {
    if (all_) {
      for (index_t j = 0; j < local_dim_; ++j) f(j);
      return;
    }
    for (std::size_t s = 0; s < summary_.size(); ++s)
      for (std::uint64_t sw = summary_[s]; sw != 0; sw &= sw - 1) {
        const std::size_t w = s * 64 + static_cast<std::size_t>(__builtin_ctzll(sw));
        for (std::uint64_t bw = bits_[w]; bw != 0; bw &= bw - 1)
          f(static_cast<index_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bw))));
      }
  }
  /// for_each in batches whose rows of z (row_length doubles a feature) are requested before the
  /// first is used: the rows lie at scattered places of a large block, and their cache misses
  /// overlap instead of following one another. With `also`, also[j·stride] is requested too.
  template <class F>
  void sweep(const double* z, index_t row_length, F&& f, const double* also = nullptr, index_t stride = 0) const {
    constexpr int kBatch = 32;
    index_t batch[kBatch];
    int n = 0;
    const auto run = [&] {
      for (int i = 0; i < n; ++i) {
        prefetch_row<1>(z + batch[i] * row_length, row_length);
        if (also != nullptr) __builtin_prefetch(also + batch[i] * stride, 1);
      }
      for (int i = 0; i < n; ++i) f(batch[i]);
      n = 0;
    };
    for_each([&](index_t j) {
      batch[n++] = j;
      if (n == kBatch) run();
    });
    run();
  }

 private:
  index_t local_dim_;
  std::vector<std::uint64_t> bits_, summary_;
  index_t count_ = 0;
  bool all_ = false;
};

}  // namespace adasketch::detail
