// Numeric guards (every learner of make_learner, at any rank count):
//   - δ and α must be positive normal numbers: zero, subnormal, negative, NaN and ∞ are refused,
//     and the message writes the refused value as given (number_text: shortest round-trip form);
//   - all-zero data leaves every learner at W = 0 (the gradients are zero, so nothing may move);
//   - a diverging step size is a NumericError on every rank that says the model diverged, a
//     non-finite feature value (on one rank's block only) one that says so; never a NaN model:
//     LinearModel::save refuses non-finite weights;
//   - the FD shrink clamps: tied and rank-deficient spectra give a finite sketch within the FD bound.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/number_text.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/training/label_map.hpp"
#include "test_support.hpp"

namespace adasketch {
namespace {

using test::world;

const std::vector<std::string> kAlgorithms = {"ada-diag", "ada-diag-da", "ada-fd",  "ada-fd-da",   "fast-ada-fd",
                                              "fast-ada-fd-da", "ada-gp", "ada-gp-da", "ada-dp", "ada-dp-da",
                                              "fd-son",   "fast-fd-son", "rp-son",  "oja-son",     "rfd-son",
                                              "fast-rfd-son", "comp-adagrad", "comp-adagrad-da"};

bool is_son(const std::string& algorithm) { return algorithm.ends_with("-son"); }

LearnerSpec spec_for(const std::string& algorithm) {
  LearnerSpec spec;
  spec.algorithm = algorithm;
  spec.loss = is_son(algorithm) ? LossKind::squared : LossKind::logistic;
  spec.ell = 4;
  spec.scale = ScaleRule::none;  // step sizes as given: the blow-ups below are built for them
  return spec;
}

// What the thrown error's message says, or "" when nothing is thrown.
template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(NumericGuards, RegularizersMustBePositiveNormalNumbers) {
  const double bad[] = {0.0, -1.0, 1e-320, std::numeric_limits<double>::denorm_min(),
                        std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()};
  for (const auto& algorithm : kAlgorithms) {
    for (double value : bad) {
      LearnerSpec spec = spec_for(algorithm);
      (is_son(algorithm) ? spec.alpha0 : spec.delta) = value;
      // α = 0 is SON's pseudo-inverse (SON App. D) where the paper allows it (sketched_newton.hpp).
      const bool pseudo_inverse = algorithm == "fd-son" || algorithm == "fast-fd-son" || algorithm == "rp-son";
      if (value == 0.0 && pseudo_inverse) {
        EXPECT_NO_THROW(make_learner(world(), 10, spec)) << algorithm;
        continue;
      }
      EXPECT_THROW(make_learner(world(), 10, spec), InvalidArgument) << algorithm << " with " << value;
    }
    LearnerSpec smallest = spec_for(algorithm);
    (is_son(algorithm) ? smallest.alpha0 : smallest.delta) = std::numeric_limits<double>::min();
    EXPECT_NO_THROW(make_learner(world(), 10, smallest)) << algorithm;
  }
}

TEST(NumericGuards, MessagesWriteTheRefusedValueAsGiven) {
  // std::to_string writes 1e-320 as "0.000000" and "%g" as "9.99989e-321": the message names the
  // value the caller passed, as the shortest text that reads back to it.
  for (const auto& algorithm : kAlgorithms) {
    LearnerSpec spec = spec_for(algorithm);
    (is_son(algorithm) ? spec.alpha0 : spec.delta) = 1e-320;
    const std::string message = error_message([&] { make_learner(world(), 10, spec); });
    EXPECT_NE(message.find(" 1e-320"), std::string::npos) << algorithm << ": " << message;
  }
}

TEST(NumberText, ShortestRoundTripForm) {
  const double values[] = {0.1, 1e-20, -2.5, 1e300, 123456789.0, std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max(), -0.0};
  for (double v : values) {
    const std::string text = number_text(v);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), v) << text;
  }
  EXPECT_EQ(number_text(0.1), "0.1");
  EXPECT_EQ(number_text(1e-20), "1e-20");
  EXPECT_EQ(number_text(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(number_text(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(number_text(index_t{-12}), "-12");  // integers as std::to_string writes them
  EXPECT_EQ(number_text(std::size_t{7}), "7");
  std::string out = "x = ";
  append_number_text(out, 0.25);
  EXPECT_EQ(out, "x = 0.25");
}

TEST(NumericGuards, AllZeroDataLeavesTheWeightsAtZero) {
  const index_t d = 7;
  for (const auto& algorithm : kAlgorithms) {
    for (bool dense : {true, false}) {
      auto learner = make_learner(world(), d, spec_for(algorithm));
      const auto n = static_cast<std::size_t>(learner->local_dim());
      std::vector<double> zeros(n, 0.0);
      std::vector<index_t> indices(n);
      for (std::size_t j = 0; j < n; ++j) indices[j] = static_cast<index_t>(j);
      const LocalRow x = dense ? LocalRow::dense(zeros) : LocalRow::sparse(indices, zeros);
      for (int t = 0; t < 40; ++t) learner->step(x, t % 2 == 0 ? 1.0 : -1.0);
      std::vector<double> w(n * static_cast<std::size_t>(learner->outputs()), 1.0);
      learner->weights(w);
      EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](double v) { return v == 0.0; }))
          << algorithm << (dense ? " dense" : " sparse");
    }
  }
}

// Rows with a large component on every rank's block, so a huge step size blows the weights up.
std::vector<double> large_row(const Learner& learner, int t) {
  std::vector<double> x(static_cast<std::size_t>(learner.local_dim()));
  for (std::size_t j = 0; j < x.size(); ++j) x[j] = 1e3 * (1.0 + static_cast<double>((j + static_cast<std::size_t>(t)) % 3));
  return x;
}

// With η = 1e307 every learner overflows within two steps: AdaGrad's first step is about η per
// coordinate, so the next score is infinite; SON sketches sqrt(σ + η)·g, whose norm overflows.
TEST(NumericGuards, DivergenceIsReportedOnEveryRank) {
  for (const auto& algorithm : kAlgorithms) {
    LearnerSpec spec = spec_for(algorithm);
    spec.eta = 1e307;
    spec.C = std::numeric_limits<double>::infinity();  // SON: no projection to hold the weights back
    auto learner = make_learner(world(), 9, spec);
    const std::string message = error_message([&] {
      for (int t = 0; t < 5; ++t) learner->step(LocalRow::dense(large_row(*learner, t)), t % 2 == 0 ? 1.0 : -1.0);
    });
    EXPECT_NE(message.find("the model diverged"), std::string::npos) << algorithm << ": '" << message << "'";
  }
}

TEST(NumericGuards, NonFiniteValueOnOneRankIsReportedOnEveryRank) {
  const Communicator comm = world();
  const index_t d = 2 + 3 * comm.size();
  for (const auto& algorithm : kAlgorithms) {
    for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
      auto learner = make_learner(comm, d, spec_for(algorithm));
      std::vector<double> x(static_cast<std::size_t>(learner->local_dim()), 0.5);
      if (comm.rank() == comm.size() - 1) x.back() = bad;  // only the last rank's block holds it
      const std::string message = error_message([&] { learner->step(LocalRow::dense(x), 1.0); });
      EXPECT_NE(message.find("non-finite feature value"), std::string::npos) << algorithm << ": '" << message << "'";
    }
  }
}

// A learner whose weights hold one NaN, on the last rank's block only.
class NanWeights final : public Learner {
 public:
  NanWeights(const Communicator& comm, index_t dim)
      : Learner(comm, BlockPartition(dim, comm.size()), Loss(LossKind::logistic)) {}
  std::string name() const override { return "ada-diag"; }
  LearnerSpec spec() const override {
    LearnerSpec s;
    s.algorithm = "ada-diag";
    return s;
  }
  void weights(std::span<double> out) const override {
    std::fill(out.begin(), out.end(), 0.25);
    if (comm().rank() == comm().size() - 1 && !out.empty()) out.back() = std::numeric_limits<double>::quiet_NaN();
  }

 private:
  StepResult do_step(const LocalRow&, double) override { return {}; }
  void add_local_scores(const LocalRow&, std::span<double>) const override {}
  void add_state_fields(StateFields&) override {}
};

TEST(NumericGuards, NonFiniteWeightsAreNeverSaved) {
  const Communicator comm = world();
  std::array<char, 64> name{};  // rank 0's file name on every rank
  std::snprintf(name.data(), name.size(), "/tmp/adasketch-test-guards-%ld.model", static_cast<long>(::getpid()));
  comm.broadcast(name, 0);
  const std::string path = name.data();
  const NanWeights learner(comm, 5 * comm.size());
  const std::string message = error_message([&] { save_model(learner, LabelMap::infer(learner.loss(), -1.0, 1.0), path); });
  EXPECT_NE(message.find("some weights are not finite"), std::string::npos) << "'" << message << "'";
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(NumericGuards, FdShrinkClampsTiedAndDeficientSpectra) {
  const Communicator comm = world();
  const index_t d = 6, ell = 2;
  test::DenseMatrix a{60, d, std::vector<double>(60 * 6, 0.0)};
  // Rows alternate e1 and e2 of equal norm (λ₁ = λ₂: λ₁ − λ_ℓ is 0 up to round-off, either sign),
  // then a run of one repeated row (rank one: the other eigenvalues are round-off around 0).
  for (index_t i = 0; i < 40; ++i) a(i, i % 2) = 3.0;
  for (index_t i = 40; i < 60; ++i)
    for (index_t j = 0; j < d; ++j) a(i, j) = 0.25 * static_cast<double>(j + 1);
  for (bool fast : {false, true}) {
    for (bool regularized : {false, true}) {
      FrequentDirectionsOptions o;
      o.ell = ell;
      o.fast = fast;
      o.regularized = regularized;
      FrequentDirections fd(comm, BlockPartition(d, comm.size()), o);
      test::feed_dense(fd, a);
      const test::DenseMatrix b = test::gather_sketch(fd);
      ASSERT_TRUE(std::all_of(b.a.begin(), b.a.end(), [](double v) { return std::isfinite(v); }));
      ASSERT_TRUE(std::isfinite(fd.alpha()) && fd.alpha() >= 0.0);
      // FD guarantee (RFD paper Thm. 1 with k = 0): 0 ⪯ AᵀA − BᵀB, ‖AᵀA − BᵀB‖₂ ≤ ‖A‖_F²/ℓ.
      std::vector<double> diff = test::gram_of_columns(a);
      const std::vector<double> btb = test::gram_of_columns(b);
      double frob2 = 0.0;
      for (double v : a.a) frob2 += v * v;
      for (std::size_t i = 0; i < diff.size(); ++i) diff[i] -= btb[i];
      const std::vector<double> lambda = test::eigenvalues_desc(diff, d);
      EXPECT_GE(lambda.back(), -1e-10 * frob2) << "fast " << fast << " regularized " << regularized;
      EXPECT_LE(lambda.front(), frob2 / static_cast<double>(ell) * (1 + 1e-12));
    }
  }
}

}  // namespace
}  // namespace adasketch
