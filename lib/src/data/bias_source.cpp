#include "adasketch/data/bias_source.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "adasketch/error.hpp"

namespace adasketch {

BlockPartition with_bias_feature(const BlockPartition& data) {
  const index_t d = data.dim();
  const int parts = data.parts();
  if (data.is_uniform() && data.block_size() * parts > d) return BlockPartition(d + 1, parts, data.block_size());
  std::vector<index_t> sizes(static_cast<std::size_t>(parts));
  for (int p = 0; p < parts; ++p) sizes[static_cast<std::size_t>(p)] = data.size(p);
  ++sizes.back();
  return BlockPartition(sizes);
}

BiasSource::BiasSource(ExampleSource& inner, double bias, int rank)
    : inner_(inner), bias_(bias), partition_(with_bias_feature(inner.partition())) {
  ADASKETCH_REQUIRE(std::isfinite(bias) && bias > 0.0, "bias = " + std::to_string(bias));
  const index_t d = inner.partition().dim();
  owner_ = partition_.owner(d) == rank;
  local_ = d - partition_.begin(rank);
}

bool BiasSource::next(Example& out) {
  if (!inner_.next(out)) return false;
  if (owner_) {
    if (!out.dense) out.indices.push_back(local_);
    out.values.push_back(bias_);
  }
  return true;
}

}  // namespace adasketch
