#include "bench_examples.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "adasketch/comm/partition.hpp"
#include "adasketch/data/compact_features.hpp"
#include "adasketch/error.hpp"
#include "bench_support.hpp"
#include "collective_errors.hpp"

namespace adasketch::driver {

namespace {

constexpr std::uint64_t kLabelStream = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kSupportStream = kLabelStream - 1;       // sparse rows: the positions
constexpr std::uint64_t kValueCounters = std::uint64_t{1} << 62;  // sparse rows: the values' counters

}  // namespace

BenchExamples BenchExamples::synthetic(const Communicator& comm, index_t dim, std::uint64_t seed, index_t pool,
                                       index_t nnz) {
  if (nnz < 0 || nnz > dim) throw InvalidArgument("option --nnz: must be in [0, d], got " + number_text(nnz));
  BenchExamples e(comm, dim);
  e.nnz_ = nnz;
  e.format_ = "synthetic";
  e.name_ = "synthetic rows";
  e.labels_ = {-1.0, 1.0, true, {-1.0, 1.0}};
  e.rng_ = Philox(seed);
  e.fresh_ = pool == 0;
  const BlockPartition part(dim, comm.size());
  e.beta_.resize(static_cast<std::size_t>(part.size(comm.rank())));
  fill_normal_row(e.rng_, kLabelStream, part.begin(comm.rank()), 1.0, e.beta_);
  e.rows_.resize(static_cast<std::size_t>(e.fresh_ ? 1 : pool));
  if (!e.fresh_)
    for (std::size_t slot = 0; slot < e.rows_.size(); ++slot) e.generate(static_cast<index_t>(slot), slot);
  return e;
}

BenchExamples BenchExamples::from_file(const Communicator& comm, const std::string& path, index_t dim, bool seen) {
  DataInput data = open_data(comm, path, dim, "option --data", "option --dim", seen ? 2 : 1);
  CollectiveOwner<ExampleSource> source(std::move(data.source));
  BenchExamples e(comm, source->dim());
  e.format_ = data.format;
  e.name_ = path;
  e.labels_ = label_range(comm, *source, path);
  std::optional<CompactSource> compact;
  ExampleSource* rows = &*source;
  if (seen) {
    rows = &compact.emplace(*source, std::make_shared<const FeatureMap>(FeatureMap::scan(comm, *source, path)));
    e.partition_ = rows->partition();
  }
  e.rows_.reserve(static_cast<std::size_t>(data.rows));
  Example example;
  while (rows->next(example)) e.rows_.push_back(example);
  if (e.rows_.empty()) throw InputError(path, 0, "no examples");
  return e;
}

void BenchExamples::generate(index_t t, std::size_t slot) {
  const BlockPartition part(dim_, comm_.size());
  Example& x = rows_[slot];
  if (nnz_ > 0) {
    const index_t begin = part.begin(comm_.rank()), end = part.end(comm_.rank());
    const double scale = 1.0 / std::sqrt(static_cast<double>(nnz_));
    entries_.clear();
    for (index_t k = 0; k < nnz_; ++k) {
      const auto u = rng_.uniform(kSupportStream, static_cast<std::uint64_t>(t * nnz_ + k));
      const index_t j = std::min(dim_ - 1, static_cast<index_t>(u * static_cast<double>(dim_)));
      entries_.emplace_back(j, scale * rng_.normal(static_cast<std::uint64_t>(t), kValueCounters + static_cast<std::uint64_t>(k)));
    }
    std::stable_sort(entries_.begin(), entries_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    x.dense = false;
    x.indices.clear();
    x.values.clear();
    x.position = t + 1;
    double dot = 0.0;
    for (std::size_t k = 0; k < entries_.size(); ++k) {
      const auto [j, v] = entries_[k];
      if (k > 0 && entries_[k - 1].first == j) continue;  // a repeated position: the first value
      if (j < begin || j >= end) continue;
      x.indices.push_back(j - begin);
      x.values.push_back(v);
      dot += beta_[static_cast<std::size_t>(j - begin)] * v;
    }
    x.label = comm_.allreduce_sum(dot) >= 0.0 ? 1.0 : -1.0;
    return;
  }
  x.dense = true;
  x.indices.clear();
  x.values.resize(beta_.size());
  x.position = t + 1;
  fill_normal_row(rng_, static_cast<std::uint64_t>(t), part.begin(comm_.rank()),
                  1.0 / std::sqrt(static_cast<double>(dim_)), x.values);
  double dot = 0.0;
  for (std::size_t j = 0; j < beta_.size(); ++j) dot += beta_[j] * x.values[j];
  x.label = comm_.allreduce_sum(dot) >= 0.0 ? 1.0 : -1.0;
}

const Example& BenchExamples::at(index_t t) {
  if (fresh_) {
    generate(t, 0);
    return rows_[0];
  }
  return rows_[static_cast<std::size_t>(t % static_cast<index_t>(rows_.size()))];
}

}  // namespace adasketch::driver
