#include "adasketch/data/bias_source.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

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

BiasSource::BiasSource(const Communicator& comm, ExampleSource& inner, double bias)
    : BiasSource(comm, inner, bias, with_bias_feature(inner.partition())) {}

BiasSource::BiasSource(const Communicator& comm, ExampleSource& inner, double bias, const BlockPartition& partition)
    : comm_(comm), inner_(inner), bias_(bias), partition_(partition) {
  ADASKETCH_REQUIRE(std::isfinite(bias) && bias > 0.0, "bias = " + number_text(bias));
  const BlockPartition& data = inner.partition();
  const index_t d = data.dim();
  ADASKETCH_REQUIRE(partition.dim() == d + 1, "the partition has d = " + number_text(partition.dim()) +
                                                   ", the data d + 1 = " + number_text(d + 1));
  partition.require_parts_for(comm);
  moves_ = false;  // unless every rank's data block lies in its block of `partition`
  for (int p = 0; p < comm.size(); ++p)
    if (data.size(p) > 0 && (data.begin(p) < partition.begin(p) || data.end(p) > partition.end(p))) moves_ = true;
  const int rank = comm.rank();
  owner_ = partition_.owner(d) == rank;
  local_ = d - partition_.begin(rank);
  send_counts_.assign(static_cast<std::size_t>(comm.size()), 0);
  receive_counts_.assign(send_counts_.size(), 0);
}

bool BiasSource::next(Example& out) {
  if (!inner_.next(out)) return false;
  if (moves_) move_entries(out);
  if (owner_) {
    if (!out.dense) out.indices.push_back(local_);
    out.values.push_back(bias_);
  }
  return true;
}

// The entries go to their owners in partition_ as (global index, bits of the value) pairs; those
// from lower ranks come first, so the indices arrive ascending.
void BiasSource::move_entries(Example& out) {
  const int rank = comm_.rank();
  const index_t begin = inner_.partition().begin(rank);
  std::fill(send_counts_.begin(), send_counts_.end(), 0);
  send_.clear();
  for (std::size_t e = 0; e < out.values.size(); ++e) {
    const index_t global = begin + (out.dense ? static_cast<index_t>(e) : out.indices[e]);
    send_counts_[static_cast<std::size_t>(partition_.owner(global))] += 2;
    send_.push_back(global);
    send_.push_back(std::bit_cast<index_t>(out.values[e]));
  }
  comm_.alltoall(send_counts_, receive_counts_);
  index_t total = 0;
  for (const index_t c : receive_counts_) total += c;
  receive_.resize(static_cast<std::size_t>(total));
  comm_.alltoallv(send_, send_counts_, receive_, receive_counts_);
  const index_t mine = partition_.begin(rank), local = partition_.size(rank) - (owner_ ? 1 : 0);
  out.indices.clear();
  out.values.clear();
  if (out.dense) out.values.assign(static_cast<std::size_t>(local), 0.0);
  for (std::size_t k = 0; k < receive_.size(); k += 2) {
    const double v = std::bit_cast<double>(receive_[k + 1]);
    if (out.dense) {
      out.values[static_cast<std::size_t>(receive_[k] - mine)] = v;
    } else {
      out.indices.push_back(receive_[k] - mine);
      out.values.push_back(v);
    }
  }
}

}  // namespace adasketch
