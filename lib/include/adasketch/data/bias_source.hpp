#pragma once
// An intercept as LIBLINEAR's -B: every example of another source with one more feature, the
// constant B > 0, appended as feature d (0-based; LIBSVM index d + 1). It goes to the rank whose
// block holds the data's last feature when that block has room for one more in the data's equal
// blocks (the partition stays uniform, as the exact learners need), else to the last rank.
#include "adasketch/data/example_source.hpp"

namespace adasketch {

/// The partition of d + 1 features that BiasSource gives a source partitioned as `data` (d features).
BlockPartition with_bias_feature(const BlockPartition& data);

class BiasSource final : public ExampleSource {
 public:
  /// `inner` (not owned: it must outlive this source) on the calling `rank`; bias B > 0 and finite.
  /// Throws InvalidArgument.
  BiasSource(ExampleSource& inner, double bias, int rank);

  index_t dim() const override { return partition_.dim(); }
  const BlockPartition& partition() const override { return partition_; }
  bool next(Example& out) override;
  void rewind() override { inner_.rewind(); }
  index_t skip(index_t n) override { return inner_.skip(n); }
  double bias() const noexcept { return bias_; }

 private:
  ExampleSource& inner_;
  double bias_;
  BlockPartition partition_;
  bool owner_;          ///< whether this rank holds the bias feature
  index_t local_ = 0;  ///< its local index (this rank's block size in `inner`)
};

}  // namespace adasketch
