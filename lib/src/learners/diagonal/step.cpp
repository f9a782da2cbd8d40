// DiagonalAdaGrad's step (Duchi, Hazan, Singer 2011): lazy composite updates per coordinate, the scores and
// the weights; construction, the spec and the state are in diagonal_adagrad.cpp.
#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"

#include <cmath>
#include <span>

#include "../nonzeros.hpp"
#include "../softmax_layout.hpp"
#include "adasketch/error.hpp"

namespace adasketch {

namespace {

// k steps of the composite mirror-descent shrink y ↦ soft(y, a)/(1 + b) in closed form (header).
double shrink_steps(double y, double a, double b, double k) noexcept {
  if (k <= 0.0 || y == 0.0) return y;
  double m;
  if (b == 0.0) {
    m = std::abs(y) - k * a;
  } else {
    const double kl = -k * std::log1p(b);  // r^k = e^{kl}, a r(1 − r^k)/(1 − r) = −a·expm1(kl)/b
    m = std::abs(y) * std::exp(kl) + a * std::expm1(kl) / b;
  }
  return m > 0.0 ? std::copysign(m, y) : 0.0;
}

}  // namespace

double DiagonalAdaGrad::weight(std::size_t entry, index_t steps) const noexcept {
  if (options_.update == DiagonalAdaGradOptions::Update::mirror_descent && !lazy_shrink()) return state_[entry];
  const double eta = options_.eta;
  const double H = options_.delta + std::sqrt(sum_square_[entry]);
  if (options_.update == DiagonalAdaGradOptions::Update::mirror_descent) {
    // The steps after last_[entry] had a zero gradient entry: H was constant over them.
    return shrink_steps(state_[entry], eta * options_.lambda1 / H, eta * options_.lambda2 / H,
                        static_cast<double>(steps) - last_[entry]);
  }
  const double gbar = state_[entry];
  // Dual averaging, ADA-FD paper eq. (1) with φ = 0: w = −η H⁻¹ Σ_s g_s.
  if (!composite()) return -eta * gbar / H;
  // With Duchi et al.'s tηφ: w = −η soft(ḡ, tλ₁)/(H + ηtλ₂), t = steps taken.
  const double t = static_cast<double>(steps);
  const double m = std::abs(gbar) - t * options_.lambda1;
  return m > 0.0 ? -eta * std::copysign(m, gbar) / (H + eta * t * options_.lambda2) : 0.0;
}

void DiagonalAdaGrad::update(std::size_t entry, double g, index_t step) noexcept {
  const double G = sum_square_[entry] += g * g;
  if (options_.update == DiagonalAdaGradOptions::Update::dual_averaging) {
    state_[entry] += g;
    return;
  }
  const double H = options_.delta + std::sqrt(G);
  const double y = state_[entry] - options_.eta * g / H;  // eq. (2), φ = 0: w − η H_t⁻¹ g_t
  if (!lazy_shrink()) {
    state_[entry] = y;
    return;
  }
  // Eq. (2) with φ: soft(y, ηλ₁/H)/(1 + ηλ₂/H).
  const double m = std::abs(y) - options_.eta * options_.lambda1 / H;
  state_[entry] = m > 0.0 ? std::copysign(m / (1.0 + options_.eta * options_.lambda2 / H), y) : 0.0;
  last_[entry] = static_cast<double>(step);
}

void DiagonalAdaGrad::add_local_scores(const LocalRow& x, std::span<double> out) const {
  const std::size_t K = out.size();
  const index_t t = steps();
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k) out[k] += v * weight(class_entry(j, k, K), t);
  });
}

StepResult DiagonalAdaGrad::do_step(const LocalRow& x, double label) {
  std::fill(scores_.begin(), scores_.end(), 0.0);
  detail::prefetch_entries(x, state_.data(), scores_.size());
  detail::prefetch_entries(x, sum_square_.data(), scores_.size());
  const index_t before = steps();
  const std::size_t K = dscores_.size();
  if (lazy_shrink())  // bring x's entries up to date: w_t
    detail::for_each_nonzero(x, [&](std::size_t j, double) {
      for (std::size_t k = 0; k < K; ++k) {
        state_[class_entry(j, k, K)] = weight(class_entry(j, k, K), before);
        last_[class_entry(j, k, K)] = static_cast<double>(before);
      }
    });
  add_local_scores(x, scores_);
  comm().allreduce_sum(scores_);  // the step's one Allreduce: K numbers
  for (double s : scores_)
    if (!std::isfinite(s)) throw NumericError(name() + ": the score wᵀx is not finite");
  const StepResult result{loss().value(scores_, label), loss().mistake(scores_, label)};
  loss().derivative(scores_, label, dscores_);
  if (std::all_of(dscores_.begin(), dscores_.end(), [](double g) { return g == 0.0; })) return result;
  detail::for_each_nonzero(x, [&](std::size_t j, double v) {
    for (std::size_t k = 0; k < K; ++k)  // g_jk = x_j ∂ℓ/∂p_k
      update(class_entry(j, k, K), v * dscores_[k], before + 1);
  });
  return result;
}

void DiagonalAdaGrad::weights(std::span<double> out) const {
  ADASKETCH_REQUIRE(out.size() >= state_.size(), "out.size() = " + number_text(out.size()) + ", needs " +
                                                     number_text(state_.size()));
  const index_t t = steps();
  for (std::size_t e = 0; e < state_.size(); ++e) out[e] = weight(e, t);
}

}  // namespace adasketch
