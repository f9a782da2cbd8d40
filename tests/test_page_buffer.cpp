// PageBuffer (adasketch/linalg/page_buffer.hpp): zeros on creation on both paths (calloc under 2 MiB,
// mapped pages from 2 MiB, aligned for huge pages), writable everywhere, and move-only ownership.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <span>
#include <utility>

#include "adasketch/linalg/page_buffer.hpp"

using namespace adasketch;

namespace {

TEST(PageBuffer, ZerosOnBothPathsAndWritable) {
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{262143},
                              std::size_t{262144}, std::size_t{3000017}}) {
    PageBuffer b(n);
    ASSERT_EQ(b.size(), n);
    const std::span<double> s = b;
    EXPECT_TRUE(std::all_of(s.begin(), s.end(), [](double v) { return v == 0.0; })) << n;
    for (std::size_t i = 0; i < n; i += 511) s[i] = static_cast<double>(i) + 1.0;
    if (n > 0) s[n - 1] = -1.0;
    for (std::size_t i = 0; i + 1 < n; i += 511) EXPECT_EQ(s[i], static_cast<double>(i) + 1.0);
    if (n * sizeof(double) >= (std::size_t{2} << 20)) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % (std::size_t{2} << 20), 0u) << n;
    }
  }
}

TEST(PageBuffer, RefusesSizesMemoryCannotHold) {
  EXPECT_THROW(PageBuffer(SIZE_MAX / sizeof(double)), std::bad_alloc);
  EXPECT_THROW(PageBuffer(SIZE_MAX), std::bad_alloc);
  EXPECT_THROW(PageBuffer(std::size_t{1} << 57), std::bad_alloc);  // 2^60 bytes: mmap fails
}

TEST(PageBuffer, MovesAndSwapsOwnership) {
  PageBuffer a(400000), b(10);
  a.data()[5] = 3.0;
  double* const pa = a.data();
  PageBuffer c(std::move(a));
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(c.data(), pa);
  EXPECT_EQ(c.data()[5], 3.0);
  c.swap(b);
  EXPECT_EQ(b.data(), pa);
  EXPECT_EQ(c.size(), 10u);
  b = std::move(c);  // frees the mapped block, takes the small one
  EXPECT_EQ(b.size(), 10u);
  EXPECT_EQ(b.data()[9], 0.0);
}

}  // namespace
