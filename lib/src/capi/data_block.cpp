#include <algorithm>
#include <string>

#include "adasketch/data/bias_source.hpp"
#include "adasketch/error.hpp"
#include "adasketch/number_text.hpp"
#include "handles.hpp"
#include "status.hpp"

namespace adasketch::capi {

DataBlock::DataBlock(const BlockPartition& features, int rank, double bias)
    : data_dim_(features.dim() - (bias > 0.0 ? 1 : 0)), bias_(bias) {
  begin_ = std::min(features.begin(rank), data_dim_);
  end_ = std::min(features.end(rank), data_dim_);
  if (bias > 0.0) {
    bias_owner_ = features.owner(data_dim_);
    appends_ = bias_owner_ == rank;
  }
}

LocalRow DataBlock::dense(const double* x) const {
  const auto n = static_cast<std::size_t>(end_ - begin_);
  if (n > 0) require_pointer(x, "x");
  if (!appends_) return LocalRow::dense(std::span<const double>(x, n));
  values_.assign(x, x + n);
  values_.push_back(bias_);
  return LocalRow::dense(values_);
}

LocalRow DataBlock::sparse(std::int64_t nnz, const std::int64_t* indices, const double* values) const {
  if (nnz < 0) throw InvalidArgument("nnz = " + number_text(nnz));
  if (nnz > 0) {
    require_pointer(indices, "indices");
    require_pointer(values, "values");
  }
  const auto n = static_cast<std::size_t>(nnz);
  if (!appends_) return LocalRow::sparse(std::span<const index_t>(indices, n), std::span<const double>(values, n));
  indices_.assign(indices, indices + n);
  indices_.push_back(end_ - begin_);
  values_.assign(values, values + n);
  values_.push_back(bias_);
  return LocalRow::sparse(indices_, values_);
}

BlockPartition with_bias_feature(const BlockPartition& data, std::string_view algorithm) {
  BlockPartition features = adasketch::with_bias_feature(data);
  if (needs_equal_blocks(algorithm) && !features.has_equal_blocks()) return BlockPartition(data.dim() + 1, data.parts());
  return features;
}

void intercept(const Communicator& comm, const DataBlock& block, std::span<const double> local_rows,
               std::span<double> out) {
  std::fill(out.begin(), out.end(), 0.0);
  if (block.bias_owner() < 0) return;
  if (comm.rank() == block.bias_owner()) {
    const std::size_t row = static_cast<std::size_t>(block.end() - block.begin()) * out.size();
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = block.bias() * local_rows[row + k];
  }
  comm.broadcast(out, block.bias_owner());
}

}  // namespace adasketch::capi
