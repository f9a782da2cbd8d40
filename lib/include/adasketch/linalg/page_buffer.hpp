#pragma once
/// @file
/// PageBuffer: a rank's large zero-initialized blocks, backed by the kernel page by page.
#include <cstddef>
#include <span>

namespace adasketch {

/// A rank's large blocks (the sketch's d_p × R basis): fixed-size arrays of doubles whose zeros come
/// from the kernel, page by page on first touch, so a feature that no example reaches costs neither
/// time nor memory (sparse data reach few), and in 2 MiB pages where the kernel offers them
/// (madvise(MADV_HUGEPAGE)), which cuts the page faults 512-fold and the TLB misses of random feature
/// access. Blocks under 2 MiB come from calloc. Move-only; all members are local.
class PageBuffer {
 public:
  /// An empty buffer (size 0, no memory).
  PageBuffer() noexcept = default;
  /// `size` zeros; throws std::bad_alloc when the memory is not there.
  explicit PageBuffer(std::size_t size);
  ~PageBuffer();
  /// Takes other's block; other is left empty.
  PageBuffer(PageBuffer&& other) noexcept;
  /// Takes other's block (this one's is freed); other is left empty.
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  /// The number of doubles.
  std::size_t size() const noexcept { return size_; }
  /// The first double (nullptr when empty).
  ///@{
  double* data() noexcept { return data_; }
  const double* data() const noexcept { return data_; }
  ///@}
  /// The whole block as a span.
  ///@{
  operator std::span<double>() noexcept { return {data_, size_}; }
  operator std::span<const double>() const noexcept { return {data_, size_}; }
  ///@}
  /// Exchanges the blocks of the two buffers (no copy).
  void swap(PageBuffer& other) noexcept;

 private:
  double* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace adasketch
