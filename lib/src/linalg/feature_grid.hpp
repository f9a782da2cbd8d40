#pragma once
// The process grid of an exact learner (ada-full, full-on) and the moves, with pdgemr2d, between the
// library's feature layout and ScaLAPACK's 2-D block-cyclic layout. Private to lib/src.
//
// Feature layout: an n-vector, n = d·w (w entries per feature, feature-major: K for softmax), split as
// the learner's BlockPartition, rank p holding entries [begin(p)·w, end(p)·w). For a partition of
// equal blocks b (all but the trailing ones, which may be shorter or empty) this is ScaLAPACK's 1-D
// block layout with blocks of b·w (docs/design.md §3), so it has a descriptor and no index lists are
// needed:
//   vectors   n×c matrices on a P×1 grid (rank p at row p), row blocks of b·w: rank p's c columns of
//             its entries, column-major;
//   staging   a symmetric n×n matrix on a 1×P grid, column blocks of b·w: rank p's columns
//             [begin(p)·w, end(p)·w), column-major with leading dimension n, which by symmetry are
//             its rows of width n, item-major: the layout of a StateFields block (a checkpoint that
//             does not depend on the rank count or the grid).
// The square matrices live on an nprow×npcol grid with square blocks (pdsyevd needs MB = NB), and
// vectors on it are n×c matrices with the same blocks (aligned with A's rows; in process column 0
// when c ≤ block).
#include <array>
#include <span>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "blacs_grid.hpp"

namespace adasketch {

class FeatureGrid {
 public:
  /// Collective over comm. n = partition.dim()·width. `rows`: process rows of the grid, dividing
  /// comm.size() (0: near_square_rows); `block`: its square blocks (0: automatic, ⌈n/(2·max(nprow,
  /// npcol))⌉ clamped to [1, 64], so that a small matrix still spreads over every process). Throws
  /// InvalidArgument before any collective call, on every rank alike (the checks read only values
  /// every rank shares), unless the partition has equal blocks (see above) and rows, block ≥ 0.
  FeatureGrid(const Communicator& comm, const BlockPartition& partition, index_t width, int rows, int block);

  int n() const noexcept { return n_; }
  int block() const noexcept { return block_; }
  int nprow() const noexcept { return grid_.nprow(); }
  int npcol() const noexcept { return grid_.npcol(); }
  /// Entries of a vector this rank holds in the feature layout: partition.size(rank)·width.
  int local_size() const noexcept { return local_size_; }

  /// A zeroed n×n matrix on the grid.
  DistributedMatrix square() const { return DistributedMatrix(grid_, n_, n_, block_, block_); }
  /// A zeroed n×cols matrix on the grid: cols vectors (in process column 0 when cols ≤ block()).
  DistributedMatrix vectors(int cols) const { return DistributedMatrix(grid_, n_, cols, block_, block_); }
  /// Global row of local row `local_row` of a grid matrix on this process (vectors: in process column 0).
  int global_row(int local_row) const noexcept;

  /// Collective. dst = the n×c matrix (c = dst's columns) whose rows this rank holds in `local`,
  /// column-major, local_size() entries per column.
  void to_grid(std::span<const double> local, DistributedMatrix& dst) const;
  /// Collective. The reverse: local = this rank's rows of src, column-major.
  void to_features(const DistributedMatrix& src, std::span<double> local) const;
  /// Collective. local = this rank's rows [begin·w, end·w) of the symmetric n×n matrix m (its
  /// columns), local_size()·n entries, row-major.
  void stage(const DistributedMatrix& m, std::span<double> local) const;
  /// Collective. The reverse: m = the symmetric matrix whose rows the ranks hold in `local`.
  void unstage(std::span<const double> local, DistributedMatrix& m) const;

 private:
  struct Shape {
    int rows = 1, cols = 1, n = 0, block = 1, feature_block = 1, local_size = 0;
  };
  static Shape checked_shape(const Communicator& comm, const BlockPartition& partition, index_t width, int rows,
                             int block);
  FeatureGrid(const Communicator& comm, const Shape& shape);
  /// Descriptor of an n×cols matrix in the feature layout (staging: the n×n staging layout).
  std::array<int, 9> feature_descriptor(int cols, bool staging) const;
  /// Throws InvalidArgument unless a local array of `size` entries holds this rank's rows of cols columns.
  void check_local(std::size_t size, int cols) const;

  BlacsGrid grid_;     ///< nprow×npcol: the square matrices and the vectors they multiply
  BlacsGrid rows_;     ///< P×1: vectors in the feature layout
  BlacsGrid columns_;  ///< 1×P: a square matrix staged in the feature layout
  int n_ = 0, block_ = 0;
  int feature_block_ = 0;  ///< b·w
  int local_size_ = 0;
  mutable double empty_ = 0.0;  ///< the local array of a rank without entries (never read)
};

}  // namespace adasketch
