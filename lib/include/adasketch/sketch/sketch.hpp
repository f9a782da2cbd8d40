#pragma once
/// @file
/// The interface every sketch shares (Sketch), and its forms (docs/design.md §2–3, §6).
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/io/state_fields.hpp"
#include "adasketch/linalg/page_buffer.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/types.hpp"

namespace adasketch {

namespace detail {
class TouchedSet;
}

/// How a sketch stores B (see Sketch).
enum class SketchForm { dense, sparse };
/// "dense" or "sparse".
std::string to_string(SketchForm form);
/// The inverse of to_string (types.hpp).
template <>
SketchForm from_string<SketchForm>(std::string_view text);

/// A learner's choice of form: `automatic` takes the sparse form if the first example it steps on
/// is a sparse row (LIBSVM input, LocalRow::sparse), else the dense form.
enum class FormChoice { automatic, dense, sparse };
/// "auto", "dense" or "sparse".
std::string to_string(FormChoice choice);
/// The inverse of to_string (types.hpp).
template <>
FormChoice from_string<FormChoice>(std::string_view text);

/// Base of the sketches (FrequentDirections, RandomProjection, OjaSketch; built by make_sketch). A
/// sketch keeps B ∈ R^{R×d} with BᵀB ≈ AᵀA for the rows a_t fed to it (plus αI for the regularized
/// sketches).
///
/// Representation: B = M·Z, where Z ∈ R^{R_z×d} is the stored basis and M ∈ R^{R×R_z} a small mixing
/// matrix replicated on every rank. Each rank stores the columns of Z of its feature block,
/// feature-major (a feature's R_z entries contiguous), so a sparse row's product Z·a reads s short
/// rows. Two forms (SketchForm):
/// - dense: R_z = R and M = diag(row scales): B's rows are stored explicitly (Oja's sketch scales
///   orthonormal rows); an FD shrink rewrites every stored row, O(R²d/P). Best for dense rows.
/// - sparse: Z changes only on the support of the inserted rows; shrinks, re-orthonormalizations
///   and rotations act on M (SON §4 and App. G–H: B = (D F Z; G)). A sparse row costs time
///   independent of d; a rare exact refresh (rebase) costs O(R²d/P).
///
/// Both forms give the same B up to round-off.
///
/// Learners keep weights lazily as w = w̄ + Zᵀc with c ∈ R^{R_z} (docs/design.md §3): products Z·x come
/// from the one Allreduce a learner does per example (add_local_product on its own buffer), B·x is
/// then mix(Z·x), and Bᵀv = Zᵀ·mix_transpose(v). Before an insertion that rewrites every stored row a
/// learner folds, w̄ += Zᵀc (fold_coefficients); a sketch may defer that sum over the features to
/// settle(), which a learner calls before it reads w̄ on a row's features (the sparse FD form).
///
/// Unless marked otherwise, a member is local (no communication).
class Sketch {
 public:
  virtual ~Sketch();
  Sketch(const Sketch&) = delete;
  Sketch& operator=(const Sketch&) = delete;

  /// Short method name ("fd", "fast-fd", "rfd", "fast-rfd", "rp", "oja").
  virtual std::string name() const = 0;
  /// The form B is stored in.
  SketchForm form() const noexcept { return form_; }

  /// ℓ, the sketch size.
  index_t ell() const noexcept { return ell_; }
  /// R, the rows of B: ℓ, or 2ℓ for the fast (doubled-space) variants.
  index_t rows() const noexcept { return rows_; }
  /// R_z, the rows of the stored basis Z (R for the dense form).
  index_t basis_rows() const noexcept { return basis_rows_; }
  /// This rank's columns d_p (features of its block).
  index_t local_dim() const noexcept { return local_dim_; }
  /// The split of the columns over the ranks.
  const BlockPartition& partition() const noexcept { return partition_; }
  /// The communicator of the collective members.
  const Communicator& comm() const noexcept { return comm_; }
  /// Rows inserted so far.
  index_t inserted() const noexcept { return inserted_; }

  /// The Gram BBᵀ, rows()×rows() row-major; identical on every rank.
  std::span<const double> gram() const noexcept { return gram_; }
  /// The scalar of αI + BᵀB (regularized FD); 0 for the other sketches.
  virtual double alpha() const noexcept { return 0.0; }
  /// Sparse form: the rebases so far (Z rewritten as explicit B, a learner folding first); 0 for
  /// sketches that never rebase.
  virtual index_t rebases() const noexcept { return 0; }
  /// α₀: αI + BᵀB approximates α₀I + AᵀA (regularized FD); 0 for the other sketches.
  virtual double alpha0() const noexcept { return 0.0; }
  /// Regularized FD: takes α₀ in place of the one it was built with, and α = α₀ (what α is before a
  /// row with a nonzero norm: a learner's data scale, Learner::on_data_scale; a checkpoint's fields
  /// then restore α). The other sketches have no α.
  virtual void set_alpha0(double alpha0) { (void)alpha0; }

  /// out[0..rows()) = M z for z ∈ R^{basis_rows()}: B a from Z a.
  virtual void mix(std::span<const double> z, std::span<double> out) const;
  /// out[0..basis_rows()) = Mᵀ v for v ∈ R^{rows()}: Bᵀv = Zᵀ(Mᵀv).
  virtual void mix_transpose(std::span<const double> v, std::span<double> out) const;

  /// out[0..basis_rows()) += Z_p a_p, the local part of Z·a (sum over ranks to get Z·a).
  virtual void add_local_product(const LocalRow& a, std::span<double> out) const;
  /// out[0..local_dim()) += Z_pᵀ c for c ∈ R^{basis_rows()}: the local slice of Zᵀc (over the
  /// touched features only, for a sketch that tracks them).
  virtual void add_local_transpose_product(std::span<const double> c, std::span<double> out) const;
  /// Writes the local block of B, feature-major: out[j*rows() + i] = B[i, begin + j].
  virtual void copy_local_block(std::span<double> out) const;

  /// Inserts row a given za = Z·a (already summed over ranks, basis_rows() entries) and aa = ‖a‖²
  /// (summed). Collective only when the sketch must re-orthogonalize, shrink (dense form) or
  /// refresh (sparse form, rarely); every rank calls it for every row alike. Throws NumericError when
  /// aa or za is not finite, InvalidArgument when za is too short.
  void insert(const LocalRow& a, std::span<const double> za, double aa);
  /// Collective. Convenience form: computes Z·a and ‖a‖² with one Allreduce of basis_rows()+1
  /// numbers, then inserts.
  void insert(const LocalRow& a);

  // --- Products and coefficients across an insertion. --------------------------------------------
  // A learner keeps Z·z for vectors z it already reduced (its example x) and weights in the lazy
  // form w = w̄ + Zᵀc; these map both through the last insertion of a. Call them after insert() and
  // before the next one.

  /// Whether the next insertion rewrites every stored row (an FD shrink, or a sparse sketch's
  /// rebase). Before such an insertion a learner calls fold_coefficients.
  virtual bool next_insert_restructures() const noexcept { return false; }
  /// w̄ += Zᵀc on the local features (lazy: the learner's w̄, local_dim() entries), then c = 0. No
  /// communication. The sparse FD form records c instead, O(R), and hands each feature its share
  /// through settle().
  virtual void fold_coefficients(std::span<double> c, std::span<double> lazy);
  /// Adds to lazy the folds the sketch deferred on a's local features; a learner calls it before it
  /// reads w̄ on a's support (or inserts a). No communication; no-op for a sketch that never defers.
  virtual void settle(const LocalRow& a, std::span<double> lazy) { (void)a, (void)lazy; }
  /// A hint with no effect on results: a's local features are the next step's; a sketch that keeps
  /// per-feature state at scattered places (the sparse FD form) starts loading it, so that its
  /// cache misses overlap the step before.
  virtual void prefetch(const LocalRow& a) const noexcept { (void)a; }
  /// settle() for every local feature (before a learner saves w̄ in a checkpoint).
  virtual void settle_all(std::span<double> lazy) { (void)lazy; }
  /// The local part of Σ_j a_j·(the fold deferred on feature j): what settle(a) would add to w̄ᵀa.
  /// For const readers, which must not change the state (a settle changes later round-off).
  virtual double local_deferred_dot(const LocalRow& a) const { return (void)a, 0.0; }
  /// out[j] += the fold deferred on local feature j, for every j (const readers of all of w̄).
  virtual void add_local_deferred(std::span<double> out) const { (void)out; }
  /// The row k of B that the last insertion wrote as the inserted vector itself (B_k = a) without
  /// changing any other row or α (an FD insertion into a free row: B's Gram changed in row k only),
  /// or −1 (a shrink, a projection, an Oja update, or no insertion yet).
  virtual index_t last_appended_row() const noexcept { return -1; }
  /// Maps zz = Z_old·z to Z_new·z in place, given az = aᵀz, for the last inserted row a.
  virtual void update_product(std::span<double> zz, double az) const = 0;
  /// Maps c to c' in place so that Z_oldᵀc = Z_newᵀc' + β·a + r, adds r (sparse rows of Z_old that
  /// the insertion retired) to lazy (feature j of the local block at lazy[j·stride]), and returns β
  /// (the caller adds β·a). Requires c = 0 when the last insertion restructured the sketch.
  virtual double update_coefficients(std::span<double> c, std::span<double> lazy, index_t stride) const = 0;
  /// out[0..basis_rows()) = K c with K = Z Zᵀ, the Gram of the stored basis as the sketch keeps it
  /// (replicated, no communication; M K Mᵀ = BBᵀ). With update_product it keeps Z·w for lazy
  /// weights w = w̄ + Zᵀc through an update c += q: Z(w + Zᵀq) = Zw + Kq. A row that the last
  /// sparse-form insertion retired counts as zero (its coefficient was carried by update_coefficients).
  virtual void apply_basis_gram(std::span<const double> c, std::span<double> out) const = 0;

  /// Lists the sketch's complete state (Z, the Gram, the mixing, counters and the algorithm's own
  /// fields, names prefixed "sketch." and by the method) for a checkpoint; a sketch restored
  /// through the views continues exactly as the saved one would.
  void state_fields(StateFields& fields);

 protected:
  /// `partition` splits the sketch's columns over comm (BlockPartition(dim, P), or an interleaved
  /// one for d·K-dimensional rows); basis_rows ≥ rows (only the sparse form has more).
  Sketch(const Communicator& comm, const BlockPartition& partition, index_t ell, index_t rows, index_t basis_rows,
         SketchForm form);

  /// Algorithm-specific insertion; za and aa are already validated (finite).
  virtual void do_insert(const LocalRow& a, std::span<const double> za, double aa) = 0;
  /// The algorithm's own state fields (state_fields() lists the base's first).
  virtual void add_state_fields(StateFields& fields) = 0;
  /// Recomputes gram_ = B Bᵀ exactly for the dense form (local syrk + one Allreduce). Only the
  /// first `active_rows` rows may be non-zero (the rest of the Gram is set to zero without reading
  /// them); -1 means all rows.
  void recompute_gram(index_t active_rows = -1);
  /// Z Zᵀ of the stored basis (basis_rows()² row-major) into out: local syrk (or, for a sketch that
  /// tracks its touched features, a sum over them) + one Allreduce.
  void basis_gram(std::span<double> out) const;
  /// From now on, keep the set of local features any stored row is non-zero on (the sparse form of
  /// a sketch whose rows change only on the support of the inserted rows), so that the products and
  /// Grams over the whole block read only those features' rows. The derived class reports every
  /// write through note_written.
  void track_touched();
  /// Records that the rows of Z may have become non-zero on a's support (all features for a dense row).
  void note_written(const LocalRow& a);
  /// Calls f(j) for every local feature whose row of Z may be non-zero, ascending (every feature when
  /// the sketch does not track them).
  void for_each_touched(const std::function<void(index_t)>& f) const;
  /// The stored Z, feature-major d_p × basis_rows().
  ///@{
  std::span<double> stored() noexcept { return stored_; }
  std::span<const double> stored() const noexcept { return stored_; }
  ///@}
  /// Exchanges the stored block with `other` (same size): installs a block computed out of place.
  void swap_stored(PageBuffer& other);
  /// The Gram BBᵀ for the derived class to set (gram() is its read-only view).
  std::span<double> gram_mut() noexcept { return gram_; }
  /// The dense form's diagonal mixing M = diag(row_scale).
  ///@{
  std::span<const double> row_scale() const noexcept { return row_scale_; }
  std::span<double> row_scale_mut() noexcept { return row_scale_; }
  ///@}

 private:
  Communicator comm_;
  BlockPartition partition_;
  index_t ell_, rows_, basis_rows_, local_dim_;
  SketchForm form_;
  index_t inserted_ = 0;
  PageBuffer stored_;  // zero pages until a feature is touched
  std::vector<double> gram_, row_scale_, reduce_buffer_;
  std::unique_ptr<detail::TouchedSet> touched_;  // track_touched(): the features written
  mutable bool touched_stale_ = false;           // the block was listed for a checkpoint reader: rebuild
  /// The tracked set, rebuilt from the block if a checkpoint may have replaced it; null when not tracked.
  const detail::TouchedSet* touched() const;
};

}  // namespace adasketch
