#include "adasketch/sketch/frequent_directions.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "adasketch/error.hpp"
#include "frequent_directions_sparse.hpp"

namespace adasketch {

namespace {
index_t buffer_rows(const FrequentDirectionsOptions& o) {
  ADASKETCH_REQUIRE(o.ell >= 1, "ell = " + number_text(o.ell));
  return o.fast ? 2 * o.ell : o.ell;
}
}  // namespace

FrequentDirections::FrequentDirections(const Communicator& comm, index_t dim,
                                       const FrequentDirectionsOptions& options)
    : FrequentDirections(comm, BlockPartition(dim, comm.size()), options) {}

FrequentDirections::FrequentDirections(const Communicator& comm, const BlockPartition& partition,
                                       const FrequentDirectionsOptions& options)
    : Sketch(comm, partition, options.ell, buffer_rows(options), buffer_rows(options), options.form),
      options_(options),
      alpha_(options.regularized ? options.alpha0 : 0.0),
      eigen_(static_cast<int>(buffer_rows(options))) {
  ADASKETCH_REQUIRE(options.alpha0 >= 0.0 && std::isfinite(options.alpha0), "alpha0 = " + number_text(options.alpha0));
  rotation_.assign(static_cast<std::size_t>(rows() * rows()), 0.0);
  product_scratch_.assign(static_cast<std::size_t>(rows()), 0.0);
  if (options.form == SketchForm::sparse) {
    sparse_ = std::make_unique<SparseState>(rows(), options.ell - 1, local_dim(), partition.dim());
  } else {
    scratch_ = PageBuffer(static_cast<std::size_t>(local_dim() * rows()));
  }
}

FrequentDirections::~FrequentDirections() = default;

bool FrequentDirections::next_insert_restructures() const noexcept {
  return filled_ + 1 == rows();
}

void FrequentDirections::set_alpha0(double alpha0) {
  ADASKETCH_REQUIRE(alpha0 >= 0.0 && std::isfinite(alpha0), "alpha0 = " + number_text(alpha0));
  options_.alpha0 = alpha0;
  if (options_.regularized) alpha_ = alpha0;
}

std::string FrequentDirections::name() const {
  return std::string(options_.fast ? "fast-" : "") + (options_.regularized ? "rfd" : "fd");
}

void FrequentDirections::do_insert(const LocalRow& a, std::span<const double> ya, double aa) {
  // Place a into the first zero row (RFD paper Alg. 1–4, line 3) and extend the Gram. The sparse
  // form first brings a's columns up to date (so that the row is written at the current epoch).
  const index_t R = rows(), k = filled_;
  auto y = stored();
  if (sparse_ != nullptr) {
    write_row_sparse(a, k);
  } else if (a.is_dense()) {
    const auto v = a.values();
    for (index_t j = 0; j < local_dim(); ++j) y[j * R + k] = v[j];
  } else {
    const auto idx = a.indices();
    const auto v = a.values();
    for (std::size_t n = 0; n < idx.size(); ++n) y[idx[n] * R + k] = v[n];
  }
  auto g = gram_mut();
  for (index_t i = 0; i < R; ++i) {
    g[i * R + k] = ya[i];
    g[k * R + i] = ya[i];
  }
  g[k * R + k] = aa;
  ++filled_;
  last_slot_ = k;
  // Alg. 1/3 shrink after every insertion; Alg. 2/4 once the 2ℓ buffer has no zero row. Both leave
  // ℓ−1 rows, so "shrink when full" covers the two (a shrink by λ_ℓ = 0 only rotates B).
  last_shrunk_ = filled_ == R;
  if (last_shrunk_) {
    if (sparse_ != nullptr)
      shrink_sparse();
    else
      shrink();
  }
}

void FrequentDirections::add_state_fields(StateFields& fields) {
  // After every insertion filled < R (a full buffer is shrunk at once); last_slot is -1 before the first.
  fields.integer("fd.filled", filled_, 0, rows() - 1);
  fields.integer("fd.last_slot", last_slot_, -1, rows() - 1);
  fields.flag("fd.last_shrunk", last_shrunk_);
  fields.integer("fd.shrinks", shrinks_);
  fields.real("fd.alpha", alpha_);
  fields.real("fd.total_shrinkage", total_shrinkage_);
  fields.array("fd.rotation", rotation_);  // update_product after a shrink
  if (sparse_ != nullptr) {
    // The deferred state as it is (the columns at their own epochs), so that a resumed run continues
    // exactly as this one does; the products over the history are rebuilt from its transitions.
    SparseState& s = *sparse_;
    refresh_sparse();
    fields.block("fd.features", partition(), comm().rank(), 2, s.feature);
    fields.integer("fd.history_base", s.history.base_field());
    fields.integer("fd.history_count", s.history.count_field(), 0, s.history.capacity());
    fields.array("fd.history", s.history.transitions());
    s.stale = true;  // a reader may replace them
  }
}

void FrequentDirections::update_product(std::span<double> yz, double az) const {
  ADASKETCH_REQUIRE(last_slot_ >= 0, "no insertion yet");
  yz[last_slot_] = az;  // the new row was zero before
  if (!last_shrunk_) return;
  // Y_new = rotationᵀ Y: (Y_new z)_i = Σ_r rotation[r, i] (Y z)_r, for the ℓ−1 kept rows.
  const index_t R = rows(), kept = options_.ell - 1;
  std::fill(product_scratch_.begin(), product_scratch_.end(), 0.0);
  for (index_t r = 0; r < R; ++r)
    for (index_t i = 0; i < kept; ++i) product_scratch_[i] += rotation_[r * R + i] * yz[r];
  std::copy(product_scratch_.begin(), product_scratch_.end(), yz.begin());
}

double FrequentDirections::update_coefficients(std::span<double> c, std::span<double> /*lazy*/, index_t /*stride*/) const {
  ADASKETCH_REQUIRE(last_slot_ >= 0, "no insertion yet");
  if (last_shrunk_) {
    for (index_t i = 0; i < rows(); ++i)
      ADASKETCH_REQUIRE(c[i] == 0.0, "coefficients must be folded before a shrink");
    return 0.0;
  }
  c[last_slot_] = 0.0;  // the row was zero before, so its coefficient never contributed
  return 0.0;
}

void FrequentDirections::apply_basis_gram(std::span<const double> c, std::span<double> out) const {
  const int r = static_cast<int>(rows());
  // Z = B (unit row scales) in both forms: K = BBᵀ.
  cblas_dgemv(CblasRowMajor, CblasNoTrans, r, r, 1.0, gram().data(), r, c.data(), 1, 0.0, out.data(), 1);
}

double FrequentDirections::shrink_rotation() {
  const index_t R = rows(), ell = options_.ell;
  if (options_.border_gram)
    eigen_.compute_bordered(gram());  // a function of the Gram alone, as compute()
  else
    eigen_.compute(gram());
  const auto lambda = eigen_.values();
  const auto u = eigen_.vectors();
  // λ_ℓ, the ℓ-th largest eigenvalue of BBᵀ = σ_ℓ² of B; clamp round-off negatives.
  const double delta = std::max(lambda[ell - 1], 0.0);
  // rotation[:, i] = U[:, i] · sqrt(max(λ_i − δ, 0)/λ_i) for the ℓ−1 rows that survive the shrink
  // (row ℓ and beyond become zero): R × (ℓ−1), row-major with leading dimension R.
  const index_t kept = ell - 1;
  for (index_t i = 0; i < kept; ++i) {
    const double shrunk = lambda[i] - delta;
    const double s = lambda[i] > 0.0 && shrunk > 0.0 ? std::sqrt(shrunk / lambda[i]) : 0.0;
    for (index_t r = 0; r < R; ++r) rotation_[r * R + i] = u[r * R + i] * s;
  }
  if (options_.regularized) alpha_ += delta / 2.0;  // RFD paper Alg. 3 line 6
  total_shrinkage_ += delta;
  filled_ = kept;
  ++shrinks_;
  return delta;
}

void FrequentDirections::shrink() {
  const index_t R = rows(), kept = options_.ell - 1;
  shrink_rotation();
  // B' = diag(s) Uᵀ B  ⇔  Y'_fm = Y_fm · rotation (feature-major, d_p × R); only the kept columns
  // are multiplied, the others are zeroed.
  if (local_dim() > 0) {
    const int n = static_cast<int>(R);
    if (kept > 0)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(local_dim()), static_cast<int>(kept), n,
                  1.0, stored().data(), n, rotation_.data(), n, 0.0, scratch_.data(), n);
    for (index_t j = 0; j < local_dim(); ++j) std::fill_n(scratch_.data() + j * R + kept, R - kept, 0.0);
    swap_stored(scratch_);
  }
  recompute_gram(kept);  // exact M of the new B, so round-off never accumulates (docs/design.md §3)
}

}  // namespace adasketch
