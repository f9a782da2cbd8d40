#pragma once
// A stream of examples, each rank receiving only its own features. Every rank must call next()
// the same number of times (sources may communicate).
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/example.hpp"

namespace adasketch {

class ExampleSource {
 public:
  virtual ~ExampleSource() = default;
  /// Global number of features d.
  virtual index_t dim() const = 0;
  virtual const BlockPartition& partition() const = 0;
  /// Fills `out` with the next example (reusing its buffers); false at the end of the stream.
  virtual bool next(Example& out) = 0;
  /// Restarts from the first example (for further passes).
  virtual void rewind() = 0;
};

}  // namespace adasketch
