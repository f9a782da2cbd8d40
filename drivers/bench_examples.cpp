#include "bench_examples.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include "adasketch/comm/partition.hpp"
#include "adasketch/error.hpp"
#include "bench_support.hpp"
#include "collective_errors.hpp"

namespace adasketch::driver {

namespace {

constexpr std::uint64_t kLabelStream = std::numeric_limits<std::uint64_t>::max();

}  // namespace

BenchExamples BenchExamples::synthetic(const Communicator& comm, index_t dim, std::uint64_t seed, index_t pool) {
  BenchExamples e(comm, dim);
  e.format_ = "synthetic";
  e.name_ = "synthetic rows";
  e.labels_ = {-1.0, 1.0, true};
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

BenchExamples BenchExamples::from_file(const Communicator& comm, const std::string& path, index_t dim) {
  DataInput data = open_data(comm, path, dim, "option --data", "option --dim");
  CollectiveOwner<ExampleSource> source(std::move(data.source));
  BenchExamples e(comm, source->dim());
  e.format_ = data.format;
  e.name_ = path;
  e.labels_ = label_range(*source, path);
  e.rows_.reserve(static_cast<std::size_t>(data.rows));
  Example example;
  while (source->next(example)) e.rows_.push_back(example);
  if (e.rows_.empty()) throw InputError(path, 0, "no examples");
  return e;
}

void BenchExamples::generate(index_t t, std::size_t slot) {
  const BlockPartition part(dim_, comm_.size());
  Example& x = rows_[slot];
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
