#include "adasketch/sketch/sketch.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "../enum_names.hpp"
#include "adasketch/error.hpp"
#include "prefetch_row.hpp"
#include "touched_set.hpp"

namespace adasketch {

namespace {

// out (R×R, both triangles) += Σ_{j ∈ U} z_j z_jᵀ over the first n entries of each touched feature's
// row z_j (R doubles), ascending in j.
void add_touched_gram(const detail::TouchedSet& touched, const double* z, index_t R, index_t n, std::span<double> out) {
  touched.sweep(z, R, [&](index_t j) {
    const double* feature = z + j * R;
    for (index_t i = 0; i < n; ++i) {
      const double fi = feature[i];
      if (fi == 0.0) continue;
      for (index_t k = 0; k <= i; ++k) out[i * R + k] += fi * feature[k];
    }
  });
  for (index_t i = 0; i < n; ++i)
    for (index_t k = 0; k < i; ++k) out[k * R + i] = out[i * R + k];
}

}  // namespace

namespace {
constexpr detail::EnumNames<SketchForm, 2> kFormNames{{{SketchForm::dense, "dense"}, {SketchForm::sparse, "sparse"}}};
constexpr detail::EnumNames<FormChoice, 3> kChoiceNames{
    {{FormChoice::automatic, "auto"}, {FormChoice::dense, "dense"}, {FormChoice::sparse, "sparse"}}};
}  // namespace

std::string to_string(SketchForm form) { return detail::name_of(kFormNames, form); }

template <>
SketchForm from_string<SketchForm>(std::string_view text) {
  return detail::value_named(kFormNames, text, "sketch form");
}

std::string to_string(FormChoice choice) { return detail::name_of(kChoiceNames, choice); }

template <>
FormChoice from_string<FormChoice>(std::string_view text) {
  return detail::value_named(kChoiceNames, text, "form");
}

Sketch::Sketch(const Communicator& comm, const BlockPartition& partition, index_t ell, index_t rows,
               index_t basis_rows, SketchForm form)
    : comm_(comm), partition_(partition), ell_(ell), rows_(rows), basis_rows_(basis_rows), local_dim_(0), form_(form) {
  partition.require_parts_for(comm);
  ADASKETCH_REQUIRE(ell >= 1, "ell = " + number_text(ell));
  ADASKETCH_REQUIRE(rows >= ell, "rows = " + number_text(rows));
  ADASKETCH_REQUIRE(basis_rows >= rows && (form == SketchForm::sparse || basis_rows == rows),
                    "basis_rows = " + number_text(basis_rows));
  local_dim_ = partition_.size(comm.rank());
  // The local buffer holds d_p × R_z doubles and the Gram R × R: the products must not overflow.
  // Beyond std::vector's limit, throw what the vector itself would throw for the exact size.
  constexpr index_t kMaxEntries = PTRDIFF_MAX / sizeof(double);
  if (basis_rows > kMaxEntries / basis_rows || local_dim_ > kMaxEntries / basis_rows)
    throw std::length_error("sketch of " + number_text(basis_rows) + " rows × " + number_text(local_dim_) +
                            " local features: more than memory can address");
  stored_ = PageBuffer(static_cast<std::size_t>(local_dim_ * basis_rows_));
  gram_.assign(static_cast<std::size_t>(rows_ * rows_), 0.0);
  row_scale_.assign(static_cast<std::size_t>(rows_), 1.0);
  reduce_buffer_.assign(static_cast<std::size_t>(basis_rows_ + 1), 0.0);
}

Sketch::~Sketch() = default;

void Sketch::track_touched() {
  if (!touched_) touched_ = std::make_unique<detail::TouchedSet>(local_dim_);
}

void Sketch::note_written(const LocalRow& a) {
  if (!touched_) return;
  if (a.is_dense()) {
    touched_->touch_all();
    return;
  }
  for (const index_t j : a.indices()) touched_->touch(j);
}

const detail::TouchedSet* Sketch::touched() const {
  if (touched_ && touched_stale_) {
    touched_->rebuild(stored_, basis_rows_);
    touched_stale_ = false;
  }
  return touched_.get();
}

void Sketch::for_each_touched(const std::function<void(index_t)>& f) const {
  if (const auto* u = touched()) {
    u->for_each(f);
    return;
  }
  for (index_t j = 0; j < local_dim_; ++j) f(j);
}

void Sketch::mix(std::span<const double> z, std::span<double> out) const {
  for (index_t i = 0; i < rows_; ++i) out[i] = row_scale_[i] * z[i];
}

void Sketch::mix_transpose(std::span<const double> v, std::span<double> out) const {
  for (index_t i = 0; i < rows_; ++i) out[i] = row_scale_[i] * v[i];
}

void Sketch::add_local_product(const LocalRow& a, std::span<double> out) const {
  const int r = static_cast<int>(basis_rows_);
  if (a.is_dense()) {
    ADASKETCH_REQUIRE(static_cast<index_t>(a.values().size()) == local_dim_,
                      "dense row has " + number_text(a.values().size()) + " local entries");
    if (local_dim_ == 0) return;
    // Y_p a_p with Y_p stored feature-major (d_p × R row-major): out += Y_fmᵀ a.
    cblas_dgemv(CblasRowMajor, CblasTrans, static_cast<int>(local_dim_), r, 1.0, stored_.data(), r,
                a.values().data(), 1, 1.0, out.data(), 1);
    return;
  }
  const auto idx = a.indices();
  const auto val = a.values();
  // Each feature's row lies at a random place in a large block: ask for all of them first (about 2×
  // on this product at d = 10⁷).
  for (const index_t j : idx) detail::prefetch_row(stored_.data() + j * basis_rows_, basis_rows_);
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const double* feature = stored_.data() + idx[k] * basis_rows_;
    const double v = val[k];
    for (index_t i = 0; i < basis_rows_; ++i) out[i] += v * feature[i];
  }
}

void Sketch::add_local_transpose_product(std::span<const double> c, std::span<double> out) const {
  if (local_dim_ == 0) return;
  if (const auto* u = touched(); u != nullptr && !u->all()) {
    const index_t R = basis_rows_;
    u->sweep(stored_.data(), R, [&](index_t j) {
      const double* feature = stored_.data() + j * R;
      double v = 0.0;
      for (index_t i = 0; i < R; ++i) v += feature[i] * c[i];
      out[j] += v;
    }, out.data(), 1);
    return;
  }
  const int r = static_cast<int>(basis_rows_);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(local_dim_), r, 1.0, stored_.data(), r, c.data(), 1,
              1.0, out.data(), 1);
}

void Sketch::fold_coefficients(std::span<double> c, std::span<double> lazy) {
  add_local_transpose_product(c, lazy);
  std::fill(c.begin(), c.begin() + basis_rows_, 0.0);
}

void Sketch::copy_local_block(std::span<double> out) const {
  ADASKETCH_REQUIRE(static_cast<index_t>(out.size()) >= local_dim_ * rows_, "out is too small");
  const auto R = static_cast<std::size_t>(rows_), Rz = static_cast<std::size_t>(basis_rows_);
  for (std::size_t j = 0; j < static_cast<std::size_t>(local_dim_); ++j)
    mix(stored().subspan(j * Rz, Rz), out.subspan(j * R, R));
}

void Sketch::insert(const LocalRow& a, std::span<const double> za, double aa) {
  ADASKETCH_REQUIRE(static_cast<index_t>(za.size()) >= basis_rows_, "za has " + number_text(za.size()) + " entries");
  if (!std::isfinite(aa)) throw NumericError(name() + " sketch: inserted row has a non-finite entry (‖a‖² = " + number_text(aa) + ")");
  for (index_t i = 0; i < basis_rows_; ++i)
    if (!std::isfinite(za[i])) throw NumericError(name() + " sketch: non-finite product Z·a");
  do_insert(a, za, aa);
  ++inserted_;
}

void Sketch::insert(const LocalRow& a) {
  std::fill(reduce_buffer_.begin(), reduce_buffer_.end(), 0.0);
  add_local_product(a, reduce_buffer_);
  reduce_buffer_[basis_rows_] = a.local_norm2();
  comm_.allreduce_sum(reduce_buffer_);
  insert(a, std::span<const double>(reduce_buffer_).first(basis_rows_), reduce_buffer_[basis_rows_]);
}

void Sketch::state_fields(StateFields& fields) {
  fields.integer("sketch.inserted", inserted_);
  fields.array("sketch.gram", gram_);
  fields.array("sketch.row_scale", row_scale_);
  fields.block("sketch.stored", partition_, comm_.rank(), basis_rows_, stored_);
  add_state_fields(fields);
  touched_stale_ = touched_ != nullptr;  // a reader may replace the block (set last: the fields may use the set)
}

void Sketch::swap_stored(PageBuffer& other) {
  ADASKETCH_REQUIRE(other.size() == stored_.size(), "other.size() = " + number_text(other.size()));
  stored_.swap(other);
}

void Sketch::basis_gram(std::span<double> out) const {
  const index_t n = basis_rows_;
  std::fill(out.begin(), out.begin() + n * n, 0.0);
  if (const auto* u = touched(); u != nullptr && !u->all()) {
    add_touched_gram(*u, stored_.data(), n, n, out);
  } else if (local_dim_ > 0) {
    const int r = static_cast<int>(n);
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, r, static_cast<int>(local_dim_), 1.0, stored_.data(), r, 0.0,
                out.data(), r);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < i; ++j) out[j * n + i] = out[i * n + j];
  }
  comm_.allreduce_sum(out.first(static_cast<std::size_t>(n * n)));
}

void Sketch::recompute_gram(index_t active_rows) {
  const index_t n = active_rows < 0 ? rows_ : active_rows;
  ADASKETCH_REQUIRE(n <= rows_, "active_rows = " + number_text(active_rows));
  std::fill(gram_.begin(), gram_.end(), 0.0);
  const int r = static_cast<int>(rows_);
  if (const auto* u = touched(); u != nullptr && !u->all()) {
    add_touched_gram(*u, stored_.data(), rows_, n, gram_);
  } else if (local_dim_ > 0 && n > 0) {
    // Local Y_p Y_pᵀ over the active rows = Y_fmᵀ Y_fm (lower triangle), then symmetrize.
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, static_cast<int>(n), static_cast<int>(local_dim_), 1.0,
                stored_.data(), r, 0.0, gram_.data(), r);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < i; ++j) gram_[j * rows_ + i] = gram_[i * rows_ + j];
  }
  comm_.allreduce_sum(gram_);
  for (index_t i = 0; i < rows_; ++i)
    for (index_t j = 0; j < rows_; ++j) gram_[i * rows_ + j] *= row_scale_[i] * row_scale_[j];
}

}  // namespace adasketch
