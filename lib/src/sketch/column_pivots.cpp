#include "column_pivots.hpp"

#include <algorithm>
#include <cmath>

#include "adasketch/error.hpp"

namespace adasketch::detail {

namespace {

double dot(const double* a, const double* b, index_t m) {
  double s = 0.0;
  for (index_t i = 0; i < m; ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

void select_column_pivots(index_t m, index_t n, std::span<const double> columns, std::span<const index_t> preference,
                          index_t max_pivots, double strong_tolerance, double rank_tolerance, ColumnPivots& out) {
  ADASKETCH_REQUIRE(static_cast<index_t>(columns.size()) >= m * n, "columns has " + number_text(columns.size()) + " entries");
  const auto at = [&](index_t c) { return columns.data() + c * m; };
  out.pivots.clear();
  out.eliminated.clear();
  out.dropped.clear();
  double scale = 0.0;
  auto& norm = out.norm;
  norm.assign(static_cast<std::size_t>(n), 0.0);
  for (index_t c = 0; c < n; ++c) {
    norm[c] = std::sqrt(dot(at(c), at(c), m));
    scale = std::max(scale, norm[c]);
  }
  // 0 = candidate, 1 = pivot, 2 = dropped.
  auto& role = out.role;
  role.assign(static_cast<std::size_t>(n), 0);
  for (index_t c = 0; c < n; ++c)
    if (!(norm[c] > rank_tolerance * scale)) {
      role[c] = 2;
      out.dropped.push_back(c);
    }
  // Residuals of the candidates against the accepted directions (modified Gram–Schmidt).
  auto& residual = out.residual;
  residual.assign(columns.begin(), columns.begin() + m * n);
  auto& q = out.q;  // accepted orthonormal directions, m each
  q.clear();
  const auto residual_norm = [&](index_t c) { return std::sqrt(dot(residual.data() + c * m, residual.data() + c * m, m)); };
  const auto accept = [&](index_t c) {
    double* r = residual.data() + c * m;
    const index_t k = static_cast<index_t>(q.size()) / m;
    for (int pass = 0; pass < 2; ++pass)  // re-orthogonalize: the residual may be small
      for (index_t j = 0; j < k; ++j) {
        const double* qj = q.data() + j * m;
        const double s = dot(qj, r, m);
        for (index_t i = 0; i < m; ++i) r[i] -= s * qj[i];
      }
    const double rn = std::sqrt(dot(r, r, m));
    const std::size_t offset = q.size();
    q.resize(offset + static_cast<std::size_t>(m));
    for (index_t i = 0; i < m; ++i) q[offset + i] = r[i] / rn;
    const double* qk = q.data() + offset;
    role[c] = 1;
    out.pivots.push_back(c);
    for (index_t o = 0; o < n; ++o) {
      if (role[o] != 0) continue;
      double* ro = residual.data() + o * m;
      const double s = dot(qk, ro, m);
      for (index_t i = 0; i < m; ++i) ro[i] -= s * qk[i];
    }
  };
  const auto room = [&] { return static_cast<index_t>(out.pivots.size()) < std::min(max_pivots, m); };
  for (const index_t c : preference)
    if (room() && role[c] == 0 && residual_norm(c) >= strong_tolerance * scale) accept(c);
  while (room()) {
    index_t best = -1;
    double best_norm = rank_tolerance * scale;
    for (index_t c = 0; c < n; ++c)
      if (role[c] == 0) {
        const double r = residual_norm(c);
        if (r > best_norm) {
          best = c;
          best_norm = r;
        }
      }
    if (best < 0) break;
    accept(best);
  }
  // Coefficients: with R[i][j] = q_iᵀ c_{p_j} (upper triangular), solve R w = Qᵀ c_e.
  const auto P = static_cast<index_t>(out.pivots.size());
  auto& r = out.r;
  r.assign(static_cast<std::size_t>(P * P), 0.0);
  for (index_t j = 0; j < P; ++j)
    for (index_t i = 0; i <= j; ++i) r[i * P + j] = dot(q.data() + i * m, at(out.pivots[j]), m);
  for (index_t c = 0; c < n; ++c)
    if (role[c] == 0) out.eliminated.push_back(c);
  out.weights.assign(out.eliminated.size() * static_cast<std::size_t>(P), 0.0);
  for (std::size_t e = 0; e < out.eliminated.size(); ++e) {
    double* w = out.weights.data() + e * static_cast<std::size_t>(P);
    for (index_t i = 0; i < P; ++i) w[i] = dot(q.data() + i * m, at(out.eliminated[e]), m);
    for (index_t i = P - 1; i >= 0; --i) {
      double v = w[i];
      for (index_t j = i + 1; j < P; ++j) v -= r[i * P + j] * w[j];
      w[i] = v / r[i * P + i];
    }
  }
}

}  // namespace adasketch::detail
