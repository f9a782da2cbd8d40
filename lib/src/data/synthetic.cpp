#include "adasketch/data/synthetic.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/random/philox.hpp"
#include "indexed_source.hpp"
#include "orthonormal_basis.hpp"

namespace adasketch {

namespace {

// Philox streams (seed, stream, counter): the basis uses streams kBasis + j (global row j, counter =
// column); the others are tagged by kind in the low 2 bits: weights (0, j), latent z_t (t, k),
// isotropic noise (t, j). The basis streams sit above 2^62, clear of the tagged ones.
constexpr std::uint64_t kBasis = std::uint64_t{1} << 62;
enum Kind : std::uint64_t { kWeights = 0, kLatent = 1, kNoise = 2 };
std::uint64_t tagged(Kind kind, index_t i) { return static_cast<std::uint64_t>(i) * 4 + kind; }
// Tagged streams of examples t < 2^60 stay below kBasis.
constexpr index_t kMaxExamples = index_t{1} << 60;

void require_stream(index_t examples, index_t skip) {
  ADASKETCH_REQUIRE(skip >= 0 && skip <= kMaxExamples - examples,
                    "skip = " + number_text(skip) + ", examples = " + number_text(examples) + " (skip + examples <= 2^60)");
}

/// x_t = μ·1 + Q diag(s) z_t (+ g_t ~ N(0, I_d) when isotropic), z_t ~ N(0, I_r);
/// y_t = wᵀx_t, or sign(wᵀx_t) for classification, with w Gaussian, ‖w‖ = 1.
struct GaussianModel {
  index_t dim = 1, examples = 1, skip = 0;
  double mean = 0.0;
  std::vector<double> scales;  // s, length r (may be empty)
  bool isotropic = false, sign_labels = false;
  std::uint64_t seed = 1;
};

class GaussianLinearSource final : public detail::IndexedSource {
 public:
  GaussianLinearSource(const Communicator& comm, GaussianModel model)
      : IndexedSource(model.examples),
        comm_(comm),
        model_(std::move(model)),
        partition_(model_.dim, comm.size()),
        rng_(model_.seed) {
    const index_t begin = partition_.begin(comm_.rank()), local = partition_.size(comm_.rank());
    const int r = static_cast<int>(model_.scales.size());
    if (r > 0) basis_ = detail::random_orthonormal_rows(comm_, partition_, r, rng_, kBasis);
    weights_.resize(static_cast<std::size_t>(local));
    double norm2 = 0.0;
    for (index_t j = 0; j < local; ++j) {
      weights_[j] = rng_.normal(tagged(kWeights, 0), static_cast<std::uint64_t>(begin + j));
      norm2 += weights_[j] * weights_[j];
    }
    const double norm = std::sqrt(comm_.allreduce_sum(norm2));
    for (double& w : weights_) w /= norm;
    latent_.resize(model_.scales.size());
  }

  index_t dim() const override { return model_.dim; }
  const BlockPartition& partition() const override { return partition_; }

  bool next(Example& out) override {
    if (!more()) return false;
    const index_t begin = partition_.begin(comm_.rank()), local = partition_.size(comm_.rank());
    const int r = static_cast<int>(latent_.size());
    const index_t t = model_.skip + index();  // the example's index in the seed's sequence
    // Every rank draws the same z_t from counters (t, k) and scales it: c = diag(s) z_t.
    for (int k = 0; k < r; ++k)
      latent_[k] = model_.scales[k] * rng_.normal(tagged(kLatent, t), static_cast<std::uint64_t>(k));
    out.dense = true;
    out.indices.clear();
    out.values.resize(static_cast<std::size_t>(local));
    for (index_t j = 0; j < local; ++j)
      out.values[j] = model_.isotropic ? rng_.normal(tagged(kNoise, t), static_cast<std::uint64_t>(begin + j)) : 0.0;
    if (r > 0 && local > 0)
      cblas_dgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(local), r, 1.0, basis_.data(), r, latent_.data(), 1,
                  1.0, out.values.data(), 1);
    double dot = 0.0;
    for (index_t j = 0; j < local; ++j) {
      out.values[j] += model_.mean;
      dot += weights_[j] * out.values[j];
    }
    dot = comm_.allreduce_sum(dot);  // the one Allreduce per example
    out.label = model_.sign_labels ? (dot >= 0.0 ? 1.0 : -1.0) : dot;
    out.position = advance();
    return true;
  }

 private:
  Communicator comm_;
  GaussianModel model_;
  BlockPartition partition_;
  Philox rng_;
  std::vector<double> basis_;    // this rank's rows of Q, local × r
  std::vector<double> weights_;  // this rank's slice of w
  std::vector<double> latent_;   // diag(s) z_t
};

}  // namespace

std::unique_ptr<ExampleSource> make_low_rank_regression(const Communicator& comm, const LowRankRegressionOptions& options) {
  ADASKETCH_REQUIRE(options.dim >= 1 && options.examples >= 1,
                    "dim = " + number_text(options.dim) + ", examples = " + number_text(options.examples));
  ADASKETCH_REQUIRE(options.lambda0 > 0.0 && std::isfinite(options.lambda0), "lambda0 = " + number_text(options.lambda0));
  ADASKETCH_REQUIRE(options.decay >= 0.0 && std::isfinite(options.decay), "decay = " + number_text(options.decay));
  ADASKETCH_REQUIRE(std::isfinite(options.mean), "mean = " + number_text(options.mean));
  ADASKETCH_REQUIRE(options.rank >= 0 && options.rank <= options.dim, "rank = " + number_text(options.rank));
  require_stream(options.examples, options.skip);
  GaussianModel model;
  model.dim = options.dim;
  model.examples = options.examples;
  model.skip = options.skip;
  model.mean = options.mean;
  model.seed = options.seed;
  // ADA-FD §4.1: x ~ N(μ1, Σ), λ_j(Σ) = λ₀ j^{−α}; Q diag(√λ) z has exactly that covariance.
  const index_t r = options.rank > 0 ? options.rank : std::min<index_t>(options.dim, 500);
  for (index_t j = 1; j <= r; ++j)
    model.scales.push_back(std::sqrt(options.lambda0 * std::pow(static_cast<double>(j), -options.decay)));
  return std::make_unique<GaussianLinearSource>(comm, std::move(model));
}

std::unique_ptr<ExampleSource> make_ill_conditioned_classification(const Communicator& comm,
                                                                   const IllConditionedOptions& options) {
  ADASKETCH_REQUIRE(options.dim >= 1 && options.examples >= 1,
                    "dim = " + number_text(options.dim) + ", examples = " + number_text(options.examples));
  ADASKETCH_REQUIRE(options.condition >= 1.0 && std::isfinite(options.condition),
                    "condition = " + number_text(options.condition));
  ADASKETCH_REQUIRE(options.ill_directions >= 0 && options.ill_directions <= options.dim,
                    "ill_directions = " + number_text(options.ill_directions));
  require_stream(options.examples, options.skip);
  GaussianModel model;
  model.dim = options.dim;
  model.examples = options.examples;
  model.skip = options.skip;
  model.isotropic = true;
  model.sign_labels = true;
  model.seed = options.seed;
  // SON §5.1: x = V diag(λ)^{1/2} z, λ = (1, …, 1, 1 + (κ−1)i/m for i = 1..m), m = ill_directions.
  // Same law with d×m columns only: x = g + Q diag(λ_i − 1)^{1/2} z', g ~ N(0, I_d), Q Haar d×m,
  // whose covariance I + Q diag(λ − 1) Qᵀ has the spectrum λ.
  const index_t m = options.ill_directions;
  for (index_t i = 1; i <= m; ++i)
    model.scales.push_back(std::sqrt((options.condition - 1.0) * static_cast<double>(i) / static_cast<double>(m)));
  return std::make_unique<GaussianLinearSource>(comm, std::move(model));
}

}  // namespace adasketch
