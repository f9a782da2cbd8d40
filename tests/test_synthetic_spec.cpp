// Synthetic data specs (adasketch/data/synthetic_spec.hpp): every key against the literal values
// written in the text, the documented defaults, strict errors naming the option and the key, and the
// sources they make, including skip (a later window of the same stream).
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "adasketch/data/synthetic.hpp"
#include "adasketch/data/synthetic_spec.hpp"
#include "adasketch/error.hpp"
#include "test_support.hpp"

using namespace adasketch;

namespace {

TEST(SyntheticSpec, RecognizesThePrefixOnly) {
  EXPECT_TRUE(is_synthetic_spec("synthetic:ill-conditioned"));
  EXPECT_TRUE(is_synthetic_spec("synthetic:"));
  EXPECT_FALSE(is_synthetic_spec("./synthetic:ill-conditioned"));
  EXPECT_FALSE(is_synthetic_spec("synthetic"));
  EXPECT_FALSE(is_synthetic_spec("data/a9a.gz"));
}

TEST(SyntheticSpec, ReadsEveryLowRankKey) {
  const SyntheticSpec s = parse_synthetic_spec(
      "synthetic:low-rank-regression:d=20,n=30,lambda0=2.5e1,decay=1.5,mean=-2,rank=7,seed=18446744073709551615,skip=+9",
      "option --data");
  const auto& o = std::get<LowRankRegressionOptions>(s.options);
  EXPECT_EQ(o.dim, 20);
  EXPECT_EQ(o.examples, 30);
  EXPECT_EQ(o.lambda0, 25.0);
  EXPECT_EQ(o.decay, 1.5);
  EXPECT_EQ(o.mean, -2.0);
  EXPECT_EQ(o.rank, 7);
  EXPECT_EQ(o.seed, 18446744073709551615ull);
  EXPECT_EQ(o.skip, 9);
  EXPECT_TRUE(s.dim_given);
  EXPECT_FALSE(s.sign_labels());
  EXPECT_EQ(s.dim(), 20);
  EXPECT_EQ(s.examples(), 30);
  EXPECT_STREQ(s.generator(), "low-rank-regression");
}

TEST(SyntheticSpec, ReadsEveryIllConditionedKey) {
  const SyntheticSpec s = parse_synthetic_spec("synthetic:ill-conditioned:seed=3,ill=4,kappa=1e3,n=12,d=9,skip=0", "x");
  const auto& o = std::get<IllConditionedOptions>(s.options);
  EXPECT_EQ(o.dim, 9);
  EXPECT_EQ(o.examples, 12);
  EXPECT_EQ(o.condition, 1000.0);
  EXPECT_EQ(o.ill_directions, 4);
  EXPECT_EQ(o.seed, 3u);
  EXPECT_EQ(o.skip, 0);
  EXPECT_TRUE(s.sign_labels());
  EXPECT_STREQ(s.generator(), "ill-conditioned");
}

TEST(SyntheticSpec, ReadsEverySparseKey) {
  const SyntheticSpec s =
      parse_synthetic_spec("synthetic:sparse-classification:d=5000000,n=7,nnz=40,zipf=1.25,noise=0.5,seed=2,skip=3", "x");
  const auto& o = std::get<SparseClassificationOptions>(s.options);
  EXPECT_EQ(o.dim, 5000000);
  EXPECT_EQ(o.examples, 7);
  EXPECT_EQ(o.nonzeros, 40);
  EXPECT_EQ(o.zipf, 1.25);
  EXPECT_EQ(o.noise, 0.5);
  EXPECT_EQ(o.seed, 2u);
  EXPECT_EQ(o.skip, 3);
  EXPECT_TRUE(s.sign_labels());
  EXPECT_STREQ(s.generator(), "sparse-classification");
}

TEST(SyntheticSpec, AbsentKeysTakeTheDocumentedDefaults) {
  // The defaults docs/formats.md and --help state (the papers' settings).
  const SyntheticSpec r = parse_synthetic_spec("synthetic:low-rank-regression", "x");
  const auto& o = std::get<LowRankRegressionOptions>(r.options);
  EXPECT_EQ(o.dim, 500);
  EXPECT_EQ(o.examples, 10000);
  EXPECT_EQ(o.lambda0, 100.0);
  EXPECT_EQ(o.decay, 2.0);
  EXPECT_EQ(o.mean, 1.0);
  EXPECT_EQ(o.rank, 0);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(o.skip, 0);
  EXPECT_FALSE(r.dim_given);
  const SyntheticSpec c = parse_synthetic_spec("synthetic:ill-conditioned:n=5", "x");
  const auto& i = std::get<IllConditionedOptions>(c.options);
  EXPECT_EQ(i.dim, 100);
  EXPECT_EQ(i.examples, 5);
  EXPECT_EQ(i.condition, 100.0);
  EXPECT_EQ(i.ill_directions, 10);
  EXPECT_EQ(i.seed, 1u);
  const SyntheticSpec p = parse_synthetic_spec("synthetic:sparse-classification", "x");
  const auto& q = std::get<SparseClassificationOptions>(p.options);
  EXPECT_EQ(q.dim, 1000000);
  EXPECT_EQ(q.examples, 100000);
  EXPECT_EQ(q.nonzeros, 20);
  EXPECT_EQ(q.zipf, 0.0);
  EXPECT_EQ(q.noise, 0.0);
  EXPECT_EQ(q.seed, 1u);
  // nnz defaults to at most d.
  EXPECT_EQ(std::get<SparseClassificationOptions>(parse_synthetic_spec("synthetic:sparse-classification:d=7", "x").options).nonzeros, 7);
}

TEST(SyntheticSpec, DefaultDimAppliesOnlyWithoutD) {
  EXPECT_EQ(parse_synthetic_spec("synthetic:low-rank-regression", "x", 37).dim(), 37);
  EXPECT_EQ(parse_synthetic_spec("synthetic:low-rank-regression:d=8", "x", 37).dim(), 8);
  // rank and ill are checked against the final d.
  EXPECT_THROW(parse_synthetic_spec("synthetic:ill-conditioned", "x", 5), InvalidArgument);
  EXPECT_EQ(parse_synthetic_spec("synthetic:ill-conditioned:ill=5", "x", 5).dim(), 5);
}

TEST(SyntheticSpec, ErrorsNameTheOptionAndTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"synthetic:low-rank-regression:dd=3", "option --data: synthetic:low-rank-regression: unknown key 'dd'"},
      {"synthetic:low-rank-regression:kappa=3", "unknown key 'kappa' (keys: d, n, lambda0, decay, mean, rank, seed, skip)"},
      {"synthetic:ill-conditioned:lambda0=3", "option --data: synthetic:ill-conditioned: unknown key 'lambda0'"},
      {"synthetic:low-rank-regression:d=", "key d: missing value"},
      {"synthetic:low-rank-regression:d", "key d: missing value"},
      {"synthetic:low-rank-regression:", "empty item"},
      {"synthetic:low-rank-regression:d=4,", "empty item"},
      {"synthetic:low-rank-regression:=4", "unknown key ''"},
      {"synthetic:low-rank-regression:n=3,n=3", "key n given more than once"},
      {"synthetic:low-rank-regression:d=4x", "key d: expected an integer, got '4x'"},
      {"synthetic:low-rank-regression:d=2.0", "key d: expected an integer, got '2.0'"},
      {"synthetic:low-rank-regression:d= 4", "key d: expected an integer, got ' 4'"},
      {"synthetic:low-rank-regression:n=0", "key n: must be ≥ 1, got 0"},
      {"synthetic:low-rank-regression:lambda0=0", "key lambda0: must be > 0, got 0"},
      {"synthetic:low-rank-regression:lambda0=nan", "key lambda0: expected a finite number, got 'nan'"},
      {"synthetic:low-rank-regression:decay=-1", "key decay: must be ≥ 0, got -1"},
      {"synthetic:low-rank-regression:mean=1e999", "key mean: expected a finite number, got '1e999'"},
      {"synthetic:low-rank-regression:d=3,rank=4", "key rank: must be ≤ d = 3, got 4"},
      {"synthetic:low-rank-regression:seed=-2", "key seed: expected a non-negative integer, got '-2'"},
      {"synthetic:low-rank-regression:skip=-2", "key skip: must be ≥ 0, got -2"},
      {"synthetic:low-rank-regression:n=10,skip=1152921504606846975", "key skip: must be ≤ 2^60 − n"},
      {"synthetic:ill-conditioned:kappa=0.5", "key kappa: must be ≥ 1, got 0.5"},
      {"synthetic:ill-conditioned:d=3", "key ill: must be ≤ d = 3, got 10 (the default)"},
      {"synthetic:sparse-classification:d=5,nnz=6", "key nnz: must be ≤ d = 5, got 6"},
      {"synthetic:sparse-classification:nnz=0", "key nnz: must be ≥ 1, got 0"},
      {"synthetic:sparse-classification:zipf=-0.5", "key zipf: must be ≥ 0, got -0.5"},
      {"synthetic:sparse-classification:noise=inf", "key noise: expected a finite number, got 'inf'"},
      {"synthetic:sparse-classification:kappa=2", "unknown key 'kappa' (keys: d, n, nnz, zipf, noise, seed, skip)"},
      {"synthetic:low-rank", "option --data: unknown synthetic generator 'low-rank'"},
      {"synthetic:", "unknown synthetic generator ''"},
      {"a9a.gz", "option --data: 'a9a.gz' is not a synthetic spec"},
  };
  for (const auto& [text, fragment] : cases) {
    try {
      parse_synthetic_spec(text, "option --data");
      ADD_FAILURE() << "no error for " << text;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << text << " → " << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("option --data: ", 0), 0u) << e.what();
    }
  }
}

std::vector<Example> drain(ExampleSource& source) {
  std::vector<Example> all;
  for (Example e; source.next(e);) all.push_back(e);
  return all;
}

TEST(SyntheticSpec, MakesTheGeneratorsSourceAndSkipIsALaterWindow) {
  const auto comm = test::world();
  const LowRankRegressionOptions o{.dim = 11, .examples = 9, .rank = 4, .seed = 6};
  auto direct = make_low_rank_regression(comm, o);
  auto from_spec = make_synthetic(comm, parse_synthetic_spec("synthetic:low-rank-regression:d=11,n=9,rank=4,seed=6", "x"));
  const std::vector<Example> a = drain(*direct), b = drain(*from_spec);
  ASSERT_EQ(a.size(), 9u);
  ASSERT_EQ(b.size(), 9u);
  for (std::size_t t = 0; t < a.size(); ++t) {
    EXPECT_EQ(a[t].values, b[t].values);
    EXPECT_EQ(a[t].label, b[t].label);
  }
  // Examples 4..9 of the stream are the stream with skip = 3 (positions restart at 1).
  for (const char* text : {"synthetic:low-rank-regression:d=11,n=6,rank=4,seed=6,skip=3",
                           "synthetic:ill-conditioned:d=11,n=6,ill=4,seed=6,skip=3",
                           "synthetic:sparse-classification:d=11,n=6,nnz=3,zipf=1,seed=6,skip=3"}) {
    const SyntheticSpec skipped = parse_synthetic_spec(text, "x");
    SyntheticSpec whole = skipped;
    const auto unskip = [](auto& opt) {
      opt.examples = 9;
      opt.skip = 0;
    };
    std::visit(unskip, whole.options);
    auto full = make_synthetic(comm, whole);
    auto tail = make_synthetic(comm, skipped);
    const std::vector<Example> f = drain(*full), s = drain(*tail);
    ASSERT_EQ(s.size(), 6u) << text;
    for (std::size_t t = 0; t < s.size(); ++t) {
      EXPECT_EQ(s[t].values, f[t + 3].values) << text << " t " << t;
      EXPECT_EQ(s[t].indices, f[t + 3].indices) << text << " t " << t;
      EXPECT_EQ(s[t].label, f[t + 3].label) << text << " t " << t;
      EXPECT_EQ(s[t].position, static_cast<index_t>(t + 1));
    }
    const bool differs = s[0].values != f[0].values || s[0].indices != f[0].indices;  // a sparse row may miss a rank
    EXPECT_EQ(comm.allreduce_max(index_t{differs}), 1) << text;
  }
}

}  // namespace
