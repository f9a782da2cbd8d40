#include "orthonormal_basis.hpp"

#include <cblas.h>

#include <algorithm>
#include <string>

#include "adasketch/error.hpp"
#include "adasketch/linalg/symmetric_eigen.hpp"

namespace adasketch::detail {

std::vector<double> random_orthonormal_rows(const Communicator& comm, const BlockPartition& partition, int r,
                                            const Philox& rng, std::uint64_t stream_base) {
  ADASKETCH_REQUIRE(r >= 1 && r <= partition.dim(), "r = " + number_text(r) + ", d = " + number_text(partition.dim()));
  const index_t begin = partition.begin(comm.rank()), rows = partition.size(comm.rank());
  const auto width = static_cast<std::size_t>(r);
  std::vector<double> q(static_cast<std::size_t>(rows) * width);
  for (index_t i = 0; i < rows; ++i)
    for (std::size_t k = 0; k < width; ++k)
      q[static_cast<std::size_t>(i) * width + k] = rng.normal(stream_base + static_cast<std::uint64_t>(begin + i), k);
  // Cholesky QR (Q ← Q L⁻ᵀ with L Lᵀ = QᵀQ); the second pass restores orthogonality to round-off
  // (Fukaya et al., "CholeskyQR2", 2014). The r×r Gram is summed over the ranks.
  std::vector<double> gram(width * width);
  for (int pass = 0; pass < 2; ++pass) {
    std::fill(gram.begin(), gram.end(), 0.0);
    if (rows > 0)
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, r, static_cast<int>(rows), 1.0, q.data(), r, 0.0, gram.data(), r);
    comm.allreduce_sum(gram);
    cholesky_lower(r, gram);
    if (rows > 0)
      cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, static_cast<int>(rows), r, 1.0,
                  gram.data(), r, q.data(), r);
  }
  return q;
}

}  // namespace adasketch::detail
