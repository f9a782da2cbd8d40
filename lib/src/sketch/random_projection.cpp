#include "adasketch/sketch/random_projection.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "adasketch/error.hpp"

namespace adasketch {

RandomProjection::RandomProjection(const Communicator& comm, index_t dim, const RandomProjectionOptions& options)
    : RandomProjection(comm, BlockPartition(dim, comm.size()), options) {}

RandomProjection::RandomProjection(const Communicator& comm, const BlockPartition& partition,
                                   const RandomProjectionOptions& options)
    : Sketch(comm, partition, options.ell, options.ell, options.ell, options.form), options_(options), rng_(options.seed) {
  ADASKETCH_REQUIRE(options.gram_refresh >= 0, "gram_refresh = " + number_text(options.gram_refresh));
  if (options_.gram_refresh == 0)
    options_.gram_refresh = options.form == SketchForm::sparse
                                ? std::max<index_t>(4 * options.ell, (partition.dim() + 15) / 16)
                                : options.ell;
  r_.assign(static_cast<std::size_t>(options.ell), 0.0);
  if (options.form == SketchForm::sparse) track_touched();  // S changes only on the inserted rows' supports
}

void RandomProjection::do_insert(const LocalRow& a, std::span<const double> ya, double aa) {
  const index_t R = rows();
  // r_t ~ N(0, I/ℓ), drawn from counter (t, i): the same vector on every rank.
  const double scale = 1.0 / std::sqrt(static_cast<double>(options_.ell));
  const auto t = static_cast<std::uint64_t>(inserted());
  for (index_t i = 0; i < R; ++i) r_[i] = scale * rng_.normal(t, static_cast<std::uint64_t>(i));
  // S ← S + r aᵀ: feature j of the feature-major block gains a_j r.
  note_written(a);
  auto y = stored();
  if (a.is_dense()) {
    if (local_dim() > 0)
      cblas_dger(CblasRowMajor, static_cast<int>(local_dim()), static_cast<int>(R), 1.0, a.values().data(), 1,
                 r_.data(), 1, y.data(), static_cast<int>(R));
  } else {
    const auto idx = a.indices();
    const auto v = a.values();
    for (std::size_t n = 0; n < idx.size(); ++n) {
      double* feature = y.data() + idx[n] * R;
      for (index_t i = 0; i < R; ++i) feature[i] += v[n] * r_[i];
    }
  }
  // SSᵀ ← SSᵀ + r pᵀ + p rᵀ + ‖a‖² r rᵀ with p = S_old a (SON App. E Alg. 6 line 2 works on H;
  // the Gram form is the same rank-2 update).
  auto g = gram_mut();
  for (index_t i = 0; i < R; ++i)
    for (index_t j = 0; j < R; ++j) g[i * R + j] += r_[i] * ya[j] + ya[i] * r_[j] + aa * r_[i] * r_[j];
  if ((inserted() + 1) % options_.gram_refresh == 0) recompute_gram();
}

// r_t is a function of (seed, t = inserted()); the last one is kept for update_product.
void RandomProjection::add_state_fields(StateFields& fields) { fields.array("rp.r", r_); }

void RandomProjection::update_product(std::span<double> yz, double az) const {
  for (index_t i = 0; i < rows(); ++i) yz[i] += r_[i] * az;
}

double RandomProjection::update_coefficients(std::span<double> c, std::span<double>, index_t) const {
  double rc = 0.0;
  for (index_t i = 0; i < rows(); ++i) rc += r_[i] * c[i];
  return -rc;
}

void RandomProjection::apply_basis_gram(std::span<const double> c, std::span<double> out) const {
  const int r = static_cast<int>(rows());
  cblas_dgemv(CblasRowMajor, CblasNoTrans, r, r, 1.0, gram().data(), r, c.data(), 1, 0.0, out.data(), 1);
}

}  // namespace adasketch
