#include "dense_lasso.hpp"

#include <cmath>

namespace adasketch::test::dense {

std::vector<double> congruence(const std::vector<double>& b, const std::vector<double>& s, index_t m, index_t n) {
  std::vector<double> sb(sz(m * n), 0.0), out(sz(n * n), 0.0);
  for (index_t i = 0; i < m; ++i)
    for (index_t l = 0; l < m; ++l)
      for (index_t j = 0; j < n; ++j) sb[sz(i * n + j)] += s[sz(i * m + l)] * b[sz(l * n + j)];
  for (index_t i = 0; i < m; ++i)
    for (index_t r = 0; r < n; ++r)
      for (index_t c = 0; c < n; ++c) out[sz(r * n + c)] += b[sz(i * n + r)] * sb[sz(i * n + c)];
  return out;
}

std::vector<double> multiply(const std::vector<double>& a, const std::vector<double>& x, index_t n) {
  std::vector<double> y(sz(n), 0.0);
  for (index_t r = 0; r < n; ++r)
    for (index_t c = 0; c < n; ++c) y[sz(r)] += a[sz(r * n + c)] * x[sz(c)];
  return y;
}

std::vector<double> coordinate_descent(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n) {
  std::vector<double> x(sz(n), 0.0);
  const double target = 1e-14 * std::max(1.0, std::abs(*std::max_element(u.begin(), u.end(), [](double a, double b) {
    return std::abs(a) < std::abs(b);
  })));
  for (int sweep = 0; sweep < 2000000; ++sweep) {
    for (index_t j = 0; j < n; ++j) {
      double r = u[sz(j)];
      for (index_t i = 0; i < n; ++i)
        if (i != j) r += q[sz(j * n + i)] * x[sz(i)];
      const double qjj = q[sz(j * n + j)];
      x[sz(j)] = r < -mu ? (-r - mu) / qjj : r > mu ? (-r + mu) / qjj : 0.0;
    }
    double residual = 0.0;
    const std::vector<double> grad = multiply(q, x, n);
    for (index_t j = 0; j < n; ++j) {
      const double r = grad[sz(j)] + u[sz(j)];
      residual = std::max(residual, x[sz(j)] != 0.0 ? std::abs(r + std::copysign(mu, x[sz(j)])) : std::max(std::abs(r) - mu, 0.0));
    }
    if (residual <= target) return x;
  }
  ADD_FAILURE() << "coordinate descent did not converge";
  return x;
}

double kkt_residual(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n,
                    const std::vector<double>& x) {
  double worst = 0.0, scale = 0.0;
  for (index_t j = 0; j < n; ++j) {
    double r = u[sz(j)], size = std::abs(u[sz(j)]) + mu;
    for (index_t i = 0; i < n; ++i) {
      r += q[sz(j * n + i)] * x[sz(i)];
      size += std::abs(q[sz(j * n + i)] * x[sz(i)]);
    }
    const double xj = x[sz(j)];
    worst = std::max(worst, xj != 0.0 ? std::abs(r + std::copysign(mu, xj)) : std::max(std::abs(r) - mu, 0.0));
    scale = std::max(scale, size);
  }
  return worst / scale;
}

std::vector<double> certified_lasso(const std::vector<double>& q, const std::vector<double>& u, double mu, index_t n,
                                    int sweeps, double* residual) {
  std::vector<double> x(sz(n), 0.0), polished(sz(n));
  for (int round = 0; round < 20; ++round) {
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      for (index_t j = 0; j < n; ++j) {
        double r = u[sz(j)];
        for (index_t i = 0; i < n; ++i)
          if (i != j) r += q[sz(j * n + i)] * x[sz(i)];
        const double qjj = q[sz(j * n + j)];
        x[sz(j)] = r < -mu ? (-r - mu) / qjj : r > mu ? (-r + mu) / qjj : 0.0;
      }
    }
    std::vector<index_t> support;
    for (index_t j = 0; j < n; ++j)
      if (x[sz(j)] != 0.0) support.push_back(j);
    const auto m = static_cast<index_t>(support.size());
    std::vector<double> qjj(sz(m * m)), rhs(sz(m)), sign(sz(m));
    for (index_t a = 0; a < m; ++a) {
      sign[sz(a)] = x[sz(support[sz(a)])] > 0.0 ? 1.0 : -1.0;
      rhs[sz(a)] = -(u[sz(support[sz(a)])] + mu * sign[sz(a)]);
      for (index_t b = 0; b < m; ++b) qjj[sz(a * m + b)] = q[sz(support[sz(a)] * n + support[sz(b)])];
    }
    if (m > 0) {
      EXPECT_EQ(LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(m), 1, qjj.data(),
                              static_cast<lapack_int>(m), rhs.data(), 1),
                0);
    }
    std::fill(polished.begin(), polished.end(), 0.0);
    bool signs_agree = true;
    for (index_t a = 0; a < m; ++a) {
      polished[sz(support[sz(a)])] = rhs[sz(a)];
      signs_agree = signs_agree && rhs[sz(a)] * sign[sz(a)] > 0.0;
    }
    *residual = kkt_residual(q, u, mu, n, polished);
    if (signs_agree && *residual <= 1e-13) break;
    for (index_t j = 0; j < n; ++j)  // the next round starts from the solve, clipped to its orthant
      x[sz(j)] = polished[sz(j)] * x[sz(j)] > 0.0 ? polished[sz(j)] : 0.0;
  }
  return polished;
}

}  // namespace adasketch::test::dense
