#pragma once
// What the C interface's opaque handles hold, and how a caller's block of an example (its data
// features) becomes a row of the learner's or model's features (the bias feature appended).
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/training/label_map.hpp"

namespace adasketch::capi {

/// This rank's data features and, with a bias B > 0, the bias feature: the features are split as
/// `features` (d + 1 with a bias, the bias feature last, as `adasketch train --bias`), and each rank
/// passes the data features of its block, [begin(), end()); the rank whose block holds feature d
/// appends B.
class DataBlock {
 public:
  DataBlock(const BlockPartition& features, int rank, double bias);
  /// This rank's data features [begin, end) (global indices; the bias feature excluded).
  index_t begin() const noexcept { return begin_; }
  index_t end() const noexcept { return end_; }
  /// The data's d (without the bias feature).
  index_t data_dim() const noexcept { return data_dim_; }
  /// B (0: none).
  double bias() const noexcept { return bias_; }
  /// The rank that holds the bias feature (-1 without one).
  int bias_owner() const noexcept { return bias_owner_; }
  /// The caller's dense block x (end − begin values) or sparse entries as a row of the features.
  /// The row may point into this object's buffers: use it before the next call.
  LocalRow dense(const double* x) const;
  LocalRow sparse(std::int64_t nnz, const std::int64_t* indices, const double* values) const;

 private:
  index_t begin_, end_, data_dim_;
  double bias_;
  int bias_owner_ = -1;
  bool appends_ = false;  ///< this rank holds the bias feature
  mutable std::vector<double> values_;
  mutable std::vector<index_t> indices_;
};

/// The split of d data features (`data`) plus a bias feature, as `adasketch train --bias` makes it for
/// `algorithm`: BiasSource's default place for the bias feature, or equal blocks of d + 1 for the
/// learners that need them.
BlockPartition with_bias_feature(const BlockPartition& data, std::string_view algorithm);

/// K values, the same on every rank: B times the bias feature's row of W, broadcast by its owner
/// (zeros without a bias). `local_rows` is this rank's rows of W (feature-major). Collective.
void intercept(const Communicator& comm, const DataBlock& block, std::span<const double> local_rows,
               std::span<double> out);

}  // namespace adasketch::capi

/// A learner of the C interface: the learner, its data block and its label map.
struct adasketch_learner {
  adasketch::Communicator comm;
  std::unique_ptr<adasketch::Learner> learner;
  adasketch::capi::DataBlock block;
  adasketch::LabelMap labels;  ///< the caller's labels → the loss's
};

/// A model file read back, and its data block.
struct adasketch_model {
  adasketch::LinearModel model;
  adasketch::capi::DataBlock block;
};
