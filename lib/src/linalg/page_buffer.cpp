#include "adasketch/linalg/page_buffer.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

namespace adasketch {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;

bool mapped(std::size_t bytes) noexcept { return bytes >= kHugePage; }

std::size_t mapped_bytes(std::size_t bytes) noexcept { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// Anonymous pages (zero until written), aligned to 2 MiB so that the kernel can back them with huge
// pages: map one huge page more than needed and unmap the unaligned head and tail.
void* map_pages(std::size_t bytes) {
  const std::size_t length = mapped_bytes(bytes);
  void* raw = ::mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t tail = aligned + length, end = start + length + kHugePage;
  if (end > tail) ::munmap(reinterpret_cast<void*>(tail), end - tail);
  ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);  // advice: EINVAL without THP is fine
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

PageBuffer::PageBuffer(std::size_t size) : size_(size) {
  if (size == 0) return;
  if (size > (SIZE_MAX - 2 * kHugePage) / sizeof(double)) throw std::bad_alloc();  // the rounding below must not wrap
  const std::size_t bytes = size * sizeof(double);
  if (mapped(bytes)) {
    data_ = static_cast<double*>(map_pages(bytes));
  } else {
    data_ = static_cast<double*>(std::calloc(size, sizeof(double)));
    if (data_ == nullptr) throw std::bad_alloc();
  }
}

PageBuffer::~PageBuffer() {
  if (data_ == nullptr) return;
  const std::size_t bytes = size_ * sizeof(double);
  if (mapped(bytes))
    ::munmap(data_, mapped_bytes(bytes));
  else
    std::free(data_);
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  PageBuffer(std::move(other)).swap(*this);
  return *this;
}

void PageBuffer::swap(PageBuffer& other) noexcept {
  std::swap(data_, other.data_);
  std::swap(size_, other.size_);
}

}  // namespace adasketch
