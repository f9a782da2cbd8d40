#pragma once
// The SRHT written out as a dense matrix for the CompAdaGrad tests: the Walsh–Hadamard matrix by
// Sylvester's recursion H_{2m} = [[H_m, H_m], [H_m, −H_m]] (not by the library's bit counting or fast
// transform), with the rows and signs of a detail::Srht (its random choice).
#include <cmath>
#include <cstddef>
#include <vector>

#include "adasketch/types.hpp"
#include "linalg/hadamard.hpp"

namespace adasketch::test {

/// The unnormalized n × n Walsh–Hadamard matrix (entries ±1, row-major), n a power of two.
inline std::vector<double> sylvester_hadamard(index_t n) {
  const auto N = static_cast<std::size_t>(n);
  std::vector<double> h(N * N, 0.0);
  h[0] = 1.0;
  for (std::size_t m = 1; m < N; m *= 2)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        const double v = h[i * N + j];
        h[i * N + j + m] = v;
        h[(i + m) * N + j] = v;
        h[(i + m) * N + j + m] = -v;
      }
  return h;
}

/// Π̃ = R H Σ/√n (k × n, row-major) with the rows r_a and signs σ_j of `srht`.
inline std::vector<double> dense_srht(const detail::Srht& srht) {
  const auto n = static_cast<std::size_t>(srht.dim());
  const auto rows = srht.row_indices();
  const std::vector<double> h = sylvester_hadamard(srht.dim());
  std::vector<double> pi(rows.size() * n);
  const double scale = 1.0 / std::sqrt(static_cast<double>(n));
  for (std::size_t a = 0; a < rows.size(); ++a)
    for (std::size_t j = 0; j < n; ++j)
      pi[a * n + j] = h[static_cast<std::size_t>(rows[a]) * n + j] * srht.sign(static_cast<index_t>(j)) * scale;
  return pi;
}

}  // namespace adasketch::test
