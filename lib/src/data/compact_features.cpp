#include "adasketch/data/compact_features.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include "adasketch/error.hpp"

namespace adasketch {

namespace {

// Sorted and without repeats.
void sort_unique(std::vector<index_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

BlockPartition compact_partition(const Communicator& comm, index_t local_size) {
  if (comm.allreduce_sum(local_size) == 0) throw InvalidArgument("FeatureMap: no rank lists a feature");
  return BlockPartition::from_local_sizes(comm, local_size);
}

}  // namespace

FeatureMap::FeatureMap(const Communicator& comm, const BlockPartition& original, std::vector<index_t> local_features)
    : original_(original), partition_(original), local_(std::move(local_features)) {
  original.require_parts_for(comm);
  const index_t size = original.size(comm.rank());
  const bool ascending = std::adjacent_find(local_.begin(), local_.end(), std::greater_equal<>()) == local_.end();
  const bool in_block = local_.empty() || (local_.front() >= 0 && local_.back() < size);
  const index_t bad = comm.allreduce_max(index_t{ascending && in_block ? 0 : 1});
  if (bad != 0) throw InvalidArgument("FeatureMap: the local features must be ascending local indices of each rank's block");
  partition_ = compact_partition(comm, static_cast<index_t>(local_.size()));
  int bits = 1;
  while ((std::size_t{1} << bits) < 2 * local_.size()) ++bits;
  table_.assign(std::size_t{1} << bits, Slot{});
  mask_ = table_.size() - 1;
  shift_ = 64 - bits;
  for (std::size_t c = 0; c < local_.size(); ++c) {
    std::size_t at = slot_of(local_[c]);
    while (table_[at].feature >= 0) at = (at + 1) & mask_;
    table_[at] = Slot{local_[c], static_cast<index_t>(c)};
  }
}

FeatureMap FeatureMap::scan(const Communicator& comm, ExampleSource& source, const std::string& name) {
  std::vector<index_t> seen;
  std::size_t tidy_at = std::size_t{1} << 20;  // entries gathered before the next sort
  Example e;
  while (source.next(e)) {
    if (e.dense) {
      for (std::size_t j = 0; j < e.values.size(); ++j)
        if (e.values[j] != 0.0) seen.push_back(static_cast<index_t>(j));
    } else {
      for (std::size_t i = 0; i < e.indices.size(); ++i)
        if (e.values[i] != 0.0) seen.push_back(e.indices[i]);
    }
    if (seen.size() >= tidy_at) {
      sort_unique(seen);
      tidy_at = std::max(tidy_at, 2 * seen.size());
    }
  }
  source.rewind();
  sort_unique(seen);
  seen.shrink_to_fit();
  if (comm.allreduce_sum(static_cast<index_t>(seen.size())) == 0)
    throw InputError(name, 0, "has no non-zero feature value: no feature to keep");
  return FeatureMap(comm, source.partition(), std::move(seen));
}

CompactSource::CompactSource(ExampleSource& inner, std::shared_ptr<const FeatureMap> map)
    : inner_(inner), map_(std::move(map)) {
  ADASKETCH_REQUIRE(map_ != nullptr, "no feature map");
  const BlockPartition &a = inner.partition(), &b = map_->original_partition();
  bool same = a.dim() == b.dim() && a.parts() == b.parts();
  for (int p = 0; same && p < a.parts(); ++p) same = a.begin(p) == b.begin(p) && a.end(p) == b.end(p);
  ADASKETCH_REQUIRE(same, "the source's partition (d = " + number_text(a.dim()) +
                              ") is not the feature map's original partition (d = " + number_text(b.dim()) + ")");
}

bool CompactSource::next(Example& out) {
  if (!inner_.next(original_)) return false;
  out.label = original_.label;
  out.position = original_.position;
  out.dense = false;
  out.indices.clear();
  out.values.clear();
  const std::span<const index_t> kept = map_->local_features();
  if (original_.dense) {
    // A dense row's entries on the kept features, in their order.
    out.dense = true;
    out.values.resize(kept.size());
    for (std::size_t c = 0; c < kept.size(); ++c) out.values[c] = original_.values[sz(kept[c])];
    dropped_ += static_cast<index_t>(std::count_if(original_.values.begin(), original_.values.end(),
                                                   [](double v) { return v != 0.0; })) -
                static_cast<index_t>(std::count_if(out.values.begin(), out.values.end(), [](double v) { return v != 0.0; }));
    return true;
  }
  // The compact numbering keeps the order, so the mapped indices ascend as the original ones do.
  for (std::size_t i = 0; i < original_.indices.size(); ++i) {
    const index_t c = map_->find(original_.indices[i]);
    if (c < 0) {
      ++dropped_;
      continue;
    }
    out.indices.push_back(c);
    out.values.push_back(original_.values[i]);
  }
  return true;
}

}  // namespace adasketch
