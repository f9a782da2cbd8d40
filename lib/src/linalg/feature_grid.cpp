#include "feature_grid.hpp"

#include <algorithm>
#include <climits>
#include <string>

#include "adasketch/error.hpp"
#include "scalapack_api.hpp"

namespace adasketch {

namespace {

constexpr int kOne = 1;
constexpr int kMaxBlock = 64;  // a usual ScaLAPACK blocking factor

/// b, the equal block of the partition (the trailing blocks may be shorter or empty), or throws.
index_t equal_block(const BlockPartition& partition) {
  if (partition.is_uniform()) return partition.block_size();
  const index_t b = partition.size(0), d = partition.dim();
  if (!partition.has_equal_blocks())
    throw InvalidArgument("the exact learners need a partition of equal blocks (ScaLAPACK's 1-D block layout): with "
                          "b features on rank 0, rank p must hold features [min(p·b, d), min((p+1)·b, d)); here b = " +
                          number_text(b) + ", d = " + number_text(d));
  return b;
}

}  // namespace

// Every check reads values each rank shares (the partition, width, rows, block, comm.size()), so each
// rank throws alike before the grids' collective construction.
FeatureGrid::Shape FeatureGrid::checked_shape(const Communicator& comm, const BlockPartition& partition, index_t width,
                                              int rows, int block) {
  partition.require_parts_for(comm);
  const int P = comm.size();
  if (rows < 0 || (rows > 0 && P % rows != 0))
    throw InvalidArgument("the ScaLAPACK process grid's rows (grid rows = " + number_text(rows) +
                          ") must divide the rank count " + number_text(P) + " (0 picks the most nearly square grid)");
  ADASKETCH_REQUIRE(block >= 0, "block = " + number_text(block));
  ADASKETCH_REQUIRE(width >= 1 && partition.dim() <= INT_MAX / width,
                    "d·K = " + number_text(partition.dim()) + " × " + number_text(width) +
                        " exceeds ScaLAPACK's 32-bit indices");
  Shape s;
  s.rows = rows == 0 ? near_square_rows(P) : rows;
  s.cols = P / s.rows;
  s.n = static_cast<int>(partition.dim() * width);
  s.feature_block = static_cast<int>(std::min<index_t>(equal_block(partition) * width, s.n));
  const int spread = 2 * std::max(s.rows, s.cols);
  s.block = block > 0 ? std::min(block, s.n) : std::clamp((s.n + spread - 1) / spread, 1, kMaxBlock);
  s.local_size = static_cast<int>(partition.size(comm.rank()) * width);
  return s;
}

FeatureGrid::FeatureGrid(const Communicator& comm, const BlockPartition& partition, index_t width, int rows, int block)
    : FeatureGrid(comm, checked_shape(comm, partition, width, rows, block)) {}

FeatureGrid::FeatureGrid(const Communicator& comm, const Shape& s)
    : grid_(comm.get(), s.rows, s.cols),
      rows_(comm.get(), comm.size(), 1),
      columns_(comm.get(), 1, comm.size()),
      n_(s.n),
      block_(s.block),
      feature_block_(s.feature_block),
      local_size_(s.local_size) {}

int FeatureGrid::global_row(int local_row) const noexcept {
  return ((local_row / block_) * grid_.nprow() + grid_.myrow()) * block_ + local_row % block_;
}

std::array<int, 9> FeatureGrid::feature_descriptor(int cols, bool staging) const {
  std::array<int, 9> desc{};
  const int zero = 0;
  // Vectors: row blocks b·w on the P×1 grid. Staging: column blocks b·w on the 1×P grid.
  const int mb = staging ? n_ : feature_block_, nb = staging ? feature_block_ : cols;
  const int lld = staging ? n_ : std::max(1, local_size_);
  const int context = staging ? columns_.context() : rows_.context();
  int info = 0;
  descinit_(desc.data(), &n_, &cols, &mb, &nb, &zero, &zero, &context, &lld, &info);
  if (info != 0) throw LapackError("descinit (feature layout)", info);
  return desc;
}

void FeatureGrid::check_local(std::size_t size, int cols) const {
  const std::size_t needed = static_cast<std::size_t>(local_size_) * static_cast<std::size_t>(cols);
  ADASKETCH_REQUIRE(size == needed, "local.size() = " + number_text(size) + ", expected " + number_text(needed));
}

void FeatureGrid::to_grid(std::span<const double> local, DistributedMatrix& dst) const {
  const int cols = dst.desc()[3];
  const auto desc = feature_descriptor(cols, false);
  check_local(local.size(), cols);
  const double* src = local.empty() ? &empty_ : local.data();  // pdgemr2d reads nothing of an empty block
  const int context = rows_.context();  // every process of both layouts
  pdgemr2d_(&n_, &cols, src, &kOne, &kOne, desc.data(), dst.data(), &kOne, &kOne, dst.desc(), &context);
}

void FeatureGrid::to_features(const DistributedMatrix& src, std::span<double> local) const {
  const int cols = src.desc()[3];
  const auto desc = feature_descriptor(cols, false);
  check_local(local.size(), cols);
  double* dst = local.empty() ? &empty_ : local.data();
  const int context = rows_.context();
  pdgemr2d_(&n_, &cols, src.data(), &kOne, &kOne, src.desc(), dst, &kOne, &kOne, desc.data(), &context);
}

void FeatureGrid::stage(const DistributedMatrix& m, std::span<double> local) const {
  const auto desc = feature_descriptor(n_, true);
  check_local(local.size(), n_);
  double* dst = local.empty() ? &empty_ : local.data();
  const int context = rows_.context();
  pdgemr2d_(&n_, &n_, m.data(), &kOne, &kOne, m.desc(), dst, &kOne, &kOne, desc.data(), &context);
}

void FeatureGrid::unstage(std::span<const double> local, DistributedMatrix& m) const {
  const auto desc = feature_descriptor(n_, true);
  check_local(local.size(), n_);
  const double* src = local.empty() ? &empty_ : local.data();
  const int context = rows_.context();
  pdgemr2d_(&n_, &n_, src, &kOne, &kOne, desc.data(), m.data(), &kOne, &kOne, m.desc(), &context);
}

}  // namespace adasketch
