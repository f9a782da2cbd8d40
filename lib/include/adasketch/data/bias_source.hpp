#pragma once
/// @file
/// An intercept as LIBLINEAR's -B: every example of another source with one more feature, the
/// constant B > 0, appended as feature d (0-based; LIBSVM index d + 1). By default it goes to the rank
/// whose block holds the data's last feature when that block has room for one more in the data's
/// equal blocks (the partition stays uniform), else to the last rank: no data moves. A learner that
/// needs another split of the d + 1 features (the exact learners need equal blocks) can ask for any
/// partition: each example's entries then move to their ranks (one Alltoall and one Alltoallv per
/// example).
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch {

/// The partition of d + 1 features that BiasSource gives a source partitioned as `data` (d features)
/// by default.
BlockPartition with_bias_feature(const BlockPartition& data);

/// Another source's examples with the bias feature B appended as feature d (see the file description).
class BiasSource final : public ExampleSource {
 public:
  /// `inner` (not owned: it must outlive this source), bias B > 0 and finite, split as `partition`
  /// (d + 1 features, one part per rank of comm). Throws InvalidArgument.
  BiasSource(const Communicator& comm, ExampleSource& inner, double bias, const BlockPartition& partition);
  /// Split as with_bias_feature(inner.partition()).
  BiasSource(const Communicator& comm, ExampleSource& inner, double bias);

  index_t dim() const override { return partition_.dim(); }
  /// The split of the d + 1 features.
  const BlockPartition& partition() const override { return partition_; }
  /// Collective when the entries move (every rank calls it alike, as for every source).
  bool next(Example& out) override;
  void rewind() override { inner_.rewind(); }
  index_t skip(index_t n) override { return inner_.skip(n); }
  /// The bias B.
  double bias() const noexcept { return bias_; }

 private:
  void move_entries(Example& out);

  Communicator comm_;
  ExampleSource& inner_;
  double bias_;
  BlockPartition partition_;
  bool moves_;          ///< whether entries change ranks (partition differs from inner's blocks)
  bool owner_;          ///< whether this rank holds the bias feature
  index_t local_ = 0;  ///< its local index
  std::vector<index_t> send_, receive_, send_counts_, receive_counts_;  // moving entries: (global, bits)
};

}  // namespace adasketch
