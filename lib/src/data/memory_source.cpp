#include "adasketch/data/memory_source.hpp"

#include <bit>
#include <cstdint>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

namespace {

// An order-sensitive hash of the labels' bits, in [0, 2⁶²): equal on every rank when the labels are.
index_t labels_hash(std::span<const double> labels) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const double y : labels) h = (h ^ std::bit_cast<std::uint64_t>(y)) * 1099511628211ULL;
  return static_cast<index_t>(h >> 2);
}

}  // namespace

MemorySource::MemorySource(const Communicator& comm, const BlockPartition& partition)
    : comm_(comm), partition_(partition), local_dim_(partition.size(comm.rank())) {
  partition.require_parts_for(comm);
}

void MemorySource::add_dense(std::span<const double> labels, std::span<const double> values) {
  std::string problem;
  const auto n = static_cast<index_t>(labels.size());
  if (values.size() != sz(n * local_dim_))
    problem = "values has " + number_text(values.size()) + " entries, expected " + number_text(n) +
              " examples × " + number_text(local_dim_) + " local features";
  add(Batch{labels, values, {}, {}, true}, problem);
}

void MemorySource::add_csr(std::span<const double> labels, std::span<const index_t> row_offsets,
                           std::span<const index_t> indices, std::span<const double> values) {
  std::string problem;
  const std::size_t n = labels.size();
  if (row_offsets.size() != n + 1 || row_offsets[0] != 0)
    problem = "row_offsets has " + number_text(row_offsets.size()) + " entries (expected " + number_text(n + 1) +
              ", starting at 0)";
  else if (indices.size() != values.size() || sz(row_offsets[n]) != indices.size())
    problem = number_text(indices.size()) + " indices and " + number_text(values.size()) +
              " values for row_offsets ending at " + number_text(row_offsets[n]);
  for (std::size_t i = 0; problem.empty() && i < n; ++i) {
    if (row_offsets[i + 1] < row_offsets[i]) {
      problem = "row_offsets decreases at example " + number_text(i);
      break;
    }
    for (index_t e = row_offsets[i]; e < row_offsets[i + 1]; ++e) {
      const index_t j = indices[sz(e)];
      if (j < 0 || j >= local_dim_ || (e > row_offsets[i] && j <= indices[sz(e - 1)])) {
        problem = "example " + number_text(i) + ": local index " + number_text(j) +
                  " (expected ascending indices in [0, " + number_text(local_dim_) + "))";
        break;
      }
    }
  }
  add(Batch{labels, values, row_offsets, indices, false}, problem);
}

void MemorySource::add(const Batch& batch, const std::string& problem) {
  // Agreed on every rank: a problem anywhere, or a different number of examples or labels.
  const auto n = static_cast<index_t>(batch.labels.size());
  const index_t hash = labels_hash(batch.labels);
  const index_t bad = comm_.allreduce_max(index_t{problem.empty() ? 0 : 1});
  if (bad != 0)
    throw InvalidArgument("MemorySource: " + (problem.empty() ? "a batch does not fit on another rank" : problem));
  if (comm_.allreduce_max(n) != comm_.allreduce_min(n))
    throw InvalidArgument("MemorySource: the ranks add batches of different sizes (" + number_text(n) +
                          " examples on rank " + number_text(comm_.rank()) + ")");
  if (comm_.allreduce_max(hash) != comm_.allreduce_min(hash))
    throw InvalidArgument("MemorySource: the ranks add different labels (every rank passes the same labels)");
  batches_.push_back(batch);
  total_ += n;
}

bool MemorySource::next(Example& out) {
  while (batch_ < batches_.size() && row_ == static_cast<index_t>(batches_[batch_].labels.size())) {
    ++batch_;
    row_ = 0;
  }
  if (batch_ == batches_.size()) return false;
  const Batch& b = batches_[batch_];
  out.label = b.labels[sz(row_)];
  out.dense = b.dense;
  if (b.dense) {
    out.indices.clear();
    const auto row = b.values.subspan(sz(row_ * local_dim_), sz(local_dim_));
    out.values.assign(row.begin(), row.end());
  } else {
    const auto first = sz(b.row_offsets[sz(row_)]), last = sz(b.row_offsets[sz(row_) + 1]);
    out.indices.assign(b.indices.begin() + static_cast<std::ptrdiff_t>(first),
                       b.indices.begin() + static_cast<std::ptrdiff_t>(last));
    out.values.assign(b.values.begin() + static_cast<std::ptrdiff_t>(first),
                      b.values.begin() + static_cast<std::ptrdiff_t>(last));
  }
  out.position = ++position_;
  ++row_;
  return true;
}

void MemorySource::rewind() {
  batch_ = 0;
  row_ = 0;
  position_ = 0;
}

index_t MemorySource::skip(index_t n) {
  ADASKETCH_REQUIRE(n >= 0, "n = " + number_text(n));
  const index_t done = std::min(n, total_ - position_);
  index_t left = done;
  while (left > 0) {
    const auto in_batch = static_cast<index_t>(batches_[batch_].labels.size()) - row_;
    if (left < in_batch) {
      row_ += left;
      break;
    }
    left -= in_batch;
    ++batch_;
    row_ = 0;
  }
  position_ += done;
  return done;
}

}  // namespace adasketch
