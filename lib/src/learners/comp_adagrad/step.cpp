// CompAdaGrad's step (Mehta et al. 2016, eq. (2), §4.1–4.2): the scores, the SRHT block's update, and the ℓ2 and
// ℓ1 steps; construction, the spec and the state are in comp_adagrad.cpp.
#include "adasketch/learners/comp_adagrad/comp_adagrad.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "../../linalg/hadamard.hpp"
#include "../dense_slice.hpp"
#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"
#include "srht_lasso.hpp"

namespace adasketch {

namespace {

// Unpacks the lower triangle packed row by row (a(a+1)/2 + b, b ≤ a) into a full symmetric k × k.
void unpack_symmetric(std::span<const double> packed, index_t k, std::span<double> full) {
  std::size_t e = 0;
  for (std::size_t a = 0; a < sz(k); ++a)
    for (std::size_t b = 0; b <= a; ++b, ++e) full[a * sz(k) + b] = full[b * sz(k) + a] = packed[e];
}

}  // namespace

void CompAdaGrad::check_row(const LocalRow& x) const {
  if (!detail::slice_ok(x, local_dim())) throw InvalidArgument(name() + ": " + detail::bad_slice_message(x, local_dim()));
}

void CompAdaGrad::add_local_products(const LocalRow& x, std::span<double> out) const {
  const index_t K = classes_, k = k_;
  if (k == 0) return;
  if (K == 1) {
    if (x.is_dense())
      srht_->forward(x.values(), out);
    else
      srht_->forward_sparse(x.indices(), x.values(), out);
    return;
  }
  const auto v = x.values();
  for (index_t c = 0; c < K; ++c) {
    const std::span<double> part = out.subspan(sz(c * k), sz(k));
    if (x.is_dense()) {  // a ⊗ e_c on the interleaved layout
      for (std::size_t j = 0; j < v.size(); ++j) class_row_[class_entry(j, sz(c), sz(K))] = v[j];
      srht_->forward(class_row_, part);
      for (std::size_t j = 0; j < v.size(); ++j) class_row_[class_entry(j, sz(c), sz(K))] = 0.0;
    } else {
      const auto idx = x.indices();
      for (std::size_t i = 0; i < idx.size(); ++i) class_indices_[i] = class_entry(idx[i], c, K);
      srht_->forward_sparse(std::span<const index_t>(class_indices_).first(idx.size()), v, part);
    }
  }
}

void CompAdaGrad::add_local_scores(const LocalRow& x, std::span<double> out) const {
  check_row(x);
  const std::size_t K = sz(classes_), k = sz(k_);
  std::fill(products_.begin(), products_.end(), 0.0);
  add_local_products(x, products_);
  for (std::size_t c = 0; c < K; ++c)
    for (std::size_t a = 0; a < k; ++a) out[c] += products_[c * k + a] * coef_[a];  // (Π̃_p(a⊗e_c))ᵀc sums over ranks
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t c = 0; c < K; ++c) out[c] += v * perp_[class_entry(j, c, K)];
  });
}

void CompAdaGrad::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= sz(real_), "out.size() = " + number_text(out.size()) + ", needs " +
                                                 number_text(real_));
  std::vector<double> range(perp_.size());
  srht_->transpose(coef_, range);  // x = Π̃ᵀc + x⊥
  for (std::size_t e = 0; e < sz(real_); ++e) out[e] = range[e] + perp_[e];
}

void CompAdaGrad::factor_block() {
  if (k_ == 0) return;
  eigen_->compute(block_);
  const auto lambda = eigen_->values();  // descending
  const double top = lambda[0], ratio = static_cast<double>(n_) / static_cast<double>(k_);
  for (std::size_t i = 0; i < sz(k_); ++i) {
    const double l = top > 0.0 && lambda[i] > options_.rank_tolerance * top ? lambda[i] : 0.0;
    kappa_[i] = options_.placement == CompAdaGradOptions::Placement::outside_root
                    ? std::sqrt(l) + options_.delta                        // eq. (19): (Π̃GΠ̃ᵀ)^{1/2} + δI
                    : ratio * std::sqrt(ratio * l + root_delta_);  // eq. (5) with Π = √(n/k)Π̃
  }
}

void CompAdaGrad::update_complement(const LocalRow& x) {
  // h = P⊥g = g − Π̃ᵀ(Π̃g): dense, g only on x's support.
  srht_->transpose(pg_, perp_grad_);
  for (double& h : perp_grad_) h = -h;
  const std::size_t K = sz(classes_);
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t c = 0; c < K; ++c) perp_grad_[class_entry(j, c, K)] += v * dscores_[c];
  });
  for (std::size_t j = 0; j < perp_grad_.size(); ++j) {
    perp_sq_[j] += perp_grad_[j] * perp_grad_[j];
    diag_[j] = options_.tau * (std::sqrt(perp_sq_[j]) + options_.delta);  // τD_t, D_t = diag(G⊥_t)^{1/2} + δI
  }
}

// The ℓ2 step, eq. (12)–(15) with Π̃ (Π̃Π̃ᵀ = I): the problem min η⟨Π̃ᵀp + q, x⟩ + ½‖x − x₀‖²_A + λ/2‖x‖²
// (p = proj, q = perp ∈ Im P⊥; x₀ = x_t, or 0 for dual averaging) decouples on Im P ⊕ Im P⊥.
void CompAdaGrad::l2_step(std::span<const double> proj, std::span<const double> perp, double lam, bool from_current) {
  const double eta = options_.eta;
  const std::size_t k = sz(k_);
  if (k > 0) {
    // c ← (K + λI)⁻¹(Kc − ηp), K = U diag(κ) Uᵀ (eq. (13)).
    const auto u = eigen_->vectors();  // row-major, eigenvector i in column i
    for (std::size_t i = 0; i < k; ++i) {
      double uc = 0.0, up = 0.0;
      for (std::size_t r = 0; r < k; ++r) {
        uc += u[r * k + i] * coef_[r];
        up += u[r * k + i] * proj[r];
      }
      rotated_[i] = ((from_current ? kappa_[i] * uc : 0.0) - eta * up) / (kappa_[i] + lam);
    }
    for (std::size_t r = 0; r < k; ++r) {
      double c = 0.0;
      for (std::size_t i = 0; i < k; ++i) c += u[r * k + i] * rotated_[i];
      coef_[r] = c;
    }
  }
  // x⊥ ← B(y − Π̃ᵀν), y = −ηq + Dx⊥, B = (D + λI)⁻¹, ν = (Π̃BΠ̃ᵀ)⁻¹Π̃By (eq. (14), (15): the vector
  // there, −P⊥g + DP⊥x_t − DBy − λBy + y, is y since (D + λ)B = I).
  std::vector<double>& B = local_[0];
  std::vector<double>& y = local_[1];
  std::vector<double>& By = local_[2];  // By, then Π̃ᵀν
  for (std::size_t j = 0; j < perp_.size(); ++j) {
    B[j] = 1.0 / (diag_[j] + lam);
    y[j] = -eta * perp[j] + (from_current ? diag_[j] * perp_[j] : 0.0);
    By[j] = B[j] * y[j];
  }
  if (k == 0) {  // P⊥ = I: the diagonal step
    std::copy(By.begin(), By.end(), perp_.begin());
    return;
  }
  const std::size_t packed = k * (k + 1) / 2;
  std::fill(second_.begin(), second_.end(), 0.0);
  srht_->gram(B, std::span<double>(second_).first(packed));
  srht_->forward(By, std::span<double>(second_).subspan(packed, k));
  comm().allreduce_sum(second_);  // the step's second Allreduce: Π̃BΠ̃ᵀ and Π̃By
  unpack_symmetric(second_, k_, system_);
  std::copy_n(second_.begin() + static_cast<std::ptrdiff_t>(packed), k, small_.begin());
  const lapack_int info = LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'L', static_cast<lapack_int>(k), 1, system_.data(),
                                             static_cast<lapack_int>(k), small_.data(), static_cast<lapack_int>(k));
  if (info != 0) throw LapackError("dposv (CompAdaGrad Π̃BΠ̃ᵀν = Π̃By)", info);
  std::vector<double>& pt_nu = By;
  srht_->transpose(small_, pt_nu);  // Π̃ᵀν
  for (std::size_t j = 0; j < perp_.size(); ++j) perp_[j] = B[j] * (y[j] - pt_nu[j]);
}

// The ℓ1 step (§4.2): min_x ½xᵀQx + uᵀx + μ‖x‖₁ with Q = A + λI, u = η(Π̃ᵀp + q) − Ax₀,
// A = Π̃ᵀKΠ̃ + P⊥DP⊥, x₀ = x_t = Π̃ᵀc + x⊥ (or 0 for dual averaging), started at x_t.
void CompAdaGrad::l1_step(std::span<const double> proj, std::span<const double> perp, double lam, double mu,
                          bool from_current) {
  const double eta = options_.eta;
  const std::size_t k = sz(k_), packed = k * (k + 1) / 2;
  std::vector<double>& x = local_[0];  // Dx⊥, then the LASSO's iterate x
  std::vector<double>& pt = local_[1];  // Π̃ᵀ of a k-vector
  std::vector<double>& u = local_[2];   // the LASSO's linear term
  double block_norm = 0.0;
  if (k > 0) {
    // M = Π̃DΠ̃ᵀ and Π̃Dx⊥ (one Allreduce).
    std::vector<double>& d_perp = x;
    for (std::size_t j = 0; j < perp_.size(); ++j) d_perp[j] = diag_[j] * perp_[j];
    std::fill(second_.begin(), second_.end(), 0.0);
    srht_->gram(diag_, std::span<double>(second_).first(packed));
    if (from_current) srht_->forward(d_perp, std::span<double>(second_).subspan(packed, k));
    comm().allreduce_sum(second_);
    unpack_symmetric(second_, k_, system_);  // M
    // full_block_ = K = U diag(κ) Uᵀ; small_ = Kc − Π̃Dx⊥ − ηp (x₀ = x_t), or −ηp (x₀ = 0).
    const auto U = eigen_->vectors();
    for (std::size_t r = 0; r < k; ++r)
      for (std::size_t s = 0; s <= r; ++s) {
        double v = 0.0;
        for (std::size_t i = 0; i < k; ++i) v += U[r * k + i] * kappa_[i] * U[s * k + i];
        full_block_[r * k + s] = full_block_[s * k + r] = v;
      }
    for (std::size_t r = 0; r < k; ++r) {
      double v = -eta * proj[r];
      if (from_current) {
        v -= second_[packed + r];
        for (std::size_t s = 0; s < k; ++s) v += full_block_[r * k + s] * coef_[s];
      }
      small_[r] = v;
    }
    for (std::size_t e = 0; e < k * k; ++e) system_[e] += full_block_[e];  // K + M
    block_norm = *std::max_element(kappa_.begin(), kappa_.end());
  }
  // u = η(Π̃ᵀp + q) − Ax₀ = ηq − Π̃ᵀ(small_) − Dx⊥ (Ax_t = Π̃ᵀ(Kc − Π̃Dx⊥) + Dx⊥).
  srht_->transpose(small_, pt);
  for (std::size_t j = 0; j < perp_.size(); ++j)
    u[j] = eta * perp[j] - pt[j] - (from_current ? diag_[j] * perp_[j] : 0.0);
  srht_->transpose(coef_, x);  // the starting point x_t = Π̃ᵀc + x⊥
  for (std::size_t j = 0; j < perp_.size(); ++j) x[j] += perp_[j];
  const detail::SrhtLasso::Problem problem{system_, block_norm, diag_, lam, u, mu};
  lasso_->solve(problem, x, coef_);  // x_{t+1} and c = Π̃x_{t+1}
  srht_->transpose(coef_, pt);
  for (std::size_t j = 0; j < perp_.size(); ++j) perp_[j] = x[j] - pt[j];  // x⊥ = x − Π̃ᵀc
}

StepResult CompAdaGrad::do_step(const LocalRow& x, double label) {
  check_row(x);
  const std::size_t K = sz(classes_), k = sz(k_);
  std::fill(reduce_.begin(), reduce_.end(), 0.0);
  add_local_products(x, std::span<double>(reduce_).first(k * K));
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t c = 0; c < K; ++c) reduce_[k * K + c] += v * perp_[class_entry(j, c, K)];
  });
  comm().allreduce_sum(reduce_);  // the step's first Allreduce: Π̃(a⊗e_κ) and (a⊗e_κ)ᵀx⊥, kK + K numbers
  for (std::size_t c = 0; c < K; ++c) {
    double s = reduce_[k * K + c];
    for (std::size_t a = 0; a < k; ++a) s += reduce_[c * k + a] * coef_[a];
    if (!std::isfinite(s)) throw NumericError(name() + ": the score wᵀx is not finite");
    scores_[c] = s;
  }
  const StepResult result{loss().value(scores_, label), loss().mistake(scores_, label)};
  loss().derivative(scores_, label, dscores_);
  const bool zero_gradient = std::all_of(dscores_.begin(), dscores_.end(), [](double g) { return g == 0.0; });
  // φ = 0 and g = 0: x stays (mirror descent), and so do ḡ and A (dual averaging).
  if (zero_gradient && options_.lambda1 == 0.0 && options_.lambda2 == 0.0) return result;
  for (std::size_t a = 0; a < k; ++a) {  // Π̃g = Σ_κ ∂ℓ/∂p_κ Π̃(a⊗e_κ)
    double v = 0.0;
    for (std::size_t c = 0; c < K; ++c) v += dscores_[c] * reduce_[c * k + a];
    pg_[a] = v;
  }
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b) block_[a * k + b] += pg_[a] * pg_[b];  // Π̃G_tΠ̃ᵀ
  factor_block();
  update_complement(x);
  const double eta = options_.eta;
  if (dual_averaging()) {
    // x_{t+1} = argmin η⟨ḡ, x⟩ + ηtφ(x) + ½‖x‖²_A with ḡ = Π̃ᵀ(Σ Π̃g_s) + Σ P⊥g_s.
    for (std::size_t a = 0; a < k; ++a) sum_proj_[a] += pg_[a];
    for (std::size_t j = 0; j < perp_grad_.size(); ++j) sum_perp_[j] += perp_grad_[j];
    const double t = static_cast<double>(steps() + 1);
    if (lasso_)
      l1_step(sum_proj_, sum_perp_, eta * t * options_.lambda2, eta * t * options_.lambda1, false);
    else
      l2_step(sum_proj_, sum_perp_, eta * t * options_.lambda2, false);
  } else if (lasso_) {
    l1_step(pg_, perp_grad_, eta * options_.lambda2, eta * options_.lambda1, true);
  } else {
    l2_step(pg_, perp_grad_, eta * options_.lambda2, true);
  }
  return result;
}

}  // namespace adasketch
