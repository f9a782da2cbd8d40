#pragma once
// The stream position of sources whose example t is a pure function of t (the synthetic
// generators): rewind and skip are O(1).
#include <algorithm>
#include <string>

#include "adasketch/data/example_source.hpp"
#include "adasketch/error.hpp"

namespace adasketch::detail {

class IndexedSource : public ExampleSource {
 public:
  void rewind() override { t_ = 0; }
  index_t skip(index_t n) override {
    ADASKETCH_REQUIRE(n >= 0, "n = " + number_text(n));
    const index_t done = std::min(n, examples_ - t_);
    t_ += done;
    return done;
  }

 protected:
  explicit IndexedSource(index_t examples) noexcept : examples_(examples) {}
  /// Whether an example is left; index() is its 0-based index in this stream.
  bool more() const noexcept { return t_ < examples_; }
  index_t index() const noexcept { return t_; }
  /// Moves past the example and returns its 1-based position.
  index_t advance() noexcept { return ++t_; }

 private:
  index_t examples_, t_ = 0;
};

}  // namespace adasketch::detail
