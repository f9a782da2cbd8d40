#pragma once
/// @file
/// A stream of examples, each rank receiving only its own features. Every rank must call next()
/// the same number of times (sources may communicate).
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/example.hpp"

namespace adasketch {

/// A stream of examples, each rank receiving its own block of every example's features (LibsvmReader,
/// DenseBinaryReader, Hdf5Reader, MemorySource, the synthetic generators, BiasSource, CompactSource).
/// next(), rewind() and skip() are called alike on every rank: a source may communicate in them.
class ExampleSource {
 public:
  virtual ~ExampleSource() = default;
  /// Global number of features d.
  virtual index_t dim() const = 0;
  /// The split of the d features over the ranks: this rank's examples hold the features of its block.
  virtual const BlockPartition& partition() const = 0;
  /// Fills `out` with the next example (reusing its buffers); false at the end of the stream.
  virtual bool next(Example& out) = 0;
  /// Restarts from the first example (for further passes).
  virtual void rewind() = 0;
  /// Moves past the next n ≥ 0 examples, as n calls of next() would, and returns how many there were
  /// (fewer at the end of the stream); every rank must make the same call. The default calls next();
  /// sources that can seek override it (cost: see each source).
  virtual index_t skip(index_t n);
};

}  // namespace adasketch
