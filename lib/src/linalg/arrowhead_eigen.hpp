#pragma once
// Eigendecomposition of a positive semidefinite arrowhead matrix in O(n²) (internal; docs/design.md
// §3, "Arrowhead Grams"). A sparse-form FD sketch's Gram after an insertion into its one free row is
// M = [D b; bᵀ β] with D diagonal: M = F Fᵀ for the broken arrow F = [D^{1/2} 0; cᵀ √ρ], c = D^{-1/2} b,
// ρ = β − ‖c‖², so M's eigenpairs are F's squared singular values and left singular vectors. Those are
// the merge step of LAPACK's divide-and-conquer SVD (dlasd2's deflation, dlasd4's secular equation,
// dlasd3's vectors from Löwner's ẑ), done here for one broken arrow.
#include <cstddef>

namespace adasketch::detail {

/// The workspace arrowhead_eigen() needs for an n × n problem: doubles and ints.
std::size_t arrowhead_doubles(int n) noexcept;
std::size_t arrowhead_ints(int n) noexcept;

/// Decomposes the symmetric n × n matrix `a` (column-major, both triangles, n ≥ 2) whose
/// off-diagonal non-zeros all lie in row and column h. Writes the eigenvalues to values (n,
/// ascending) and the eigenvectors to vectors (column-major n × n, eigenvector k in column k).
/// Returns false, with values and vectors unspecified, when `a` is not a positive semidefinite
/// arrowhead as far as round-off can tell (a negative diagonal entry, d_i = 0 with b_i ≠ 0, ρ below
/// −8n·u·max|M_ii|) or the secular solver fails: the caller then uses a general solver.
bool arrowhead_eigen(const double* a, int n, int h, double* values, double* vectors, double* work, int* iwork);

}  // namespace adasketch::detail
