#include "arrowhead_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

extern "C" {
// LAPACK: the I-th root of the secular equation of D² + ρ z zᵀ (0 ≤ D(1) < … < D(N), ‖z‖ = 1), its
// square root SIGMA, DELTA(j) = D(j) − SIGMA and WORK(j) = D(j) + SIGMA.
void dlasd4_(const int* n, const int* i, const double* d, const double* z, double* delta, const double* rho,
             double* sigma, double* work, int* info);
}

namespace adasketch::detail {

namespace {
constexpr double kUnit = 0x1p-53;  // LAPACK's dlamch('Epsilon')
constexpr std::size_t sz_t(int i) noexcept { return static_cast<std::size_t>(i); }
}  // namespace

std::size_t arrowhead_doubles(int n) noexcept { return 2 * sz_t(n) * sz_t(n) + 9 * sz_t(n); }
std::size_t arrowhead_ints(int n) noexcept { return 5 * sz_t(n); }

bool arrowhead_eigen(const double* a, int n, int h, double* values, double* vectors, double* work, int* iwork) {
  if (n < 2 || h < 0 || h >= n) return false;
  const auto at = [&](int r, int c) { return a[static_cast<std::size_t>(c) * n + r]; };
  const auto un = static_cast<std::size_t>(n);
  // The workspace: n² + n² + 9n doubles, 5n ints.
  double* root_diff = work;                // n × n: the roots' d − σ
  double* root_sum = root_diff + un * un;      // n × n: the roots' d + σ
  double* s = root_sum + un * un;          // G's diagonal, by G coordinate
  double* z = s + un;                 // G's first row
  double* zn = z + un;              // the secular problem's z, then scratch
  double* sigma = zn + un;          // its roots σ, then scratch
  double* dk = sigma + un;         // its d
  double* deflated_value = dk + un;
  double* rot_c = deflated_value + un;
  double* rot_s = rot_c + un;
  int* order = iwork;                  // G coordinate → index of a
  int* secular = order + un;             // the secular problem's coordinates, then a permutation
  int* deflated_at = secular + un;
  int* rot_first = deflated_at + un;
  int* rot_second = rot_first + un;
  int rotations = 0;
  // G = [z₀ z₁ … ; 0 diag(s₁, …)]: coordinate 0 is the head h (s₀ = 0, z₀ = √ρ), coordinates 1… the
  // other indices by ascending s = √d_i, z_g = b_i/s_g. Then G Gᵀ is M with its indices permuted.
  const double beta = at(h, h);
  double top = std::abs(beta);
  int m = 0;
  order[0] = h;
  for (int i = 0; i < n; ++i) {
    if (i == h) continue;
    if (!(at(i, i) >= 0.0)) return false;
    top = std::max(top, at(i, i));
    order[sz_t(++m)] = i;
  }
  std::sort(order + 1, order + n, [&](int x, int y) { return at(x, x) < at(y, y); });
  double rho = beta;
  s[0] = 0.0;
  for (int g = 1; g < n; ++g) {
    const int i = order[sz_t(g)];
    const double d = at(i, i), b = at(h, i);
    if (d == 0.0 && b != 0.0) return false;  // not positive semidefinite
    s[sz_t(g)] = std::sqrt(d);
    z[sz_t(g)] = d == 0.0 ? 0.0 : b / s[sz_t(g)];
    rho -= z[sz_t(g)] * z[sz_t(g)];
  }
  // ρ = β − ‖c‖² ≥ 0 for M ⪰ 0; its computed value carries at most 2n·u·β of round-off.
  if (rho < -8.0 * n * kUnit * top) return false;
  z[0] = std::sqrt(std::max(rho, 0.0));

  // Deflation as dlasd2: a tiny z_g leaves (s_g, e_g); two s within tol are rotated so that the
  // earlier's z is zero, which leaves it deflated. tol = 8u·max(s_max, |z₀|).
  double zmax = z[0];
  for (int g = 1; g < n; ++g) zmax = std::max(zmax, std::abs(z[sz_t(g)]));
  const double tol = 8.0 * kUnit * std::max(s[sz_t(n - 1)], zmax);
  int live = 0, deflated = 0;
  secular[sz_t(live++)] = 0;
  int previous = -1;
  for (int g = 1; g < n; ++g) {
    if (std::abs(z[sz_t(g)]) <= tol) {
      deflated_at[sz_t(deflated)] = g;
      deflated_value[sz_t(deflated++)] = s[sz_t(g)];
      continue;
    }
    if (previous >= 0 && s[sz_t(g)] - s[sz_t(previous)] <= tol) {
      const double r = std::hypot(z[sz_t(g)], z[sz_t(previous)]);
      rot_first[rotations] = previous;
      rot_second[rotations] = g;
      rot_c[rotations] = z[sz_t(g)] / r;
      rot_s[rotations++] = -z[sz_t(previous)] / r;
      z[sz_t(g)] = r;
      z[sz_t(previous)] = 0.0;
      deflated_at[sz_t(deflated)] = previous;
      deflated_value[sz_t(deflated++)] = s[sz_t(previous)];
      --live;  // previous was the last live coordinate
    }
    secular[sz_t(live++)] = g;
    previous = g;
  }
  if (std::abs(z[0]) <= tol) z[0] = tol;
  // The secular problem on the live coordinates: d = s (d₀ = 0 < d₁ < …), z normalized.
  const int K = live;
  for (int k = 0; k < K; ++k) {
    dk[sz_t(k)] = s[sz_t(secular[sz_t(k)])];
    zn[sz_t(k)] = z[sz_t(secular[sz_t(k)])];
  }
  if (K > 1 && dk[1] <= tol / 2.0) dk[1] = tol / 2.0;  // d₁ > d₀ = 0 (dlasd2)
  double norm = 0.0;
  for (int k = 0; k < K; ++k) norm = std::hypot(norm, zn[sz_t(k)]);
  const double rho_k = norm * norm;
  for (int k = 0; k < K; ++k) zn[sz_t(k)] /= norm;
  std::fill(vectors, vectors + un * un, 0.0);
  int out = 0;
  if (K == 1) {
    sigma[0] = norm;  // G restricted to the head: its row z₀
    values[out] = norm * norm;
    vectors[static_cast<std::size_t>(out) * un + 0] = 1.0;  // G coordinates for now
    ++out;
  } else {
    for (int j = 1; j <= K; ++j) {
      int info = 0;
      dlasd4_(&K, &j, dk, zn, root_diff + static_cast<std::size_t>(j - 1) * un, &rho_k, &sigma[sz_t(j - 1)],
              root_sum + static_cast<std::size_t>(j - 1) * un, &info);
      if (info != 0) return false;
    }
    // Löwner's ẑ (dlasd3): ẑ_i² = Π_j (d_i² − σ_j²) / Π_{k≠i} (d_i² − d_k²), factors paired so that
    // each ratio is of moderate size; its sign is z_i's. With it the vectors are orthogonal to
    // working accuracy however close the σ are.
    const auto del = [&](int i, int j) { return root_diff[static_cast<std::size_t>(j) * un + sz_t(i)]; };
    const auto sum = [&](int i, int j) { return root_sum[static_cast<std::size_t>(j) * un + sz_t(i)]; };
    for (int i = 0; i < K; ++i) {
      double p = del(i, K - 1) * sum(i, K - 1);
      for (int j = 0; j < i; ++j)
        p *= del(i, j) * sum(i, j) / (dk[sz_t(i)] - dk[sz_t(j)]) / (dk[sz_t(i)] + dk[sz_t(j)]);
      for (int j = i; j < K - 1; ++j)
        p *= del(i, j) * sum(i, j) / (dk[sz_t(i)] - dk[sz_t(j + 1)]) / (dk[sz_t(i)] + dk[sz_t(j + 1)]);
      z[sz_t(secular[sz_t(i)])] = std::copysign(std::sqrt(std::abs(p)), z[sz_t(secular[sz_t(i)])]);
    }
    // Left singular vectors (dlasd3): u₀ = −1, u_k = d_k ẑ_k / ((d_k − σ)(d_k + σ)), normalized.
    for (int j = 0; j < K; ++j, ++out) {
      double* v = vectors + static_cast<std::size_t>(out) * un;
      v[0] = -1.0;
      double nn = 1.0;
      for (int k = 1; k < K; ++k) {
        const double e = dk[sz_t(k)] * z[sz_t(secular[sz_t(k)])] / (del(k, j) * sum(k, j));
        v[secular[sz_t(k)]] = e;
        nn += e * e;
      }
      const double inv = 1.0 / std::sqrt(nn);
      v[0] *= inv;
      for (int k = 1; k < K; ++k) v[secular[sz_t(k)]] *= inv;
      values[out] = sigma[sz_t(j)] * sigma[sz_t(j)];
    }
  }
  for (int q = 0; q < deflated; ++q, ++out) {
    vectors[static_cast<std::size_t>(out) * un + sz_t(deflated_at[sz_t(q)])] = 1.0;
    values[out] = deflated_value[sz_t(q)] * deflated_value[sz_t(q)];
  }
  // Back from the rotated coordinates (the rotations undone last first), then from G's order to M's.
  for (int c = 0; c < n; ++c) {
    double* v = vectors + static_cast<std::size_t>(c) * un;
    for (int r = rotations - 1; r >= 0; --r) {
      // The basis after rotation r: e'_first = c·e_first + s·e_second, e'_second = c·e_second − s·e_first.
      const int f = rot_first[r], g = rot_second[r];
      const double c0 = rot_c[r], s0 = rot_s[r], xf = v[f], xs = v[g];
      v[f] = c0 * xf - s0 * xs;
      v[g] = s0 * xf + c0 * xs;
    }
    for (int g = 0; g < n; ++g) zn[sz_t(order[sz_t(g)])] = v[g];
    std::copy_n(zn, n, v);
  }
  // Ascending, as dsyevd leaves them.
  for (int c = 0; c < n; ++c) secular[sz_t(c)] = c;
  std::sort(secular, secular + n, [&](int x, int y) { return values[x] < values[y]; });
  for (int c = 0; c < n; ++c) sigma[sz_t(c)] = values[secular[sz_t(c)]];
  for (int c = 0; c < n; ++c) {
    values[c] = sigma[sz_t(c)];
    std::copy_n(vectors + static_cast<std::size_t>(secular[sz_t(c)]) * un, n, root_diff + static_cast<std::size_t>(c) * un);
  }
  std::copy_n(root_diff, un * un, vectors);
  return true;
}

}  // namespace adasketch::detail
