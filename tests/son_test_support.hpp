#pragma once
// Shared by the SON option tests (test_son_options.cpp, test_son_rescaling.cpp, test_son_softmax.cpp)
// and FULL-ON's (test_full_on_options.cpp): small data sets, a rank's slice of an example, the whole
// weights gathered on every rank, dense linear algebra (LAPACK) and the dense SON references the
// tests compare with.
#include <string>
#include <vector>

#include "adasketch/learners/learner.hpp"
#include "test_support.hpp"

namespace adasketch::test {

/// n examples of dimension d, about `density` nonzeros each (N(0, scale²) values), binary labels ±1
/// from a random linear rule and class labels 0..classes−1 from `classes` random linear rules.
struct SonData {
  DenseMatrix x;
  std::vector<double> binary, classes;
};
SonData make_son_data(index_t n, index_t d, double density, unsigned seed, double scale = 1.0, int classes = 3);

/// The calling rank's part of a global row, dense (every local feature) or sparse (the nonzeros at
/// local indices); row() is valid while this object lives.
struct LocalExample {
  std::vector<index_t> idx;
  std::vector<double> val;
  bool dense = true;
  LocalRow row() const { return dense ? LocalRow::dense(val) : LocalRow::sparse(idx, val); }
};
LocalExample slice_row(const std::vector<double>& row, const BlockPartition& p, int rank, bool dense);
std::vector<double> row_of(const DenseMatrix& m, index_t i);

/// The SON variants make_learner knows.
inline const char* const kSonNames[] = {"fd-son", "fast-fd-son", "rp-son", "oja-son", "rfd-son", "fast-rfd-son"};
/// A SON spec: the loss and ℓ given, α = 0.5, C = 1, σ = 0.1, η_t = 0.5/√t, seed 7.
LearnerSpec son_spec(const std::string& algorithm, LossKind loss, index_t ell);
/// Steps `learner` through the rows of x, each rank its slice (dense or sparse); returns the step losses.
std::vector<double> run_rows(Learner& learner, const DenseMatrix& x, const std::vector<double>& labels, bool dense);

/// The learner's whole W (d·K, feature-major) on every rank (collective).
std::vector<double> gather_weights(const Learner& learner);
/// The learner's scores of a global row (collective: predict()).
std::vector<double> predict_row(const Learner& learner, const std::vector<double>& row, bool dense);

double dot(const std::vector<double>& a, const std::vector<double>& b);
/// τ_C(z) = sgn(z) max(|z| − C, 0) (SON Lemma 1).
double tau_c(double z, double C);
/// η_t of a LearnerSpec's schedule.
double eta_at(const LearnerSpec& spec, index_t t);
/// A z = b for a symmetric positive definite n×n row-major A (LAPACK dposv).
std::vector<double> spd_solve(std::vector<double> a, std::vector<double> b, index_t n);
/// y = A x for a row-major n×n A.
std::vector<double> matvec(const std::vector<double>& a, const std::vector<double>& x);
/// The Moore–Penrose pseudo-inverse of a symmetric positive semidefinite n×n row-major A (LAPACK
/// dsyev), eigenvalues ≤ tolerance·λ_max taken as zero.
std::vector<double> pseudo_inverse(std::vector<double> a, index_t n, double tolerance);
/// Lemma 1: argmin_{|wᵀx| ≤ C} ‖w − u‖_A = u − τ_C(uᵀx)/(xᵀA⁻¹x) A⁻¹x for a positive definite A.
std::vector<double> lemma1(const std::vector<double>& u, const std::vector<double>& a, const std::vector<double>& x,
                           double C);
/// Lemma 2 (SON App. B) for a positive semidefinite A with pseudo-inverse `pinv`: x counts as in
/// range(A) when ‖(I − A⁺A)x‖² ≤ range_tolerance·‖x‖². Sets *in_range.
std::vector<double> lemma2(const std::vector<double>& u, const std::vector<double>& a, const std::vector<double>& pinv,
                           const std::vector<double>& x, double C, double range_tolerance, bool* in_range);
/// Steps a binary SON learner through examples [0, x.n) and checks each step against dense SON (Alg. 1
/// lines 5 and 9 with d×d matrices) on the learner's own sketch, read before and after the step:
/// w = Lemma 1 on A_{t−1}, u_{t+1} = w − A_t⁻¹g_t, with A = αI + BᵀB; when α = 0, Lemma 2 and A⁺
/// (SON App. D) with eigenvalues ≤ rank_tolerance·λ_max as zero; with diag_rescale, D_t = D₁ + Σ_{s<t}
/// diag(g_s g_sᵀ), g = ℓ'x (SON §5.2, D₁ = rescale_d1·I), the projection and prediction on
/// D_t^{-1/2}x, the step on D_{t+1}^{-1/2}x (Vowpal Wabbit's order), the weights D^{-1/2}u. Compares the step
/// loss and the weights to `tolerance` after every step (then continues from the learner's weights).
/// Returns the examples whose projection was active with x ∈ range(A) and with x ∉ range(A).
struct ProjectionCounts {
  int in_range = 0, off_range = 0;
};
ProjectionCounts expect_dense_son_on_own_sketch(Learner& learner, const DenseMatrix& x, const std::vector<double>& labels,
                                                bool dense, double tolerance);
/// The KKT multipliers λ of min ½(z − z0)ᵀM⁻¹(z − z0) over |z_k| ≤ C (M K×K row-major) by enumeration
/// of the 3^K assignments of each k to free (λ_k = 0), upper (z_k = C) or lower (z_k = −C), each
/// solved by LAPACK; every KKT point found (a strictly convex QP has exactly one).
std::vector<std::vector<double>> enumerate_box_kkt(const std::vector<double>& M, const std::vector<double>& z0, double C);
/// Steps a SON learner (any K = learner.outputs(), any loss) through examples [0, x.n) alongside dense
/// SON in R^{dK} (feature-major, index j·K + k) and checks the step loss and the weights to
/// `tolerance` after every step: class rows X_k = D^{-1/2}(x ⊗ e_k) (D = I without diag_rescale; with
/// it D_t = D₁ + Σ_{s<t} diag(g_s g_sᵀ), g = x ⊗ ∂ℓ/∂p in the original coordinates, SON §5.2, the step's
/// rows D_{t+1}^{-1/2}(x ⊗ e_k)), K_t = {W :
/// |W_kᵀx| ≤ C ∀k} with the A-norm projection by the enumerated QP (K = 1: Lemma 1), the Newton step
/// u ← w − A_t⁻¹g, weights D^{-1/2}u. A is FULL-ON's αI + Σ(σ + η_s)g_sg_sᵀ (α = spec.alpha0: any learner,
/// the exact one or an FD-family SON with ℓ above the gradients' rank), or, when `own_sketch`, the
/// SketchedNewton learner's αI + BᵀB read before and after each step (then the comparison restarts
/// from the learner's weights at each step). Returns how many examples had 1, 2, …, K active bounds
/// (index = number active).
std::vector<int> expect_dense_son_dk(Learner& learner, const DenseMatrix& x, const std::vector<double>& labels, bool dense,
                                     bool own_sketch, double tolerance);
/// The sketch B (R×d) of a SON learner gathered on every rank, or 0 rows when it has no sketch.
DenseMatrix gather_son_sketch(const Learner& learner);
/// α I + BᵀB (D×D) from a SON learner's sketch (collective).
std::vector<double> son_matrix(const Learner& learner, double alpha);

}  // namespace adasketch::test
