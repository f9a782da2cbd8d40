#pragma once
// A random d×r matrix with orthonormal columns, rows block-partitioned over the ranks (internal to
// the synthetic generators).
#include <cstdint>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/random/philox.hpp"

namespace adasketch::detail {

/// This rank's rows [begin, end) of Q (row-major, size(rank) × r), 1 <= r <= d. The Gaussian entry
/// (j, k) is rng.normal(stream_base + j, k) for global row j, so Q does not depend on the rank count
/// beyond round-off. Orthonormalized by distributed Cholesky QR applied twice (CholQR2).
std::vector<double> random_orthonormal_rows(const Communicator& comm, const BlockPartition& partition, int r,
                                            const Philox& rng, std::uint64_t stream_base);

}  // namespace adasketch::detail
