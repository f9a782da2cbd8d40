// The sparse form of FrequentDirections (see frequent_directions.hpp): insertion, shrink by the
// mixing matrix, compaction of the stored basis, rebase.
#include "frequent_directions_sparse.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "adasketch/error.hpp"
#include "column_pivots.hpp"

namespace adasketch {

namespace {

// Compaction tolerances, relative to the largest scaled column of M: a pass-1 (preferred) pivot
// must keep this much of its column after the previous pivots (so a fold adds at most about 3.3
// times a row's norm to a pivot: smaller values keep more old rows as pivots but let ‖Z‖ grow
// geometrically, measured: 10⁻³ rebased every 6 shrinks on rows sharing features, 0.3 never in
// 4000 rows), and a column below R·u is numerically in the pivots' span (or negligible).
constexpr double kStrongPivot = 0.3;
constexpr double kRankTolerance = 0x1p-52;

}  // namespace

FrequentDirections::SparseState::SparseState(index_t rows, index_t local_dim)
    : R(rows),
      mixing(sz(rows * rows), 0.0),
      basis_gram(sz(rows * rows), 0.0),
      slot_state(sz(rows), kFree),
      weight(sz(rows), 0.0),
      transform(sz(rows * rows), 0.0),
      transform_a(sz(rows), 0.0),
      supports(rows, local_dim),
      local_za(sz(rows), 0.0),
      row(sz(rows), 0.0),
      square(sz(rows * rows), 0.0),
      product(sz(rows), 0.0),
      chunk(sz(kChunk * rows), 0.0),
      chunk_out(sz(kChunk * rows), 0.0),
      chunk_features(sz(kChunk), 0) {
  for (auto* v : {&columns, &fold}) v->reserve(sz(rows * rows));
  fold_map.reserve(sz(rows * rows));
  norm.reserve(sz(rows));
  for (auto* v : {&live, &preference, &pivot_slots, &source_slots, &retired, &share_slots}) v->reserve(sz(rows));
  shares.reserve(sz(rows));
  for (auto* v : {&pivots.pivots, &pivots.eliminated, &pivots.dropped}) v->reserve(sz(rows));
  for (auto* v : {&pivots.weights, &pivots.residual, &pivots.q, &pivots.r}) v->reserve(sz(rows * rows));
  pivots.norm.reserve(sz(rows));
  pivots.role.reserve(sz(rows));
}

void FrequentDirections::SparseState::mix(index_t filled, std::span<const double> z, std::span<double> out) const {
  for (index_t i = 0; i < R; ++i) {
    double v = 0.0;
    if (i < filled) {
      const double* m = mixing.data() + i * R;
      for (index_t c = 0; c < R; ++c) v += m[c] * z[c];
    }
    out[i] = v;
  }
}

void FrequentDirections::SparseState::mix_transpose(index_t filled, std::span<const double> v,
                                                    std::span<double> out) const {
  std::fill(out.begin(), out.begin() + R, 0.0);
  for (index_t i = 0; i < filled; ++i) {
    const double* m = mixing.data() + i * R;
    for (index_t c = 0; c < R; ++c) out[c] += m[c] * v[i];
  }
}

void FrequentDirections::SparseState::update_product(std::span<double> zz, double az) const {
  auto& r = product;
  for (index_t i = 0; i < R; ++i) {
    const double* t = transform.data() + i * R;
    double v = transform_a[i] * az;
    for (index_t c = 0; c < R; ++c) v += t[c] * zz[c];
    r[i] = v;
  }
  std::copy(r.begin(), r.end(), zz.begin());
}

double FrequentDirections::SparseState::update_coefficients(std::span<const double> stored, std::span<double> c,
                                                            std::span<double> lazy, index_t stride) const {
  if (last_rebased) {
    for (index_t i = 0; i < R; ++i)
      ADASKETCH_REQUIRE(c[i] == 0.0, "coefficients must be folded before a rebase");
    return 0.0;
  }
  // Z_oldᵀc = Z_newᵀc' + β a + r with c' = c on the kept slots and 0 on the retiring ones:
  // β = −Σ_kept t_a[i] c_i, and a retiring slot e (≠ the new row) adds (c_e − Σ_kept T[i, e] c_i) Z_e to r.
  supports.rebuild_if_stale(stored);
  double beta = 0.0;
  for (index_t i = 0; i < R; ++i)
    if (state(i) != kRetiring) beta -= transform_a[i] * c[i];
  share_slots.clear();
  shares.clear();
  for (index_t e = 0; e < R; ++e) {
    if (state(e) != kRetiring || e == written) continue;  // the new row's share is β
    double share = c[e];
    for (index_t i = 0; i < R; ++i)
      if (state(i) != kRetiring) share -= transform[i * R + e] * c[i];
    share_slots.push_back(e);
    shares.push_back(share);
  }
  supports.add_to(stored, share_slots, shares, lazy, stride);
  for (index_t e = 0; e < R; ++e)
    if (state(e) == kRetiring) c[e] = 0.0;
  return beta;
}

void FrequentDirections::SparseState::add_transpose_product(std::span<const double> stored, std::span<const double> c,
                                                           std::span<double> out) const {
  supports.rebuild_if_stale(stored);
  supports.sweep_touched(stored.data(), [&](index_t j) {
    const double* feature = stored.data() + j * R;
    double v = 0.0;
    for (index_t s = 0; s < R; ++s) v += feature[s] * c[sz(s)];
    out[sz(j)] += v;
  }, out.data(), 1);
}

void FrequentDirections::SparseState::add_state_fields(StateFields& fields) {
  fields.array("fd.mixing", mixing);
  fields.array("fd.basis_gram", basis_gram);
  fields.array("fd.slot_state", slot_state);
  fields.array("fd.weight", weight);
  fields.array("fd.transform", transform);
  fields.array("fd.transform_a", transform_a);
  fields.integer("fd.written", written, -1, R - 1);
  fields.flag("fd.rebase_pending", rebase_pending);
  fields.flag("fd.last_rebased", last_rebased);
  supports.mark_stale();  // the block may be overwritten by a reader
}

// ---- Insertion --------------------------------------------------------------------------------------

void FrequentDirections::insert_sparse(const LocalRow& a, std::span<const double> za, double aa) {
  SparseState& sp = *sparse_;
  const index_t R = rows(), k = filled_;
  auto z = stored();
  sp.supports.rebuild_if_stale(z);
  // T starts as the identity on the slots that stay; the rows removed by the last insertion are
  // erased now (their coefficients were carried by update_coefficients).
  std::fill(sp.transform.begin(), sp.transform.end(), 0.0);
  std::fill(sp.transform_a.begin(), sp.transform_a.end(), 0.0);
  std::copy(za.begin(), za.begin() + R, sp.local_za.begin());
  auto& retired = sp.retired;
  retired.clear();
  for (index_t s = 0; s < R; ++s)
    if (sp.state(s) == SparseState::kRetiring) retired.push_back(s);
  sp.supports.erase(z, retired);
  for (index_t s = 0; s < R; ++s) {
    if (sp.state(s) == SparseState::kRetiring) sp.slot_state[sz(s)] = SparseState::kFree;
    if (sp.state(s) == SparseState::kFree) {
      sp.local_za[sz(s)] = 0.0;
    } else {
      sp.transform[sz(s * R + s)] = 1.0;
    }
  }
  // Place a into a free slot and B's row k (RFD paper Alg. 1–4, line 3): M[k, :] = e_slot.
  index_t slot = 0;
  while (slot < R && sp.state(slot) != SparseState::kFree) ++slot;
  ADASKETCH_REQUIRE(slot < R, "no free slot (filled = " + number_text(k) + ")");
  sp.supports.write(z, slot, a);
  sp.written = slot;
  sp.slot_state[sz(slot)] = SparseState::kLive;
  sp.weight[sz(slot)] = 1.0;
  sp.transform_a[sz(slot)] = 1.0;
  auto& K = sp.basis_gram;
  for (index_t c = 0; c < R; ++c) {
    K[sz(slot * R + c)] = sp.local_za[sz(c)];
    K[sz(c * R + slot)] = sp.local_za[sz(c)];
  }
  K[sz(slot * R + slot)] = aa;
  // The Gram's new row: B a = M (Z a) over the filled rows.
  sp.mix(k, sp.local_za, sp.row);
  auto g = gram_mut();
  for (index_t i = 0; i < R; ++i) {
    g[i * R + k] = sp.row[sz(i)];
    g[k * R + i] = sp.row[sz(i)];
  }
  g[k * R + k] = aa;
  std::fill_n(sp.mixing.begin() + k * R, R, 0.0);
  sp.mixing[sz(k * R + slot)] = 1.0;
  ++filled_;
  last_slot_ = k;
  last_shrunk_ = filled_ == R;
  sp.last_rebased = false;
  if (last_shrunk_) shrink_sparse();
}

// ---- Shrink -----------------------------------------------------------------------------------------

void FrequentDirections::shrink_sparse() {
  SparseState& sp = *sparse_;
  const index_t R = rows();
  shrink_rotation();  // rotation_ (R × kept), α, counters, filled_ = kept
  const index_t kept = filled_;
  // B' = rotationᵀ B  ⇔  M' = rotationᵀ M (rows ≥ kept zero); its Gram is diag(λ_i − λ_ℓ).
  auto& M = sp.mixing;
  std::fill(sp.square.begin(), sp.square.end(), 0.0);
  for (index_t i = 0; i < kept; ++i)
    for (index_t r = 0; r < R; ++r) {
      const double w = rotation_[sz(r * R + i)];
      if (w == 0.0) continue;
      for (index_t c = 0; c < R; ++c) sp.square[sz(i * R + c)] += w * M[sz(r * R + c)];
    }
  M.swap(sp.square);
  const auto lambda = eigen_.values();
  const double delta = std::max(lambda[sz(options_.ell - 1)], 0.0);
  auto g = gram_mut();
  std::fill(g.begin(), g.end(), 0.0);
  for (index_t i = 0; i < kept; ++i) g[i * R + i] = std::max(lambda[sz(i)] - delta, 0.0);
  if (sp.rebase_pending)
    rebase();
  else
    compact();
}

void FrequentDirections::compact() {
  SparseState& sp = *sparse_;
  const index_t R = rows(), kept = filled_;
  auto& M = sp.mixing;
  auto& K = sp.basis_gram;
  // Columns of M over the live slots, scaled by ‖Z_c‖, and the preference order for pass 1.
  auto& live = sp.live;
  live.clear();
  for (index_t s = 0; s < R; ++s)
    if (sp.state(s) == SparseState::kLive) live.push_back(s);
  const auto n = static_cast<index_t>(live.size());
  auto& norm = sp.norm;
  norm.assign(sz(n), 0.0);
  sp.columns.assign(sz(kept * n), 0.0);
  for (index_t c = 0; c < n; ++c) {
    norm[sz(c)] = std::sqrt(std::max(K[sz(live[c] * R + live[c])], 0.0));
    for (index_t i = 0; i < kept; ++i) sp.columns[sz(c * kept + i)] = M[sz(i * R + live[c])] * norm[sz(c)];
  }
  auto& preference = sp.preference;
  preference.resize(sz(n));
  std::iota(preference.begin(), preference.end(), index_t{0});
  std::sort(preference.begin(), preference.end(), [&](index_t x, index_t y) {  // heaviest first, then by slot
    const double wx = sp.weight[sz(live[x])], wy = sp.weight[sz(live[y])];
    return wx > wy || (wx == wy && x < y);
  });
  detail::select_column_pivots(kept, n, sp.columns, preference, kept, kStrongPivot,
                               kRankTolerance * static_cast<double>(R), sp.pivots);
  const detail::ColumnPivots& choice = sp.pivots;
  // Fold each eliminated slot e into the pivots: Z_p += w_pe Z_e with m_e = Σ_p w_pe m_p.
  // (Scaled columns: w_pe = w̃_ep ‖Z_p‖/‖Z_e‖.) T's pivot rows record the fold for update_product.
  // S is T with the removed slots' rows zero: Z after the erase is S Z, so K ← S K Sᵀ.
  auto z = stored();
  const auto P = choice.pivots.size();
  const index_t slot = sp.written;
  auto& S = sp.fold_map;
  S.assign(sp.transform.begin(), sp.transform.end());  // the identity on the slots kept before the insertion
  S[sz(slot * R + slot)] = 1.0;                         // and the new row's slot (K already includes it)
  auto& pivot_slots = sp.pivot_slots;
  auto& source_slots = sp.source_slots;
  auto& fold = sp.fold;
  pivot_slots.resize(P);
  source_slots.resize(choice.eliminated.size());
  fold.resize(choice.weights.size());
  for (std::size_t p = 0; p < P; ++p) pivot_slots[p] = live[choice.pivots[p]];
  for (std::size_t e = 0; e < choice.eliminated.size(); ++e) {
    const index_t es = source_slots[e] = live[choice.eliminated[e]];
    for (std::size_t p = 0; p < P; ++p) {
      const index_t ps = pivot_slots[p];
      const double w = choice.weights[e * P + p] * norm[sz(choice.pivots[p])] / norm[sz(choice.eliminated[e])];
      fold[e * P + p] = w;
      if (w == 0.0) continue;
      // Z_old's slot `slot` was zero: the fold of the new row goes to t_a, that of older rows to T.
      (es == slot ? sp.transform_a[sz(ps)] : sp.transform[sz(ps * R + es)]) = w;
      S[sz(ps * R + es)] = w;
      sp.weight[sz(ps)] += sp.weight[sz(es)];
    }
  }
  sp.supports.fold(z, pivot_slots, source_slots, fold);
  const auto retire = [&](index_t c) {
    const index_t s = live[c];
    for (index_t i = 0; i < R; ++i) M[sz(i * R + s)] = 0.0;
    for (index_t i = 0; i < R; ++i) S[sz(s * R + i)] = 0.0;
    sp.slot_state[sz(s)] = SparseState::kRetiring;
    sp.weight[sz(s)] = 0.0;
  };
  for (const index_t c : choice.eliminated) retire(c);
  for (const index_t c : choice.dropped) retire(c);
  const int r = static_cast<int>(R);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r, r, r, 1.0, S.data(), r, K.data(), r, 0.0,
              sp.square.data(), r);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, r, r, r, 1.0, sp.square.data(), r, S.data(), r, 0.0, K.data(), r);
  // Growth: forming M (Z x) loses about log10(max_i Σ_c |M_ic|‖Z_c‖ / max_i ‖B_i‖) digits.
  const auto g = gram();
  double top = 0.0, growth = 0.0;
  for (index_t i = 0; i < kept; ++i) top = std::max(top, g[i * R + i]);
  double largest = 0.0;
  for (index_t c = 0; c < R; ++c) largest = std::max(largest, K[sz(c * R + c)]);
  for (index_t i = 0; i < kept; ++i) {
    double s = 0.0;
    for (index_t c = 0; c < R; ++c) s += std::abs(M[sz(i * R + c)]) * std::sqrt(std::max(K[sz(c * R + c)], 0.0));
    growth = std::max(growth, s);
  }
  if (!std::isfinite(growth) || !std::isfinite(largest))
    throw NumericError(name() + " sketch: non-finite entry in the mixing matrix");
  // Also when a stored row's norm exceeds max_growth times B's largest row's. Folds with weights up
  // to 1/kStrongPivot let ‖Z‖ grow geometrically while M shrinks (B is unchanged), and the learners'
  // lazy products through these rows (Z·w kept by update_product and apply_basis_gram) then lose
  // digits at each step: measured on USPS (softmax rfd-son, ℓ = 10, α₀ = 1), ‖Z‖ reached 10¹²·‖B‖
  // and the sparse form's weights left the dense form's exponentially (10⁻¹⁵ to 10⁻⁴ in 600 steps),
  // while with this bound (8 rebases in 7,291 steps) they stay within 10⁻¹² of them.
  sp.rebase_pending = top > 0.0 && (growth > options_.max_growth * std::sqrt(top) ||
                                    std::sqrt(largest) > options_.max_growth * std::sqrt(top));
}

void FrequentDirections::rebase() {
  // Z ← B' = M' Z on the kept slots (feature-major: Z_fm ← Z_fm M'ᵀ), M = I, K exact; the learner
  // folded its lazy weights before this insertion (next_insert_restructures). Z is zero outside U:
  // the touched features' rows are gathered in chunks, multiplied and written back, and K = ZZᵀ is
  // summed from the same chunks, O(R²·|U|) with |U| ≤ d_p.
  SparseState& sp = *sparse_;
  const index_t R = rows(), kept = filled_;
  const int r = static_cast<int>(R);
  auto z = stored();
  auto& K = sp.basis_gram;
  std::fill(K.begin(), K.end(), 0.0);
  index_t n = 0;
  const auto flush = [&] {
    if (kept > 0)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(n), static_cast<int>(kept), r, 1.0,
                  sp.chunk.data(), r, sp.mixing.data(), r, 0.0, sp.chunk_out.data(), r);
    for (index_t i = 0; i < n; ++i) {
      double* row = z.data() + sp.chunk_features[sz(i)] * R;
      const double* b = sp.chunk_out.data() + i * R;
      std::copy(b, b + kept, row);
      std::fill(row + kept, row + R, 0.0);
    }
    if (kept > 0)
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, static_cast<int>(kept), static_cast<int>(n), 1.0,
                  sp.chunk_out.data(), r, 1.0, K.data(), r);
    n = 0;
  };
  sp.supports.for_each_touched([&](index_t j) {
    const double* row = z.data() + j * R;
    std::copy(row, row + R, sp.chunk.data() + n * R);
    sp.chunk_features[sz(n)] = j;
    if (++n == SparseState::kChunk) flush();
  });
  if (n > 0) flush();
  for (index_t i = 0; i < R; ++i)
    for (index_t j = 0; j < i; ++j) K[sz(j * R + i)] = K[sz(i * R + j)];
  comm().allreduce_sum(K);
  // T = M' (then Z_new z = M' Z_old z) composed with the erase/insert map already in T.
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r, r, r, 1.0, sp.mixing.data(), r, sp.transform.data(), r,
              0.0, sp.square.data(), r);
  sp.transform.swap(sp.square);
  std::fill(sp.row.begin(), sp.row.end(), 0.0);
  for (index_t i = 0; i < R; ++i)
    for (index_t s = 0; s < R; ++s) sp.row[sz(i)] += sp.mixing[sz(i * R + s)] * sp.transform_a[sz(s)];
  std::copy(sp.row.begin(), sp.row.end(), sp.transform_a.begin());
  const double total_weight = std::accumulate(sp.weight.begin(), sp.weight.end(), 0.0);
  std::fill(sp.mixing.begin(), sp.mixing.end(), 0.0);
  for (index_t s = 0; s < R; ++s) {
    const bool kept_slot = s < kept;
    if (kept_slot) sp.mixing[sz(s * R + s)] = 1.0;
    sp.slot_state[sz(s)] = kept_slot ? SparseState::kLive : SparseState::kFree;
    sp.weight[sz(s)] = kept_slot ? total_weight : 0.0;
  }
  auto g = gram_mut();
  std::copy(K.begin(), K.end(), g.begin());  // BBᵀ = ZZᵀ, exact
  sp.supports.reset(kept);  // the kept rows are combinations over all of U
  sp.rebase_pending = false;
  sp.last_rebased = true;
  ++rebases_;
}

}  // namespace adasketch
