#include "blacs_grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/error.hpp"
#include "scalapack_api.hpp"

namespace adasketch {

int near_square_rows(int processes) noexcept {
  int r = static_cast<int>(std::sqrt(static_cast<double>(processes)));
  while (r > 1 && processes % r != 0) --r;
  return std::max(r, 1);
}

BlacsGrid::BlacsGrid(MPI_Comm comm, int nprow, int npcol) {
  int size = 0, rank = 0;
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  ADASKETCH_REQUIRE(nprow >= 1 && npcol >= 1 && nprow * npcol == size,
                    number_text(nprow) + " x " + number_text(npcol) + " grid on " + number_text(size) +
                        " processes");
  // BLACS shares one system handle per MPI_Comm value: a private duplicate keeps a caller's own
  // handle on `comm` intact when ours is freed. The grid builds its own communicators from it, so
  // both the handle and the duplicate can go right away.
  MPI_Comm dup = MPI_COMM_NULL;
  check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
  const int handle = Csys2blacs_handle(dup);
  context_ = handle;
  Cblacs_gridinit(&context_, "R", nprow, npcol);
  Cfree_blacs_system_handle(handle);
  check_mpi(MPI_Comm_free(&dup), "MPI_Comm_free");
  Cblacs_gridinfo(context_, &nprow_, &npcol_, &myrow_, &mycol_);
  if (nprow_ != nprow || npcol_ != npcol || myrow_ != rank / npcol || mycol_ != rank % npcol) {
    Cblacs_gridexit(context_);
    throw Error("BlacsGrid: Cblacs_gridinit did not place rank " + number_text(rank) + " in row-major order");
  }
  // Combines in a fixed order (repeatable) with one answer on every process (coherent): without
  // them BLACS sums in message-arrival order, so results change from run to run (docs/design.md §5) and
  // pdsyev may see different eigenvalues on different processes.
  constexpr int kTopsRepeat = 15, kTopsCoherent = 16, kOn = 1;  // BLACS_SET's WHAT values (Bdef.h)
  Cblacs_set(context_, kTopsRepeat, &kOn);
  Cblacs_set(context_, kTopsCoherent, &kOn);
}

BlacsGrid::~BlacsGrid() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) Cblacs_gridexit(context_);  // frees the grid's communicators, never MPI itself
}

DistributedMatrix::DistributedMatrix(const BlacsGrid& grid, int m, int n, int mb, int nb)
    : nprow_(grid.nprow()), npcol_(grid.npcol()), myrow_(grid.myrow()), mycol_(grid.mycol()) {
  const int zero = 0, context = grid.context();
  local_rows_ = numroc_(&m, &mb, &myrow_, &zero, &nprow_);
  local_cols_ = numroc_(&n, &nb, &mycol_, &zero, &npcol_);
  const int lld = std::max(1, local_rows_);
  int info = 0;
  descinit_(desc_.data(), &m, &n, &mb, &nb, &zero, &zero, &context, &lld, &info);
  if (info != 0) throw LapackError("descinit", info);
  local_.assign(std::max<std::size_t>(1, static_cast<std::size_t>(lld) * local_cols_), 0.0);
}

void DistributedMatrix::add_to_diagonal(double value) noexcept {
  const int mb = desc_[4], nb = desc_[5], n = std::min(desc_[2], desc_[3]);
  for (int g = 0; g < n; ++g) {
    const int block_row = g / mb, block_col = g / nb;
    if (block_row % nprow_ != myrow_ || block_col % npcol_ != mycol_) continue;
    const int i = (block_row / nprow_) * mb + g % mb, j = (block_col / npcol_) * nb + g % nb;
    local_[static_cast<std::size_t>(j) * lld() + i] += value;
  }
}

void redistribute(int m, int n, const DistributedMatrix& src, DistributedMatrix& dst, const BlacsGrid& all) {
  const int one = 1, context = all.context();
  pdgemr2d_(&m, &n, src.data(), &one, &one, src.desc(), dst.data(), &one, &one, dst.desc(), &context);
}

}  // namespace adasketch
