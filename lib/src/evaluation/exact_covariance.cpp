#include "adasketch/evaluation/exact_covariance.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <string>

#include "adasketch/error.hpp"
#include "../linalg/blacs_grid.hpp"
#include "../linalg/scalapack_api.hpp"

namespace adasketch {

namespace {

constexpr int kOne = 1;
/// Largest block of the eigensolver grid (a usual ScaLAPACK blocking factor for pdsytrd).
constexpr int kMaxBlock = 64;

/// Validated before any collective call, so that every rank throws alike.
const BlockPartition& checked_partition(const BlockPartition& partition, const Communicator& comm) {
  partition.require_parts_for(comm);
  ADASKETCH_REQUIRE(partition.is_uniform(), "the exact covariance needs a uniform partition (ScaLAPACK's 1×P layout)");
  return partition;
}

int checked_int(index_t value, const char* what) {
  ADASKETCH_REQUIRE(value >= 1 && value <= INT_MAX, std::string(what) + " = " + number_text(value));
  return static_cast<int>(value);
}

/// tail[k] = Σ_{i≥k} max(λ_i, 0) for λ descending and k = 0 .. min(d, ℓ): ‖A − A_k‖_F² (FD bound).
std::vector<double> tail_sums(const std::vector<double>& lambda, index_t ell) {
  const std::size_t d = lambda.size(), kmax = std::min<std::size_t>(d, static_cast<std::size_t>(ell));
  std::vector<double> suffix(d + 1, 0.0);  // summed from the smallest eigenvalue up
  for (std::size_t i = d; i-- > 0;) suffix[i] = suffix[i + 1] + std::max(lambda[i], 0.0);
  return std::vector<double>(suffix.begin(), suffix.begin() + static_cast<std::ptrdiff_t>(kmax + 1));
}

}  // namespace

double SketchError::fd_bound(index_t k, index_t ell, bool regularized) const {
  ADASKETCH_REQUIRE(k >= 0 && k < ell, "k = " + number_text(k) + ", ell = " + number_text(ell));
  // tail stops at min(d, ℓ); beyond it the tail is 0 only when it already reached 0 (k ≥ d).
  const auto ku = static_cast<std::size_t>(k);
  ADASKETCH_REQUIRE(ku < tail.size() || (!tail.empty() && tail.back() == 0.0),
                    "tail has " + number_text(tail.size()) + " entries");
  const double bound = (ku < tail.size() ? tail[ku] : 0.0) / static_cast<double>(ell - k);
  return regularized ? bound / 2.0 : bound;  // RFD paper Thm. 3, eq. (6) (α₀ = 0): half the FD bound
}

/// C = AᵀA lives on a near-square pr×pc grid with nb×nb blocks (lower triangle only). Rows arrive in
/// the 1×P layout of BlockPartition (block size ceil(d/P) = ScaLAPACK NB); batch_rows of them are
/// buffered, moved to the square grid with pdgemr2d and added with one pdsyrk.
class ExactCovariance::Impl {
 public:
  Impl(const Communicator& comm, const BlockPartition& partition, index_t batch_rows)
      : comm_(comm),
        partition_(checked_partition(partition, comm)),
        d_(checked_int(partition.dim(), "dim")),
        batch_(checked_int(batch_rows, "batch_rows")),
        slices_(comm.get(), 1, comm.size()),
        grid_(comm.get(), near_square_rows(comm.size()), comm.size() / near_square_rows(comm.size())),
        nb_(std::clamp((d_ + 2 * grid_.npcol() - 1) / (2 * grid_.npcol()), 1, kMaxBlock)),
        rows_slices_(slices_, batch_, d_, batch_, static_cast<int>(partition.block_size())),
        rows_grid_(grid_, batch_, d_, nb_, nb_),
        cov_(grid_, d_, d_, nb_, nb_) {
    // pdsyev workspace query (lwork = -1); the size depends only on d, nb and the grid.
    std::vector<double> w(static_cast<std::size_t>(d_));
    double query = 0.0;
    const int lwork = -1;
    int info = 0;
    pdsyev_("N", "L", &d_, cov_.data(), &kOne, &kOne, cov_.desc(), w.data(), cov_.data(), &kOne, &kOne,
            cov_.desc(), &query, &lwork, &info, 1, 1);
    if (info != 0) throw LapackError("pdsyev (workspace query)", info);
    work_.resize(static_cast<std::size_t>(std::max(query, 1.0)));
  }

  void add(const LocalRow& a) {
    const int dp = rows_slices_.local_cols();
    const auto values = a.values();
    const std::size_t lld = static_cast<std::size_t>(rows_slices_.lld());
    double* row = rows_slices_.data() + buffered_;  // row `buffered_` of the batch; entry j at j·lld
    if (a.is_dense()) {
      ADASKETCH_REQUIRE(values.size() == static_cast<std::size_t>(dp),
                        "dense row has " + number_text(values.size()) + " local entries, expected " +
                            number_text(dp));
      for (int j = 0; j < dp; ++j) row[j * lld] = values[j];
    } else {
      const auto indices = a.indices();
      ADASKETCH_REQUIRE(indices.size() == values.size(), "sparse row has " + number_text(indices.size()) +
                                                             " indices and " + number_text(values.size()) + " values");
      for (const index_t j : indices)
        ADASKETCH_REQUIRE(j >= 0 && j < dp, "local index " + number_text(j) + " outside [0, " + number_text(dp) + ")");
      for (int j = 0; j < dp; ++j) row[j * lld] = 0.0;
      for (std::size_t k = 0; k < indices.size(); ++k) row[static_cast<std::size_t>(indices[k]) * lld] += values[k];
    }
    cov_eigenvalues_.reset();
    if (++buffered_ == batch_) flush();
  }

  void flush() {
    if (buffered_ == 0) return;
    const double one = 1.0;
    redistribute(buffered_, d_, rows_slices_, rows_grid_, slices_);
    pdsyrk_("L", "T", &d_, &buffered_, &one, rows_grid_.data(), &kOne, &kOne, rows_grid_.desc(), &one,
            cov_.data(), &kOne, &kOne, cov_.desc());
    buffered_ = 0;
  }

  const std::vector<double>& covariance_eigenvalues() {
    flush();
    if (!cov_eigenvalues_) {
      DistributedMatrix c = cov_;
      cov_eigenvalues_ = eigenvalues(c);
    }
    return *cov_eigenvalues_;
  }

  SketchError evaluate(const Sketch& sketch) {
    ADASKETCH_REQUIRE(sketch.partition().dim() == partition_.dim() && sketch.partition().parts() == partition_.parts(),
                      "sketch of dimension " + number_text(sketch.partition().dim()) + " over " +
                          number_text(sketch.partition().parts()) + " ranks");
    const std::vector<double>& lambda = covariance_eigenvalues();
    // E = (α₀I + AᵀA) − (αI + BᵀB) (RFD paper §5.1): B (R×d) arrives feature-major, i.e.
    // column-major R×d_p in the 1×P layout.
    const int r = checked_int(sketch.rows(), "sketch rows");
    DistributedMatrix b_slices(slices_, r, d_, r, static_cast<int>(partition_.block_size()));
    sketch.copy_local_block(b_slices.local());
    DistributedMatrix b_grid(grid_, r, d_, nb_, nb_);
    redistribute(r, d_, b_slices, b_grid, slices_);
    DistributedMatrix e = cov_;
    const double minus_one = -1.0, one = 1.0;
    pdsyrk_("L", "T", &d_, &r, &minus_one, b_grid.data(), &kOne, &kOne, b_grid.desc(), &one, e.data(), &kOne,
            &kOne, e.desc());
    e.add_to_diagonal(sketch.alpha0() - sketch.alpha());
    const std::vector<double> mu = eigenvalues(e);

    SketchError out;
    out.a_norm2 = std::max(lambda.front(), 0.0);
    out.max_eigenvalue = mu.front();
    out.min_eigenvalue = mu.back();
    out.spectral_error = std::max(std::abs(out.min_eigenvalue), std::abs(out.max_eigenvalue));
    out.relative_error = out.a_norm2 > 0.0 ? out.spectral_error / out.a_norm2 : 0.0;
    out.tail = tail_sums(lambda, sketch.ell());
    return out;
  }

 private:
  /// All eigenvalues of the symmetric matrix in a's lower triangle, descending; destroys a.
  std::vector<double> eigenvalues(DistributedMatrix& a) {
    const auto local = a.local();
    const bool finite = std::all_of(local.begin(), local.end(), [](double x) { return std::isfinite(x); });
    if (comm_.allreduce_max(finite ? 0.0 : 1.0) > 0.0)
      throw NumericError("ExactCovariance: non-finite entry in the covariance (a non-finite row was added)");
    std::vector<double> w(static_cast<std::size_t>(d_));
    const int lwork = static_cast<int>(work_.size());
    int info = 0;
    pdsyev_("N", "L", &d_, a.data(), &kOne, &kOne, a.desc(), w.data(), a.data(), &kOne, &kOne, a.desc(),
            work_.data(), &lwork, &info, 1, 1);
    if (info != 0) throw LapackError("pdsyev", info);
    std::reverse(w.begin(), w.end());
    return w;
  }

  Communicator comm_;
  BlockPartition partition_;
  int d_, batch_;
  BlacsGrid slices_;  // 1×P: rank p holds feature block p, the layout of every sketch
  BlacsGrid grid_;    // near-square grid of C and of the eigensolver
  int nb_;            // block size on grid_: ≤ 64, small enough that small d still spreads over ranks
  DistributedMatrix rows_slices_, rows_grid_;  // batch×d row buffer in both layouts
  DistributedMatrix cov_;                      // lower triangle of AᵀA
  int buffered_ = 0;
  std::vector<double> work_;  // pdsyev workspace
  std::optional<std::vector<double>> cov_eigenvalues_;  // of AᵀA, until the next add()
};

ExactCovariance::ExactCovariance(const Communicator& comm, const BlockPartition& partition, index_t batch_rows)
    : impl_(std::make_unique<Impl>(comm, partition, batch_rows)) {}

ExactCovariance::~ExactCovariance() = default;

void ExactCovariance::add(const LocalRow& a) {
  impl_->add(a);
  ++rows_;
}

SketchError ExactCovariance::evaluate(const Sketch& sketch) { return impl_->evaluate(sketch); }

std::vector<double> ExactCovariance::covariance_eigenvalues() { return impl_->covariance_eigenvalues(); }

}  // namespace adasketch
