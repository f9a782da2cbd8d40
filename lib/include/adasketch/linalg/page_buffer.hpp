#pragma once
// A rank's large blocks (the sketch's d_p × R basis): fixed-size arrays of doubles whose zeros come
// from the kernel, page by page on first touch, so a feature that no example reaches costs neither
// time nor memory (sparse data reach few), and in 2 MiB pages where the kernel offers them
// (madvise(MADV_HUGEPAGE)), which cuts the page faults 512-fold and the TLB misses of random feature
// access. Blocks under 2 MiB come from calloc.
#include <cstddef>
#include <span>

namespace adasketch {

class PageBuffer {
 public:
  PageBuffer() noexcept = default;
  /// `size` zeros; throws std::bad_alloc when the memory is not there.
  explicit PageBuffer(std::size_t size);
  ~PageBuffer();
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;

  std::size_t size() const noexcept { return size_; }
  double* data() noexcept { return data_; }
  const double* data() const noexcept { return data_; }
  operator std::span<double>() noexcept { return {data_, size_}; }
  operator std::span<const double>() const noexcept { return {data_, size_}; }
  void swap(PageBuffer& other) noexcept;

 private:
  double* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace adasketch
