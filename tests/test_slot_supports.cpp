// The support bookkeeping of the sparse FD form (lib/src/sketch/slot_supports.hpp) against plain
// loops over the whole block: random sequences of writes (sparse and dense rows), folds, lazy-weight
// reads, erases and rebuilds leave the same block and the same lazy weights as loops that ignore
// supports. A support that missed a non-zero entry would skip it and differ. Each rank runs its own
// sequence (the structure is local to a rank's block).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "sketch/slot_supports.hpp"
#include "test_support.hpp"

using namespace adasketch;
using adasketch::detail::SlotSupports;

TEST(SlotSupports, AgreeWithLoopsOverTheWholeBlock) {
  const auto comm = test::world();
  for (const index_t dp : {1, 7, 64, 300}) {
    for (const index_t slots : {3, 8}) {
      std::mt19937_64 gen(static_cast<unsigned>(11 + 7 * dp + slots + 1000 * comm.rank()));
      std::uniform_real_distribution<double> unit(-1.0, 1.0);
      std::vector<double> z(static_cast<std::size_t>(dp * slots), 0.0), ref = z;
      std::vector<double> lazy(static_cast<std::size_t>(2 * dp), 0.0), lazy_ref = lazy;
      std::vector<char> used(static_cast<std::size_t>(slots), 0);
      SlotSupports supports(slots, dp);
      std::vector<index_t> idx;
      std::vector<double> val;
      for (int step = 0; step < 400; ++step) {
        const int op = static_cast<int>(gen() % 10);
        const auto s = static_cast<index_t>(gen() % static_cast<std::uint64_t>(slots));
        if (op < 4 && !used[s]) {  // write a row into a zero slot: mostly sparse, sometimes dense
          const bool dense = gen() % 25 == 0;
          idx.clear();
          val.clear();
          for (index_t j = 0; j < dp; ++j)
            if (dense || gen() % 9 == 0 || (j < 2 && gen() % 2 == 0)) {  // features 0, 1 shared often
              idx.push_back(j);
              val.push_back(unit(gen));
            }
          std::vector<double> full(static_cast<std::size_t>(dp), 0.0);
          for (std::size_t k = 0; k < idx.size(); ++k) full[idx[k]] = val[k];
          if (dense) {
            supports.write(z, s, LocalRow::dense(full));
          } else {
            supports.write(z, s, LocalRow::sparse(idx, val));
          }
          for (index_t j = 0; j < dp; ++j) ref[j * slots + s] = full[j];
          used[s] = 1;
        } else if (op < 7) {  // fold some used slots into the others
          std::vector<index_t> sources, pivots;
          for (index_t c = 0; c < slots; ++c)
            if (used[c]) (gen() % 3 == 0 ? sources : pivots).push_back(c);
          if (sources.empty() || pivots.empty()) continue;
          std::vector<double> w(sources.size() * pivots.size());
          for (auto& x : w) x = gen() % 4 == 0 ? 0.0 : unit(gen);
          supports.fold(z, pivots, sources, w);
          for (std::size_t e = 0; e < sources.size(); ++e)
            for (std::size_t p = 0; p < pivots.size(); ++p)
              for (index_t j = 0; j < dp; ++j)
                ref[j * slots + pivots[p]] += w[e * pivots.size() + p] * ref[j * slots + sources[e]];
        } else if (op < 8) {  // lazy weights from some slots (stride 2)
          std::vector<index_t> from;
          std::vector<double> w;
          for (index_t c = 0; c < slots; ++c)
            if (gen() % 2 == 0) {
              from.push_back(c);
              w.push_back(unit(gen));
            }
          supports.add_to(z, from, w, lazy, 2);
          for (std::size_t k = 0; k < from.size(); ++k)
            for (index_t j = 0; j < dp; ++j) lazy_ref[2 * j] += w[k] * ref[j * slots + from[k]];
        } else if (op < 9) {  // erase some slots
          std::vector<index_t> gone;
          for (index_t c = 0; c < slots; ++c)
            if (used[c] && gen() % 2 == 0) gone.push_back(c);
          supports.erase(z, gone);
          for (const index_t c : gone) {
            for (index_t j = 0; j < dp; ++j) ref[j * slots + c] = 0.0;
            used[c] = 0;
          }
        } else {  // a restored block: every support from the values
          supports.mark_stale();
          supports.rebuild_if_stale(z);
        }
        ASSERT_LT(test::relative_max_diff(z, ref), 1e-13) << "d_p=" << dp << " slots=" << slots << " step=" << step << " op=" << op;
        ASSERT_LT(test::relative_max_diff(lazy, lazy_ref), 1e-13) << "d_p=" << dp << " step=" << step;
      }
      // Every feature a slot is non-zero on is in U.
      std::vector<char> in_u(static_cast<std::size_t>(dp), 0);
      supports.for_each_touched([&](index_t j) { in_u[j] = 1; });
      for (index_t j = 0; j < dp; ++j)
        for (index_t c = 0; c < slots; ++c)
          if (z[j * slots + c] != 0.0) {
            EXPECT_TRUE(in_u[j]) << "feature " << j;
          }
    }
  }
}
