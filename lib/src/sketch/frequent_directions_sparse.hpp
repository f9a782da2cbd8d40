#pragma once
// The sparse form's state of FrequentDirections (internal; the algorithm is described in
// adasketch/sketch/frequent_directions.hpp). Slots are the stored basis rows of Z.
#include <span>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "column_pivots.hpp"
#include "slot_supports.hpp"

namespace adasketch {

struct FrequentDirections::SparseState {
  /// A slot is free (zero), live (used by M) or retiring: removed from M by the last insertion,
  /// still stored so that update_coefficients can read it, erased at the start of the next one.
  enum Slot { kFree = 0, kLive = 1, kRetiring = 2 };

  SparseState(index_t rows, index_t local_dim);

  /// out[0..R) = M z; rows of M from `filled` on are zero.
  void mix(index_t filled, std::span<const double> z, std::span<double> out) const;
  /// out[0..R) = Mᵀ v.
  void mix_transpose(index_t filled, std::span<const double> v, std::span<double> out) const;
  /// zz ← T zz + t_a·az (the last insertion's map of Z·z).
  void update_product(std::span<double> zz, double az) const;
  /// Sketch::update_coefficients for the last insertion; `stored` is the block Z.
  double update_coefficients(std::span<const double> stored, std::span<double> c, std::span<double> lazy,
                             index_t stride) const;
  /// out[j] += (Zᵀc)_j for the features j of the touched set (Z is zero elsewhere).
  void add_transpose_product(std::span<const double> stored, std::span<const double> c, std::span<double> out) const;
  void add_state_fields(StateFields& fields);
  /// Slot s's state; throws InvalidArgument for a value no insertion writes (only a crafted or
  /// corrupt checkpoint holds one).
  Slot state(index_t s) const {
    const double v = slot_state[static_cast<std::size_t>(s)];
    if (v == 0.0 || v == 1.0 || v == 2.0) return static_cast<Slot>(v);  // kFree, kLive, kRetiring
    throw InvalidArgument("fd sketch: fd.slot_state[" + number_text(s) + "] = " + number_text(v) +
                          " (expected 0, 1 or 2): the restored state is corrupt");
  }

  index_t R;
  std::vector<double> mixing;      ///< M, R × R row-major
  std::vector<double> basis_gram;  ///< K = ZZᵀ over the free and live slots (retiring ones: zero)
  std::vector<double> slot_state;  ///< Slot per slot (doubles: a checkpoint array)
  std::vector<double> weight;      ///< rows folded into each live slot: a replicated proxy for its support
  std::vector<double> transform;   ///< T, R × R: Z_new z = T (Z_old z) + t_a (aᵀz) for the last insertion
  std::vector<double> transform_a; ///< t_a
  index_t written = -1;            ///< the slot the last insertion wrote
  bool rebase_pending = false;     ///< the growth check asks for a rebase at the next shrink
  bool last_rebased = false;       ///< the last insertion rebased (a learner folded before it)
  mutable detail::SlotSupports supports;  ///< local; rebuilt after a checkpoint listed the block
  // Scratch, sized once so that an insertion does not allocate.
  std::vector<double> local_za, row, square, columns, norm, fold, fold_map;
  std::vector<index_t> live, preference, pivot_slots, source_slots, retired;
  mutable std::vector<double> product;  ///< update_product's result
  mutable std::vector<index_t> share_slots;  ///< update_coefficients' retiring slots and their shares
  mutable std::vector<double> shares;
  detail::ColumnPivots pivots;
  /// A rebase's chunks of touched features (rows of Z gathered, and multiplied by M'ᵀ).
  static constexpr index_t kChunk = 256;
  std::vector<double> chunk, chunk_out;
  std::vector<index_t> chunk_features;
};

}  // namespace adasketch
