#pragma once
// The interface every sketch shares (DESIGN.md §2–3). A sketch keeps B ∈ R^{R×d} with
// BᵀB ≈ AᵀA for the rows a_t fed to it (plus αI for the regularized sketches).
//
// Distribution: each rank stores the columns of its feature block, feature-major (a feature's R
// entries contiguous). B is represented as B = diag(row_scale) · Y, where Y is what the rank stores
// (row_scale is all ones except for Oja's sketch, whose stored rows are orthonormal directions).
// Products needed by an insertion are Y·a, so a learner can fold them into the one Allreduce it
// does per example: compute add_local_product() on its own buffer, reduce, call insert().
#include <span>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/comm/state_fields.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

class Sketch {
 public:
  virtual ~Sketch() = default;
  Sketch(const Sketch&) = delete;
  Sketch& operator=(const Sketch&) = delete;

  /// Short method name ("fd", "fast-fd", "rfd", "fast-rfd", "rp", "oja").
  virtual std::string name() const = 0;

  index_t ell() const noexcept { return ell_; }
  /// Rows of the stored buffer: ℓ, or 2ℓ for the fast (doubled-space) variants.
  index_t rows() const noexcept { return rows_; }
  index_t local_dim() const noexcept { return local_dim_; }
  const BlockPartition& partition() const noexcept { return partition_; }
  const Communicator& comm() const noexcept { return comm_; }
  /// Rows inserted so far.
  index_t inserted() const noexcept { return inserted_; }

  /// The Gram BBᵀ, rows()×rows() row-major; identical on every rank.
  std::span<const double> gram() const noexcept { return gram_; }
  /// B = diag(row_scale) · Y; all ones except for Oja's sketch.
  std::span<const double> row_scale() const noexcept { return row_scale_; }
  /// The scalar of αI + BᵀB (regularized FD); 0 for the other sketches.
  virtual double alpha() const noexcept { return 0.0; }
  /// α₀: αI + BᵀB approximates α₀I + AᵀA (regularized FD); 0 for the other sketches.
  virtual double alpha0() const noexcept { return 0.0; }

  /// out[0..rows()) += Y_p a_p, the local part of Y·a (sum over ranks to get Y·a).
  void add_local_product(const LocalRow& a, std::span<double> out) const;
  /// out[0..local_dim()) += Y_pᵀ c for c ∈ R^{rows()}: the local slice of Yᵀc (Bᵀc = Yᵀ(row_scale ∘ c)).
  void add_local_transpose_product(std::span<const double> c, std::span<double> out) const;
  /// Writes the local block of B (not Y), feature-major: out[j*rows() + i] = B[i, begin + j].
  void copy_local_block(std::span<double> out) const;

  /// Inserts row a given ya = Y·a (already summed over ranks, rows() entries) and aa = ‖a‖²
  /// (summed). Collective only when the sketch must re-orthogonalize or shrink.
  void insert(const LocalRow& a, std::span<const double> ya, double aa);
  /// Convenience form: computes Y·a and ‖a‖² with one Allreduce of rows()+1 numbers, then inserts.
  void insert(const LocalRow& a);

  // --- Products and coefficients across an insertion, without touching the stored block. -------
  // A learner keeps Y·z for vectors z it already reduced (its example x) and weights in the lazy
  // form w = w̄ + Yᵀc (DESIGN.md §3); these map both through the last insertion of a.

  /// Whether the next insertion rewrites every stored row (an FD shrink). Before such an insertion
  /// a learner folds Yᵀc into w̄ and sets c = 0, because a shrink cannot be undone on coefficients.
  virtual bool next_insert_restructures() const noexcept { return false; }
  /// Maps yz = Y_old·z to Y_new·z in place, given az = aᵀz, for the last inserted row a.
  virtual void update_product(std::span<double> yz, double az) const = 0;
  /// Maps c to c' in place so that Y_oldᵀc = Y_newᵀc' + β·a, and returns β (the caller adds β·a to
  /// its w̄). Requires c = 0 when the last insertion restructured the sketch.
  virtual double update_coefficients(std::span<double> c) const = 0;

  /// Lists the sketch's complete state (Y, the Gram, row scales, counters, the last insertion's
  /// update data, and the algorithm's own fields, names prefixed "sketch." and by the method) for a
  /// checkpoint; a sketch restored through the views continues exactly as the saved one would.
  void state_fields(StateFields& fields);

 protected:
  /// `partition` splits the sketch's columns over comm (BlockPartition(dim, P), or an interleaved
  /// one for d·K-dimensional rows).
  Sketch(const Communicator& comm, const BlockPartition& partition, index_t ell, index_t rows);

  /// Algorithm-specific insertion; ya and aa are already validated (finite).
  virtual void do_insert(const LocalRow& a, std::span<const double> ya, double aa) = 0;
  /// The algorithm's own state fields (state_fields() lists the base's first).
  virtual void add_state_fields(StateFields& fields) = 0;
  /// Recomputes gram_ = B Bᵀ exactly from the stored rows (local syrk + one Allreduce). Only the
  /// first `active_rows` rows may be non-zero (the rest of the Gram is set to zero without reading
  /// them); -1 means all rows.
  void recompute_gram(index_t active_rows = -1);
  /// The stored Y, feature-major d_p × rows().
  std::span<double> stored() noexcept { return stored_; }
  std::span<const double> stored() const noexcept { return stored_; }
  /// Exchanges the stored block with `other` (same size): installs a block computed out of place.
  void swap_stored(std::vector<double>& other);
  std::span<double> gram_mut() noexcept { return gram_; }
  std::span<double> row_scale_mut() noexcept { return row_scale_; }

 private:
  Communicator comm_;
  BlockPartition partition_;
  index_t ell_, rows_, local_dim_;
  index_t inserted_ = 0;
  std::vector<double> stored_, gram_, row_scale_, reduce_buffer_;
};

}  // namespace adasketch
