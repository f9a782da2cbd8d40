// The deferred shrinks of the sparse FD form (lib/src/sketch/shrink_history.hpp) against the
// transitions applied one by one: a column and its deferred weight brought from every start epoch
// to the current one through the aligned products agree with the sequential map, and a copy rebuilt
// from the transitions (as a checkpoint restores it) advances bitwise alike; a sweep (every column
// through one product up to the current epoch) agrees too. Each rank runs its own
// sequence (the structure is local to a rank).
//
// Bound: both computations evaluate the same product of n = E − e maps (R × R, or kept × R after
// the first) in another order; each is within γ_{n·R}·|T_E|⋯|T_{e+1}|·|(z, w)| of the exact product
// (Higham, Accuracy and Stability, Lemma 3.8 for a product of matrices, entrywise), so they differ by
// at most twice that. γ_m = m·u/(1 − m·u); the test evaluates the absolute product itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "adasketch/error.hpp"
#include "sketch/shrink_history.hpp"
#include "test_support.hpp"

using namespace adasketch;
using adasketch::detail::ShrinkHistory;

namespace {

struct Transition {
  std::vector<double> s, q;  // kept × R, R
};

// (z, w) ← T (z, w): w += qᵀz, z ← S z (rows from kept on zero). With `absolute`, |T| instead.
void apply(const Transition& t, index_t R, index_t kept, std::vector<double>& z, double& w, bool absolute) {
  std::vector<double> out(static_cast<std::size_t>(R), 0.0);
  for (index_t c = 0; c < R; ++c) w += (absolute ? std::abs(t.q[sz(c)]) : t.q[sz(c)]) * z[sz(c)];
  for (index_t r = 0; r < kept; ++r)
    for (index_t c = 0; c < R; ++c) {
      const double s = t.s[sz(r * R + c)];
      out[sz(r)] += (absolute ? std::abs(s) : s) * z[sz(c)];
    }
  z = out;
}

// (z, w), the column (z0, w0) brought from epoch e to E, against transitions e + 1 … E applied one
// by one, within the bound of the file's comment.
void expect_sequential(const std::vector<Transition>& all, index_t R, index_t kept, index_t e, index_t E,
                       std::vector<double> ref, double w_ref, const std::vector<double>& z, double w,
                       const char* what) {
  std::vector<double> mag(sz(R));
  for (index_t i = 0; i < R; ++i) mag[sz(i)] = std::abs(ref[sz(i)]);
  double w_mag = std::abs(w_ref);
  for (index_t t = e; t < E; ++t) {
    apply(all[sz(t)], R, kept, ref, w_ref, false);
    apply(all[sz(t)], R, kept, mag, w_mag, true);
  }
  const double n = static_cast<double>((E - e) * R + 1);
  const double gamma = n * 0x1p-53 / (1.0 - n * 0x1p-53);
  for (index_t i = 0; i < R; ++i)
    EXPECT_LE(std::abs(z[sz(i)] - ref[sz(i)]), 2.0 * gamma * mag[sz(i)])
        << what << ": R = " << R << ", kept = " << kept << ", epoch " << e << " to " << E << ", row " << i;
  EXPECT_LE(std::abs(w - w_ref), 2.0 * gamma * w_mag) << what << ": epoch " << e << " to " << E;
}

}  // namespace

TEST(ShrinkHistory, AlignedProductsAgreeWithTheTransitionsOneByOne) {
  const auto comm = test::world();
  for (const index_t R : {1, 6, 40}) {
    for (const index_t kept : {index_t{1}, R / 2, R}) {
      if (kept < 1) continue;
      std::mt19937_64 gen(static_cast<unsigned>(3 + 17 * R + kept + 1000 * comm.rank()));
      std::uniform_real_distribution<double> unit(-1.0, 1.0);
      ShrinkHistory history(R, kept, 50);
      std::vector<Transition> all;
      const index_t restart_at = 23;  // the history forgets the first 23 and starts again there
      for (index_t t = 0; t < 70; ++t) {
        if (t == restart_at) history.restart(t);
        Transition tr{std::vector<double>(sz(kept * R)), std::vector<double>(sz(R), 0.0)};
        // Contractions scaled as FD's shrinks are (‖S‖ ≤ 1), and folds in about half the epochs.
        for (double& v : tr.s) v = unit(gen) / static_cast<double>(R);
        if (gen() % 2 == 0)
          for (double& v : tr.q) v = unit(gen);
        history.push(tr.s, tr.q);
        all.push_back(tr);
        ASSERT_EQ(history.epoch(), t + 1);
      }
      const index_t E = history.epoch();
      // A checkpoint's copy: the base, the count and the transitions, the products rebuilt.
      ShrinkHistory copy(R, kept, 50);
      copy.base_field() = history.base_field();
      copy.count_field() = history.count_field();
      std::copy(history.transitions().begin(), history.transitions().end(), copy.transitions().begin());
      copy.rebuild();
      // A sweep's copy: its transitions replaced by their products up to E.
      ShrinkHistory swept(R, kept, 50);
      swept.base_field() = history.base_field();
      swept.count_field() = history.count_field();
      std::copy(history.transitions().begin(), history.transitions().end(), swept.transitions().begin());
      swept.rebuild();
      swept.begin_sweep();
      for (index_t e = history.base(); e <= E; ++e) {
        std::vector<double> z(sz(R));
        for (double& v : z) v = unit(gen);
        const std::vector<double> z0 = z;
        double w = 0.25;
        std::vector<double> z_copy = z, z_swept = z;
        double w_copy = w, w_swept = w;
        swept.sweep_advance(z_swept.data(), w_swept, e);
        history.advance(z.data(), w, e);
        copy.advance(z_copy.data(), w_copy, e);
        EXPECT_TRUE(z_copy == z && w_copy == w) << "the rebuilt copy advances bitwise alike, from epoch " << e;
        expect_sequential(all, R, kept, e, E, z0, 0.25, z, w, "advanced");
        expect_sequential(all, R, kept, e, E, z0, 0.25, z_swept, w_swept, "swept");
        if (e < E) {
          for (index_t i = kept; i < R; ++i) EXPECT_EQ(z[sz(i)], 0.0) << "a row a shrink zeroes";
        }
      }
      std::vector<double> column(sz(R), 1.0);
      double weight = 0.0;
      EXPECT_THROW(swept.advance(column.data(), weight, E - 1), InvalidArgument) << "advance() during a sweep";
      EXPECT_THROW(swept.push(all[0].s, all[0].q), InvalidArgument) << "push() during a sweep";
      EXPECT_THROW(history.sweep_advance(column.data(), weight, E - 1), InvalidArgument) << "outside a sweep";
      swept.restart(E);
      EXPECT_NO_THROW(swept.push(all[0].s, all[0].q)) << "restart() ends the sweep";
      EXPECT_THROW(history.advance(column.data(), weight, restart_at - 1), InvalidArgument)
          << "an epoch before the restart cannot be brought up to date";
      while (!history.full()) history.push(all[0].s, all[0].q);
      EXPECT_THROW(history.push(all[0].s, all[0].q), InvalidArgument) << "a full history needs a restart first";
    }
  }
}

// A row's columns advance in a batch (advance_batch: columns whose paths meet share each block):
// every column ends bitwise as advance() leaves it alone (which the test above holds to the
// sequential map).
TEST(ShrinkHistory, BatchedColumnsAdvanceAsColumnsAlone) {
  const index_t R = 40, kept = 19, E = 45;
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  ShrinkHistory history(R, kept, 64);
  for (index_t t = 0; t < E; ++t) {
    Transition tr{std::vector<double>(sz(kept * R)), std::vector<double>(sz(R))};
    for (double& v : tr.s) v = unit(gen) / static_cast<double>(R);
    for (double& v : tr.q) v = unit(gen);
    history.push(tr.s, tr.q);
  }
  // Every start epoch, several twice (paths that start together), in a shuffled order; more than a
  // batch, so the last batch is a partial one.
  std::vector<index_t> starts;
  for (index_t e = 0; e <= E; ++e) starts.push_back(e);
  for (index_t e = 0; e <= E; e += 2) starts.push_back(e);
  std::shuffle(starts.begin(), starts.end(), gen);
  ASSERT_GT(starts.size(), ShrinkHistory::kBatch);
  const std::size_t n = starts.size();
  std::vector<std::vector<double>> batched(n), alone(n);
  std::vector<double> w_batched(n), w_alone(n);
  for (std::size_t i = 0; i < n; ++i) {
    batched[i].resize(sz(R));
    for (double& v : batched[i]) v = unit(gen);
    alone[i] = batched[i];
    w_batched[i] = w_alone[i] = unit(gen);
    history.advance(alone[i].data(), w_alone[i], starts[i]);
  }
  for (std::size_t first = 0; first < n; first += ShrinkHistory::kBatch) {
    const std::size_t count = std::min(ShrinkHistory::kBatch, n - first);
    std::vector<double*> z, w;
    for (std::size_t i = first; i < first + count; ++i) {
      z.push_back(batched[i].data());
      w.push_back(&w_batched[i]);
    }
    history.advance_batch(z, w, std::span<const index_t>(starts).subspan(first, count));
  }
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(batched[i] == alone[i] && w_batched[i] == w_alone[i]) << "column " << i << " from epoch " << starts[i];
  }
  std::vector<double*> too_many(ShrinkHistory::kBatch + 1, batched[0].data());
  std::vector<double*> weights(ShrinkHistory::kBatch + 1, &w_batched[0]);
  std::vector<index_t> epochs(ShrinkHistory::kBatch + 1, E);
  EXPECT_THROW(history.advance_batch(too_many, weights, epochs), InvalidArgument) << "more than kBatch columns";
}

// A history past 2^(2·kTierBits) transitions: paths from old epochs ascend through both suffix
// tiers (ShrinkHistory::step_at), and the current position's prefixes are formed anew when the
// position past their last kPrefixLowBits bits changes. Checked as the first test does (the same
// bound), from start epochs around the tiers' boundaries and spread between them, at three current
// epochs; columns with a single non-zero entry (a rare feature's, written once) among them.
TEST(ShrinkHistory, LongHistoriesAgreeWithTheTransitionsOneByOne) {
  const auto comm = test::world();
  const index_t R = 6, kept = 3, chunk = index_t{1} << (2 * ShrinkHistory::kTierBits);
  std::mt19937_64 gen(static_cast<unsigned>(29 + 1000 * comm.rank()));
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  ShrinkHistory history(R, kept, chunk + 200);
  std::vector<Transition> all;
  const auto push_until = [&](index_t E) {
    while (history.epoch() < E) {
      Transition tr{std::vector<double>(sz(kept * R)), std::vector<double>(sz(R))};
      for (double& v : tr.s) v = unit(gen) / static_cast<double>(R);
      for (double& v : tr.q) v = unit(gen);
      history.push(tr.s, tr.q);
      all.push_back(tr);
    }
  };
  const auto check = [&](index_t E) {
    std::vector<index_t> starts;
    for (index_t e = 0; e <= E; e += 37) starts.push_back(e);
    for (index_t b = 64; b <= E; b += 64)
      for (const index_t e : {b - 1, b, b + 1}) starts.push_back(std::min(e, E));
    for (index_t e = std::max<index_t>(0, E - 70); e <= E; ++e) starts.push_back(e);
    for (const index_t e : starts) {
      std::vector<double> z(sz(R), 0.0);
      if (e % 2 == 0) {
        z[sz(e % R)] = unit(gen);  // one non-zero entry
      } else {
        for (double& v : z) v = unit(gen);
      }
      const std::vector<double> z0 = z;
      double w = 0.5;
      history.advance(z.data(), w, e);
      expect_sequential(all, R, kept, e, E, z0, 0.5, z, w, "a long history");
    }
  };
  push_until(chunk + 37);
  check(chunk + 37);
  push_until(chunk + 150);  // other prefixes: those of epoch chunk + 37 would be wrong here
  check(chunk + 150);
  push_until(chunk + 158);  // the same prefixes by h (prefix(8) from chunk), but another way down
  check(chunk + 158);
  ShrinkHistory copy(R, kept, chunk + 200);
  copy.base_field() = history.base_field();
  copy.count_field() = history.count_field();
  std::copy(history.transitions().begin(), history.transitions().end(), copy.transitions().begin());
  copy.rebuild();
  for (index_t e = 0; e <= history.epoch(); e += 13) {
    std::vector<double> z(sz(R)), z_copy;
    for (double& v : z) v = unit(gen);
    z_copy = z;
    double w = 0.0, w_copy = 0.0;
    history.advance(z.data(), w, e);
    copy.advance(z_copy.data(), w_copy, e);
    ASSERT_TRUE(z == z_copy && w == w_copy) << "the rebuilt copy advances bitwise alike, from epoch " << e;
  }
}
