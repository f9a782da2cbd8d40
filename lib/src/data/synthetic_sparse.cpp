#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "adasketch/data/synthetic.hpp"
#include "adasketch/error.hpp"
#include "adasketch/random/philox.hpp"
#include "indexed_source.hpp"

namespace adasketch {

namespace {

// Philox streams: example t's draws use stream 4t + kind (counter: the draw); θ uses stream kTheta
// (counter: the feature), above every example's streams (t < 2^60).
enum Kind : std::uint64_t { kSupport = 0, kLabelNoise = 1 };
constexpr std::uint64_t kTheta = std::uint64_t{1} << 62;
constexpr index_t kMaxExamples = index_t{1} << 60;
__extension__ using Wide = unsigned __int128;  // (k − 1)·a overflows 64 bits once d > 2^32

/// The bounded power law on [1, d + 1) with density ∝ x^{−s}, by its inverse CDF at u ∈ (0, 1),
/// floored: a feature rank in 1..d with P(k) ≈ k^{−s}/H(d, s).
index_t power_law_rank(double u, double s, index_t d) {
  const double top = static_cast<double>(d) + 1.0;
  double x;
  if (s == 0.0)
    x = 1.0 + u * static_cast<double>(d);
  else if (std::abs(s - 1.0) < 1e-12)
    x = std::pow(top, u);
  else
    x = std::pow(1.0 + u * (std::pow(top, 1.0 - s) - 1.0), 1.0 / (1.0 - s));
  return std::clamp(static_cast<index_t>(x), index_t{1}, d);
}

/// A multiplier a ≈ 0.618·d with gcd(a, d) = 1: k ↦ (k − 1)·a mod d is a bijection of 1..d onto
/// 0..d−1 that scatters neighbouring ranks across the feature range.
index_t scatter_multiplier(index_t d) {
  index_t a = std::max<index_t>(1, static_cast<index_t>(0.6180339887498949 * static_cast<double>(d)));
  while (std::gcd(a, d) != 1) ++a;
  return a;
}

class SparseClassificationSource final : public detail::IndexedSource {
 public:
  SparseClassificationSource(const Communicator& comm, const SparseClassificationOptions& options)
      : IndexedSource(options.examples),
        options_(options),
        partition_(options.dim, comm.size()),
        rng_(options.seed),
        begin_(partition_.begin(comm.rank())),
        end_(partition_.end(comm.rank())),
        multiplier_(scatter_multiplier(options.dim)),
        scale_(1.0 / std::sqrt(static_cast<double>(options.nonzeros))) {
    draws_.reserve(static_cast<std::size_t>(options.nonzeros));
  }

  index_t dim() const override { return options_.dim; }
  const BlockPartition& partition() const override { return partition_; }

  bool next(Example& out) override {
    if (!more()) return false;
    const auto t = static_cast<std::uint64_t>(options_.skip + index());
    const index_t d = options_.dim;
    draws_.clear();
    for (index_t k = 0; k < options_.nonzeros; ++k) {
      const double u = rng_.uniform(4 * t + kSupport, static_cast<std::uint64_t>(k));
      const auto rank = static_cast<Wide>(power_law_rank(u, options_.zipf, d) - 1);
      draws_.push_back(static_cast<index_t>(rank * static_cast<Wide>(multiplier_) % static_cast<Wide>(d)));
    }
    std::sort(draws_.begin(), draws_.end());
    out.dense = false;
    out.indices.clear();
    out.values.clear();
    double margin = options_.noise > 0.0 ? options_.noise * rng_.normal(4 * t + kLabelNoise, 0) : 0.0;
    for (std::size_t i = 0; i < draws_.size();) {
      const index_t j = draws_[i];
      std::size_t count = 1;
      while (i + count < draws_.size() && draws_[i + count] == j) ++count;
      i += count;
      const double value = static_cast<double>(count) * scale_;
      margin += rng_.normal(kTheta, static_cast<std::uint64_t>(j)) * value;  // θ_j, drawn on every rank
      if (j >= begin_ && j < end_) {
        out.indices.push_back(j - begin_);
        out.values.push_back(value);
      }
    }
    out.label = margin >= 0.0 ? 1.0 : -1.0;
    out.position = advance();
    return true;
  }

 private:
  SparseClassificationOptions options_;
  BlockPartition partition_;
  Philox rng_;
  index_t begin_, end_, multiplier_;
  double scale_;
  std::vector<index_t> draws_;
};

}  // namespace

std::unique_ptr<ExampleSource> make_sparse_classification(const Communicator& comm,
                                                          const SparseClassificationOptions& options) {
  ADASKETCH_REQUIRE(options.dim >= 1 && options.examples >= 1,
                    "dim = " + number_text(options.dim) + ", examples = " + number_text(options.examples));
  ADASKETCH_REQUIRE(options.nonzeros >= 1 && options.nonzeros <= options.dim,
                    "nonzeros = " + number_text(options.nonzeros) + " (1 <= nonzeros <= d)");
  ADASKETCH_REQUIRE(options.zipf >= 0.0 && std::isfinite(options.zipf), "zipf = " + number_text(options.zipf));
  ADASKETCH_REQUIRE(options.noise >= 0.0 && std::isfinite(options.noise), "noise = " + number_text(options.noise));
  ADASKETCH_REQUIRE(options.skip >= 0 && options.skip <= kMaxExamples - options.examples,
                    "skip = " + number_text(options.skip) + ", examples = " + number_text(options.examples) +
                        " (skip + examples <= 2^60)");
  return std::make_unique<SparseClassificationSource>(comm, options);
}

}  // namespace adasketch
