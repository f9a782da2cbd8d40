#pragma once
/// @file
/// Text specifications of the synthetic generators (synthetic.hpp), as accepted wherever the drivers
/// take a data file. The syntax, keys and defaults: docs/formats.md, "Data".
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"
#include "adasketch/data/synthetic.hpp"

namespace adasketch {

/// A parsed synthetic spec: the generator's options.
struct SyntheticSpec {
  /// The generator (by the alternative held) and its options.
  std::variant<LowRankRegressionOptions, IllConditionedOptions, SparseClassificationOptions> options;
  bool dim_given = false;  ///< the text had d=

  /// The generator's d.
  index_t dim() const;
  /// The generator's number of examples T.
  index_t examples() const;
  /// Whether the labels are ±1 (classification) rather than real (regression).
  bool sign_labels() const noexcept;
  /// "low-rank-regression", "ill-conditioned" or "sparse-classification".
  const char* generator() const noexcept;
};

/// Whether `text` is meant as a synthetic spec: it starts with "synthetic:". (A file of that name
/// can be given as ./synthetic:...)
bool is_synthetic_spec(std::string_view text) noexcept;

/// Parses a spec strictly: an unknown generator or key, a key given twice, a missing or malformed
/// value, or a value out of range (d, n ≥ 1; lambda0 > 0; decay, skip ≥ 0; 0 ≤ rank ≤ d; kappa ≥ 1;
/// 0 ≤ ill ≤ d; 1 ≤ nnz ≤ d; zipf, noise ≥ 0) throws InvalidArgument "<what>: <the key and the problem>", `what` naming
/// where the text came from. Without d=, d is `default_dim` when it is positive, else the options' default.
SyntheticSpec parse_synthetic_spec(const std::string& text, const std::string& what, index_t default_dim = 0);

/// Collective. The generator's source (make_low_rank_regression, make_ill_conditioned_classification
/// or make_sparse_classification).
std::unique_ptr<ExampleSource> make_synthetic(const Communicator& comm, const SyntheticSpec& spec);

}  // namespace adasketch
