#pragma once
/// @file
/// Examples a scientific code already holds in memory, as an ExampleSource for train() and
/// evaluate() (so checkpoints, progress and reports work for them too).
///
/// Each rank passes its own block of every example (the columns [begin(rank), end(rank)) of its
/// partition, which may be the caller's own decomposition) and the same labels. The source keeps
/// views: the caller's arrays must outlive it and stay unchanged while it is used. Batches are
/// appended in order and read in that order, pass after pass.
#include <span>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch {

/// The caller's in-memory examples as an ExampleSource (see the file description).
class MemorySource final : public ExampleSource {
 public:
  /// An empty source over the features of `partition` (partition.parts() == comm.size()).
  MemorySource(const Communicator& comm, const BlockPartition& partition);

  /// Collective. Appends labels.size() dense examples: `values` is labels.size() × local_dim,
  /// row-major (example i's local features at values[i·local_dim …]).
  void add_dense(std::span<const double> labels, std::span<const double> values);
  /// Collective. Appends labels.size() sparse examples in CSR form: example i's entries are
  /// [row_offsets[i], row_offsets[i + 1]) of `indices` (local, ascending, in [0, local_dim)) and
  /// `values`; row_offsets has labels.size() + 1 entries, starting at 0.
  void add_csr(std::span<const double> labels, std::span<const index_t> row_offsets, std::span<const index_t> indices,
               std::span<const double> values);
  /// A batch whose arrays do not fit (sizes, index order or range, a different number of examples
  /// or different labels on another rank) throws InvalidArgument on every rank and is not added.

  /// Examples in all batches.
  index_t size() const noexcept { return total_; }
  /// This rank's features (the width of its dense rows).
  index_t local_dim() const noexcept { return local_dim_; }

  index_t dim() const override { return partition_.dim(); }
  /// The partition given to the constructor.
  const BlockPartition& partition() const override { return partition_; }
  bool next(Example& out) override;
  void rewind() override;
  /// O(batches).
  index_t skip(index_t n) override;

 private:
  struct Batch {
    std::span<const double> labels;
    std::span<const double> values;       // dense: n × local_dim; CSR: the entries
    std::span<const index_t> row_offsets;  // CSR only
    std::span<const index_t> indices;      // CSR only
    bool dense = true;
  };
  void add(const Batch& batch, const std::string& problem);

  Communicator comm_;
  BlockPartition partition_;
  index_t local_dim_;
  std::vector<Batch> batches_;
  index_t total_ = 0;
  std::size_t batch_ = 0;  // the batch of the next example
  index_t row_ = 0;        // its row in that batch
  index_t position_ = 0;   // examples read since rewind()
};

}  // namespace adasketch
