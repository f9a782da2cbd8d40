#pragma once
// RAII BLACS process grids and block-cyclic matrices for the ScaLAPACK calls of ExactCovariance and of
// the exact learners (docs/design.md §3: the d×d matrices are the one place ScaLAPACK is used).
// Private to lib/src.
#include <mpi.h>

#include <array>
#include <span>
#include <vector>

namespace adasketch {

/// The rows pr of the most nearly square grid pr × pc = processes with pr ≤ pc (ScaLAPACK's
/// eigensolvers prefer it).
int near_square_rows(int processes) noexcept;

/// An nprow×npcol BLACS grid over every process of a communicator, ranks in row-major order
/// (rank r sits at (r / npcol, r % npcol)). Collective to create; released with Cblacs_gridexit.
class BlacsGrid {
 public:
  BlacsGrid(MPI_Comm comm, int nprow, int npcol);
  ~BlacsGrid();
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;

  int context() const noexcept { return context_; }
  int nprow() const noexcept { return nprow_; }
  int npcol() const noexcept { return npcol_; }
  int myrow() const noexcept { return myrow_; }
  int mycol() const noexcept { return mycol_; }

 private:
  int context_ = -1;
  int nprow_ = 0, npcol_ = 0, myrow_ = -1, mycol_ = -1;
};

/// The calling process's part of an m×n matrix distributed mb×nb block-cyclically over a grid
/// (first block on process (0, 0)), stored column-major with leading dimension lld() >= 1.
class DistributedMatrix {
 public:
  /// Zero-initialized. Throws LapackError (descinit) on an invalid descriptor.
  DistributedMatrix(const BlacsGrid& grid, int m, int n, int mb, int nb);

  int local_rows() const noexcept { return local_rows_; }
  int local_cols() const noexcept { return local_cols_; }
  int lld() const noexcept { return desc_[8]; }
  const int* desc() const noexcept { return desc_.data(); }
  /// Never null, even when the process holds no entries (ScaLAPACK dereferences nothing then).
  double* data() noexcept { return local_.data(); }
  const double* data() const noexcept { return local_.data(); }
  /// The lld() × local_cols() local entries.
  std::span<double> local() noexcept { return {local_.data(), static_cast<std::size_t>(lld()) * local_cols_}; }
  std::span<const double> local() const noexcept {
    return {local_.data(), static_cast<std::size_t>(lld()) * local_cols_};
  }
  /// A(i, i) += value for every global diagonal entry this process holds.
  void add_to_diagonal(double value) noexcept;

 private:
  std::array<int, 9> desc_{};
  int nprow_, npcol_, myrow_, mycol_;
  int local_rows_ = 0, local_cols_ = 0;
  std::vector<double> local_;
};

/// Collective over `all`, a grid containing every process of both layouts (pdgemr2d):
/// dst(0:m, 0:n) = src(0:m, 0:n).
void redistribute(int m, int n, const DistributedMatrix& src, DistributedMatrix& dst, const BlacsGrid& all);

}  // namespace adasketch
