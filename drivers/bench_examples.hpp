#pragma once
// The examples adasketch-bench-learners steps its learners on, all in memory before any timing:
// synthetic dense rows, or the rows of a data file.
//
// Synthetic: x_t = z_t/√d with z_t[j] = Philox(seed).normal(t, j) (so ‖x_t‖ ≈ 1 and the losses
// neither saturate nor vanish at any d), labelled y_t = sign(βᵀz_t) (+1 at 0), β_j =
// Philox(seed).normal(2⁶⁴ − 1, j) (a stream no row uses): a fixed random linear classifier, so every
// loss is defined (±1 labels; regression losses fit them as numbers). The same for every rank count.
// Sparse synthetic rows (nnz = s > 0): s positions j_k = ⌊d·u(t, k)⌋ (Philox uniforms of a stream
// of their own; a repeated position is kept once) with values z_t[j_k] = normal(t, 2⁶² + k)/√s,
// labelled sign(βᵀz_t) the same way: random supports, the same rows at every rank count.
// A pool of rows is generated once and cycled (example t is pool row t mod pool), or with no pool
// each example is generated just before its step.
// File: LIBSVM text or dense binary (open_data), every example read into memory (sparse rows stay
// sparse, each rank keeping its own features) and cycled.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/example.hpp"
#include "adasketch/random/philox.hpp"
#include "data_input.hpp"

namespace adasketch::driver {

class BenchExamples {
 public:
  /// Collective. `pool` synthetic rows of dimension `dim` (pool = 0: generated one at a time by at()),
  /// dense (nnz = 0) or with `nnz` random non-zeros each (sparse rows).
  static BenchExamples synthetic(const Communicator& comm, index_t dim, std::uint64_t seed, index_t pool,
                                 index_t nnz = 0);
  /// Collective. Every example of `path`; `dim` as for open_data (0: from the file). `seen`: on the
  /// features that occur in it (train --features seen), numbered as CompactSource numbers them.
  static BenchExamples from_file(const Communicator& comm, const std::string& path, index_t dim, bool seen = false);

  /// The learner's d: the data's, or the seen features'.
  index_t dim() const noexcept { return partition_.dim(); }
  /// The data's d.
  index_t original_dim() const noexcept { return dim_; }
  /// The split of dim() over the ranks, for make_learner.
  const BlockPartition& partition() const noexcept { return partition_; }
  /// "synthetic", or the file's format ("libsvm", "dense-binary").
  const std::string& format() const noexcept { return format_; }
  /// The name used in label errors: the file, or "synthetic rows".
  const std::string& name() const noexcept { return name_; }
  /// Rows held in memory (the pool or the file's examples); 0 when generated one at a time.
  index_t stored() const noexcept { return fresh_ ? 0 : static_cast<index_t>(rows_.size()); }
  /// The smallest and largest label (of the file, or ±1), for LabelMap::infer.
  const LabelRange& labels() const noexcept { return labels_; }

  /// Example t (t ≥ 0): stored row t mod stored(). Collective (one Allreduce, for the label) when
  /// rows are generated one at a time: call it outside timed regions.
  const Example& at(index_t t);

 private:
  BenchExamples(const Communicator& comm, index_t dim)
      : comm_(comm), dim_(dim), partition_(dim, comm.size()), rng_(0) {}
  /// Fills rows_[slot] with synthetic row t.
  void generate(index_t t, std::size_t slot);

  Communicator comm_;
  index_t dim_;  ///< the data's d (the synthetic rows are generated in it)
  BlockPartition partition_;
  std::string format_, name_;
  LabelRange labels_;
  Philox rng_;
  bool fresh_ = false;
  index_t nnz_ = 0;                            ///< sparse rows: non-zeros per row (0: dense rows)
  std::vector<std::pair<index_t, double>> entries_;  ///< sparse row scratch: (global index, value)
  std::vector<double> beta_;  ///< β on this rank's features (synthetic rows)
  std::vector<Example> rows_;
};

}  // namespace adasketch::driver
