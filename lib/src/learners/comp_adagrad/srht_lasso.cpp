#include "srht_lasso.hpp"

#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "adasketch/error.hpp"

namespace adasketch::detail {

namespace {

double soft_threshold(double v, double t) { return v > t ? v - t : v < -t ? v + t : 0.0; }

}  // namespace

SrhtLasso::SrhtLasso(const Communicator& comm, const Srht& srht, double tolerance, int max_iterations)
    : comm_(comm), srht_(srht), tolerance_(tolerance), max_iterations_(max_iterations),
      local_(srht.local_size()), k_(srht.rows()) {
  const std::size_t L = sz(local_), k = sz(k_), packed = k * (k + 1) / 2;
  for (Point* p : {&current_, &kept_}) {
    p->x.assign(L, 0.0);
    p->r.assign(L, 0.0);
    p->a.assign(k, 0.0);
    p->b.assign(k, 0.0);
  }
  for (auto* v : {&e_, &sign_, &beta_, &pi_side_, &d_side_}) v->assign(L, 0.0);
  s1_.assign(k, 0.0);
  reduce_.assign(2 * k + 3, 0.0);
  newton_.assign(3 * packed + 2 * k + 3, 0.0);
  system_.assign(4 * k * k, 0.0);
  rhs_.assign(2 * k, 0.0);
  pivots_.assign(2 * k, 0);
}

void SrhtLasso::evaluate(Point& p) {
  const Problem& q = *problem_;
  const std::size_t k = sz(k_);
  double local_f = 0.0, x1 = 0.0, dx1 = 0.0;
  for (std::size_t j = 0; j < sz(local_); ++j) {
    const double x = p.x[j];
    d_side_[j] = q.d[j] * x;
    local_f += 0.5 * e_[j] * x * x + q.u[j] * x + q.mu * std::abs(x);
    x1 += std::abs(x);
    dx1 += std::abs(d_side_[j]);
  }
  std::fill(reduce_.begin(), reduce_.end(), 0.0);
  srht_.forward(p.x, std::span<double>(reduce_).first(k));
  srht_.forward(d_side_, std::span<double>(reduce_).subspan(k, k));
  reduce_[2 * k] = local_f;
  reduce_[2 * k + 1] = x1;
  reduce_[2 * k + 2] = dx1;
  comm_.allreduce_sum(reduce_);
  // Every entry of Π̃ is ±1/√n, so |a_i| ≤ ‖x‖₁/√n and |b_i| ≤ ‖Dx‖₁/√n bound the terms summed.
  const double root_n = std::sqrt(static_cast<double>(srht_.dim()));
  p.a_terms = reduce_[2 * k + 1] / root_n;
  p.b_terms = reduce_[2 * k + 2] / root_n;
  std::copy_n(reduce_.begin(), k, p.a.begin());
  std::copy_n(reduce_.begin() + static_cast<std::ptrdiff_t>(k), k, p.b.begin());
  // f = ½xᵀEx + uᵀx + μ‖x‖₁ + ½aᵀ(K̂ + M)a − aᵀb
  double f = reduce_[2 * k];
  for (std::size_t i = 0; i < k; ++i) {
    double xa = 0.0;
    for (std::size_t j = 0; j < k; ++j) xa += q.block[i * k + j] * p.a[j];
    f += p.a[i] * (0.5 * xa - p.b[i]);
  }
  if (!std::isfinite(f)) throw NumericError("CompAdaGrad ℓ1 step: the objective is not finite");
  p.f = f;
}

void SrhtLasso::gradient(Point& p) {
  const Problem& q = *problem_;
  const std::size_t k = sz(k_);
  for (std::size_t i = 0; i < k; ++i) {  // s1 = (K̂ + M)a − b
    double v = -p.b[i];
    for (std::size_t j = 0; j < k; ++j) v += q.block[i * k + j] * p.a[j];
    s1_[i] = v;
  }
  srht_.transpose(s1_, pi_side_);
  srht_.transpose(p.a, d_side_);
  // Bounds on the magnitudes of the terms summed inside Π̃ᵀs1 and Π̃ᵀa (through a and b, every entry
  // of Π̃ being ±1/√n): the round-off level of those two terms of r_j, which cancel when D is large.
  const double root_n = std::sqrt(static_cast<double>(srht_.dim()));
  const double s1_terms = (block_abs_sum_ * p.a_terms + static_cast<double>(k) * p.b_terms) / root_n;
  const double pa_terms = static_cast<double>(k) * p.a_terms / root_n;
  omega2_ = scale2_ = floor2_ = p.face_omega2 = 0.0;
  for (std::size_t j = 0; j < sz(local_); ++j) {
    const double x = p.x[j], ex = e_[j] * x, dpa = q.d[j] * d_side_[j];
    const double r = ex + pi_side_[j] - dpa + q.u[j];  // (Qx + u)_j
    p.r[j] = r;
    const double omega = x != 0.0 ? std::abs(r + std::copysign(q.mu, x)) : std::max(std::abs(r) - q.mu, 0.0);
    const double scale = std::abs(ex) + std::abs(pi_side_[j]) + std::abs(dpa) + std::abs(q.u[j]) + q.mu;
    const double floor = std::abs(ex) + s1_terms + q.d[j] * pa_terms + std::abs(q.u[j]) + q.mu;
    omega2_ += omega * omega;
    scale2_ += scale * scale;
    floor2_ += floor * floor;
    if (x != 0.0) p.face_omega2 += omega * omega;
    const double z = ex - r;  // support prediction: |E_j x_j − r_j| > μ
    sign_[j] = z > q.mu ? 1.0 : z < -q.mu ? -1.0 : 0.0;
  }
  p.scale2 = scale2_;
}

bool SrhtLasso::reduce_newton_data() {
  const Problem& q = *problem_;
  const std::size_t k = sz(k_), packed = k * (k + 1) / 2, L = sz(local_);
  std::fill(newton_.begin(), newton_.end(), 0.0);
  const std::span<double> out(newton_);
  for (std::size_t j = 0; j < L; ++j) beta_[j] = sign_[j] != 0.0 ? -(q.u[j] + q.mu * sign_[j]) : 0.0;
  for (std::size_t power = 0; power < 3; ++power) {  // N_p = Π̃ diag(1_J D^p / E) Π̃ᵀ
    for (std::size_t j = 0; j < L; ++j) {
      const double d = q.d[j];
      pi_side_[j] = sign_[j] == 0.0 ? 0.0 : (power == 0 ? 1.0 : power == 1 ? d : d * d) / e_[j];
    }
    srht_.gram(pi_side_, out.subspan(power * packed, packed));
  }
  for (std::size_t j = 0; j < L; ++j) {  // V_JᵀE_J⁻¹β = [Π̃(β/E); Π̃(Dβ/E)] on J
    pi_side_[j] = beta_[j] / e_[j];
    d_side_[j] = q.d[j] * pi_side_[j];
  }
  srht_.forward(pi_side_, out.subspan(3 * packed, k));
  srht_.forward(d_side_, out.subspan(3 * packed + k, k));
  out[3 * packed + 2 * k] = omega2_;
  out[3 * packed + 2 * k + 1] = scale2_;
  out[3 * packed + 2 * k + 2] = floor2_;
  comm_.allreduce_sum(newton_);
  const double omega2 = out[3 * packed + 2 * k], scale2 = out[3 * packed + 2 * k + 1];
  if (!std::isfinite(omega2)) throw NumericError("CompAdaGrad ℓ1 step: the subgradient is not finite");
  at_floor_ = omega2 <= tolerance_ * tolerance_ * out[3 * packed + 2 * k + 2];
  return omega2 <= tolerance_ * tolerance_ * scale2;
}

void SrhtLasso::newton_point(Point& to) {
  const Problem& q = *problem_;
  const std::size_t k = sz(k_), packed = k * (k + 1) / 2, n2 = 2 * k;
  if (k > 0) {
    // C = [[N₀, N₁ − I], [N₁ − I, N₂ − (K̂ + M)]] (column-major = row-major: symmetric).
    const auto entry = [&](int power, std::size_t i, std::size_t j) {
      const std::size_t a = std::max(i, j), b = std::min(i, j);
      return newton_[sz(power) * packed + a * (a + 1) / 2 + b];
    };
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j) {
        const double identity = i == j ? 1.0 : 0.0;
        system_[i * n2 + j] = entry(0, i, j);
        system_[i * n2 + k + j] = system_[(k + j) * n2 + i] = entry(1, i, j) - identity;
        system_[(k + i) * n2 + k + j] = entry(2, i, j) - q.block[i * k + j];
      }
    std::copy_n(newton_.begin() + static_cast<std::ptrdiff_t>(3 * packed), n2, rhs_.begin());
    const lapack_int info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, static_cast<lapack_int>(n2), 1, system_.data(),
                                               static_cast<lapack_int>(n2), pivots_.data(), rhs_.data(),
                                               static_cast<lapack_int>(n2));
    if (info != 0) throw LapackError("dgesv (CompAdaGrad ℓ1 Newton system)", info);
  }
  // x_J = E_J⁻¹(β_J − (V w)_J), V w = Π̃ᵀw₁ + D Π̃ᵀw₂.
  srht_.transpose(std::span<const double>(rhs_).first(k), pi_side_);
  srht_.transpose(std::span<const double>(rhs_).subspan(k, k), d_side_);
  for (std::size_t j = 0; j < sz(local_); ++j)
    to.x[j] = sign_[j] != 0.0 ? (beta_[j] - pi_side_[j] - q.d[j] * d_side_[j]) / e_[j] : 0.0;
}

bool SrhtLasso::face_step(const Point& from, Point& to) {
  const Problem& q = *problem_;
  const std::size_t L = sz(local_);
  // Is `from` optimal on its face? And the largest violation |r_j| − μ among its zeros (first global
  // index on ties), so every rank picks the same coordinate.
  double violation = -1.0;
  index_t chosen = srht_.dim();
  for (std::size_t j = 0; j < L; ++j) {
    if (from.x[j] != 0.0) continue;
    const double v = std::abs(from.r[j]) - q.mu;
    const index_t g = srht_.global(static_cast<index_t>(j));
    if (v > violation || (v == violation && g < chosen)) {
      violation = v;
      chosen = g;
    }
  }
  face_sums_ = {from.face_omega2, from.scale2};
  comm_.allreduce_sum(face_sums_);
  const bool face_optimal = face_sums_[0] <= tolerance_ * tolerance_ * face_sums_[1];
  const double top = comm_.allreduce_max(violation);
  const bool add = face_optimal && top > 0.0;
  if (face_optimal && !add) return false;
  if (add) chosen = comm_.allreduce_min(violation == top ? chosen : srht_.dim());
  for (std::size_t j = 0; j < L; ++j) {
    const double x = from.x[j];
    sign_[j] = x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0;
    if (add && x == 0.0 && srht_.global(static_cast<index_t>(j)) == chosen) sign_[j] = from.r[j] > 0.0 ? -1.0 : 1.0;
  }
  reduce_newton_data();
  newton_point(to);  // z, the minimizer of g_s on the face
  // The first t ∈ (0, 1] at which a coordinate of x + t(z − x) reaches zero.
  double step = 1.0;
  for (std::size_t j = 0; j < L; ++j) {
    const double x = from.x[j], z = to.x[j];
    if (sign_[j] * z >= 0.0) continue;
    step = x == 0.0 ? 0.0 : std::min(step, x / (x - z));
  }
  step = comm_.allreduce_min(step);
  if (!(step > 0.0)) return false;
  for (std::size_t j = 0; j < L; ++j) {
    const double y = from.x[j] + step * (to.x[j] - from.x[j]);
    to.x[j] = sign_[j] * y > 0.0 ? y : 0.0;  // clipped where the step ends, 0 off J
  }
  return true;
}

void SrhtLasso::proximal_point(const Point& from, Point& to) {
  const Problem& q = *problem_;
  if (lipschitz_ == 0.0) {
    double dmax = 0.0;
    for (const double d : q.d) dmax = std::max(dmax, d);
    lipschitz_ = std::max(q.block_norm, comm_.allreduce_max(dmax)) + q.lambda;
  }
  for (std::size_t j = 0; j < sz(local_); ++j)
    to.x[j] = soft_threshold(from.x[j] - from.r[j] / lipschitz_, q.mu / lipschitz_);
}

SrhtLasso::Iterations SrhtLasso::solve(const Problem& problem, std::span<double> x, std::span<double> a) {
  problem_ = &problem;
  lipschitz_ = 0.0;
  for (std::size_t j = 0; j < sz(local_); ++j) e_[j] = problem.d[j] + problem.lambda;
  block_abs_sum_ = 0.0;
  for (const double v : problem.block) block_abs_sum_ += std::abs(v);
  std::copy_n(x.begin(), local_, current_.x.begin());
  evaluate(current_);
  gradient(current_);
  bool candidate = false;  // current_ is a Newton point not yet compared with kept_
  bool safeguard = false;  // current_ comes from a feature-sign or proximal-gradient step from kept_
  Iterations done;
  const auto finish = [&](const Point& p) {
    std::copy_n(p.x.begin(), local_, x.begin());
    std::copy(p.a.begin(), p.a.end(), a.begin());
    return done;
  };
  for (;;) {
    if (reduce_newton_data()) return finish(current_);
    current_.at_floor = at_floor_;
    // A safeguard step that does not decrease f is round-off: the kept point is as good as the
    // arithmetic allows if its subgradient is at the round-off level s' of its terms.
    if (safeguard && !(current_.f < kept_.f) && kept_.at_floor) {
      done.at_round_off = true;
      return finish(kept_);
    }
    safeguard = false;
    if (done.newton + done.face + done.proximal >= max_iterations_) break;
    if (candidate && !(current_.f < kept_.f)) {  // no decrease: a feature-sign step from the kept point
      if (face_step(kept_, current_)) {
        ++done.face;
      } else {
        proximal_point(kept_, current_);
        ++done.proximal;
      }
      evaluate(current_);
      gradient(current_);
      candidate = false;
      safeguard = true;
      continue;
    }
    std::swap(current_, kept_);  // keep it (the Newton data just reduced belong to it)
    newton_point(current_);
    evaluate(current_);
    gradient(current_);
    candidate = true;
    ++done.newton;
  }
  throw NumericError("CompAdaGrad ℓ1 step: the LASSO did not reach its tolerance in " + number_text(done.newton) +
                     " Newton, " + number_text(done.face) + " feature-sign and " + number_text(done.proximal) +
                     " proximal-gradient steps");
}

}  // namespace adasketch::detail
