#pragma once
/// @file
/// The exact d×d covariance AᵀA of streamed rows, held by ScaLAPACK as a 2-D block-cyclic matrix
/// (the one place a d×d matrix exists, docs/design.md §3), and the exact spectral error of a sketch.
#include <memory>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

/// The exact spectral error of a sketch against the rows it was fed (ExactCovariance::evaluate).
struct SketchError {
  /// ‖(α₀I + AᵀA) − (αI + BᵀB)‖₂ = ‖AᵀA − BᵀB − (α − α₀)I‖₂ (α = α₀ = 0 except regularized FD).
  double spectral_error = 0.0;
  double a_norm2 = 0.0;          ///< ‖A‖₂² = λ_max(AᵀA)
  double relative_error = 0.0;   ///< spectral_error / a_norm2 (0 when A = 0)
  double min_eigenvalue = 0.0;   ///< λ_min of the same difference; ≥ −round-off for FD (0 ⪯ AᵀA − BᵀB)
  double max_eigenvalue = 0.0;   ///< λ_max of the same difference
  /// tail[k] = ‖A − A_k‖_F² = Σ_{i>k} λ_i(AᵀA) for k = 0 .. min(d, ℓ)
  std::vector<double> tail;
  /// FD bound ‖A − A_k‖_F²/(ℓ − k) (halved for the regularized sketch) for k < ℓ.
  double fd_bound(index_t k, index_t ell, bool regularized) const;
};

/// The exact covariance AᵀA (d × d, on a 2-D block-cyclic ScaLAPACK grid) of the rows added, to
/// measure sketches against. Built with ADASKETCH_WITH_EVALUATION (version.hpp).
class ExactCovariance {
 public:
  /// Collective. Rows are added as slices of `partition` (the layout every sketch uses).
  /// batch_rows rows are buffered before each distributed rank-k update (pdsyrk/pdgemm).
  ExactCovariance(const Communicator& comm, const BlockPartition& partition, index_t batch_rows = 512);
  ~ExactCovariance();

  /// Collective: every rank calls it for every row (with its own slice).
  void add(const LocalRow& a);
  /// Collective. Exact error of the sketch against the rows added so far: eigenvalues of AᵀA and
  /// of AᵀA − BᵀB − αI from ScaLAPACK (pdsyev / pdsyevd). Throws LapackError on failure.
  SketchError evaluate(const Sketch& sketch);
  /// Collective. All eigenvalues of AᵀA, descending (for tests and reports).
  std::vector<double> covariance_eigenvalues();
  /// Rows added so far.
  index_t rows_added() const noexcept { return rows_; }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  index_t rows_ = 0;
};

}  // namespace adasketch
