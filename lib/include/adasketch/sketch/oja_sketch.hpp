#pragma once
// Oja's sketch (SON Alg. 3, eq. (4)):
//   Λ_t = (I − Γ_t) Λ_{t−1} + Γ_t diag(V_{t−1} ĝ_t)²,   V_t = orth(V_{t−1} + Γ_t V_{t−1} ĝ_t ĝ_tᵀ),
//   S_t = (t Λ_t)^{1/2} V_t,   Γ_t = (γ/t) I.
// V is stored (feature-major) and row_scale() = sqrt(tΛ). orth is Gram–Schmidt in row order,
// done as a Cholesky QR: G = V'V'ᵀ = LLᵀ, V ← L⁻¹V'. G is updated in closed form from V ĝ and ‖ĝ‖²
// (no extra communication) and recomputed exactly every `gram_refresh` steps.
#include "adasketch/random/philox.hpp"
#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

struct OjaSketchOptions {
  index_t ell = 10;         ///< Sketch rows ℓ (≥ 1); requires ℓ ≤ d (orthonormal rows).
  std::uint64_t seed = 1;   ///< V_0 is Gaussian from counters (i, global feature), then orthonormalized.
  double gamma = 1.0;       ///< Step scale: Γ_t = (gamma / t) I, gamma in (0, 1].
  /// Recompute V Vᵀ exactly every this many steps; 0 means every ℓ steps.
  index_t gram_refresh = 0;
};

class OjaSketch final : public Sketch {
 public:
  OjaSketch(const Communicator& comm, index_t dim, const OjaSketchOptions& options);
  OjaSketch(const Communicator& comm, const BlockPartition& partition, const OjaSketchOptions& options);
  std::string name() const override { return "oja"; }
  /// V_new = L⁻¹(V_old + q aᵀ): V_new z = L⁻¹(V_old z + q aᵀz); V_oldᵀc = V_newᵀ(Lᵀc) − (qᵀc) a.
  void update_product(std::span<double> yz, double az) const override;
  double update_coefficients(std::span<double> c, std::span<double> lazy, index_t stride) const override;
  const OjaSketchOptions& options() const noexcept { return options_; }
  /// Current eigenvalue estimates Λ (ℓ entries).
  std::span<const double> eigenvalues() const noexcept { return lambda_; }

 private:
  void do_insert(const LocalRow& a, std::span<const double> ya, double aa) override;
  void add_state_fields(StateFields& fields) override;
  /// V ← L⁻¹V with LLᵀ = basis_gram_ (local triangular solve).
  void orthonormalize();
  void refresh_basis_gram();

  OjaSketchOptions options_;
  std::vector<double> lambda_, basis_gram_, q_;
  std::vector<double> factor_;  // L of the last orthonormalization (row-major lower triangular)
};

}  // namespace adasketch
