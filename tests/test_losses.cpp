// Losses (loss.hpp): derivatives against central finite differences away from the kinks, the
// documented closed forms, stability at extreme scores, mistakes, and label maps (label_map.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/loss.hpp"
#include "adasketch/training/label_map.hpp"
#include "test_support.hpp"

using namespace adasketch;

namespace {

// Central difference of ℓ in score k, step h.
double finite_difference(const Loss& loss, std::vector<double> p, double y, std::size_t k, double h) {
  p[k] += h;
  const double up = loss.value(p, y);
  p[k] -= 2 * h;
  const double down = loss.value(p, y);
  return (up - down) / (2 * h);
}

void expect_derivative_matches(const Loss& loss, const std::vector<double>& p, double y) {
  std::vector<double> d(p.size());
  loss.derivative(p, y, d);
  for (std::size_t k = 0; k < p.size(); ++k)
    EXPECT_NEAR(d[k], finite_difference(loss, p, y, k, 1e-6), 1e-6 * std::max(1.0, std::abs(d[k])))
        << loss.name() << " at p[" << k << "] = " << p[k] << ", y = " << y;
}

}  // namespace

TEST(Loss, BinaryAndRegressionDerivativesMatchFiniteDifferences) {
  // Scores near but not at the kinks (yp = 1 for the hinges, p = y for absolute).
  const std::vector<double> scores{-30.0, -3.0, -1.0001, -0.999, -0.3, 0.0, 0.2, 0.9999, 1.0002, 2.5, 40.0};
  for (const LossKind kind : {LossKind::logistic, LossKind::hinge, LossKind::squared_hinge}) {
    const Loss loss(kind);
    for (double y : {-1.0, 1.0})
      for (double p : scores) {
        if (kind != LossKind::logistic && std::abs(y * p - 1.0) < 1e-5) continue;
        expect_derivative_matches(loss, {p}, y);
      }
  }
  for (const LossKind kind : {LossKind::squared, LossKind::absolute}) {
    const Loss loss(kind);
    for (double y : {-2.5, 0.0, 0.7})
      for (double p : scores) expect_derivative_matches(loss, {p}, y);
  }
}

TEST(Loss, SoftmaxDerivativeMatchesFiniteDifferences) {
  std::mt19937_64 gen(7);
  std::normal_distribution<double> normal(0.0, 3.0);
  for (int K : {3, 10}) {
    const Loss loss(LossKind::softmax, K);
    EXPECT_EQ(loss.outputs(), K);
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> p(static_cast<std::size_t>(K));
      for (double& v : p) v = normal(gen);
      expect_derivative_matches(loss, p, static_cast<double>(trial % K));
    }
  }
}

TEST(Loss, ClosedForms) {
  const double p = 0.3, y = -1.0;
  EXPECT_DOUBLE_EQ(Loss(LossKind::squared).value(std::vector{p}, 2.0), (p - 2.0) * (p - 2.0));  // no ½ (RFD §5.2)
  EXPECT_DOUBLE_EQ(Loss(LossKind::absolute).value(std::vector{p}, 2.0), 1.7);
  EXPECT_DOUBLE_EQ(Loss(LossKind::logistic).value(std::vector{p}, y), std::log(1.0 + std::exp(p)));
  EXPECT_DOUBLE_EQ(Loss(LossKind::hinge).value(std::vector{p}, y), 1.3);
  EXPECT_DOUBLE_EQ(Loss(LossKind::squared_hinge).value(std::vector{p}, y), 0.5 * 1.3 * 1.3);  // ½ (ADA-FD §4.2)
  EXPECT_DOUBLE_EQ(Loss(LossKind::hinge).value(std::vector{1.5}, 1.0), 0.0);
  const std::vector<double> s{1.0, 2.0, 0.5};
  EXPECT_NEAR(Loss(LossKind::softmax, 3).value(s, 1.0), std::log(std::exp(1.0) + std::exp(2.0) + std::exp(0.5)) - 2.0,
              1e-15);
  // Subgradients at the kinks: 0 at p = y (absolute) and at yp = 1 (hinge).
  std::vector<double> d(1);
  Loss(LossKind::absolute).derivative(std::vector{1.0}, 1.0, d);
  EXPECT_EQ(d[0], 0.0);
  Loss(LossKind::hinge).derivative(std::vector{1.0}, 1.0, d);
  EXPECT_EQ(d[0], 0.0);
}

TEST(Loss, StableAtExtremeScores) {
  const Loss logistic(LossKind::logistic);
  std::vector<double> d(1);
  EXPECT_DOUBLE_EQ(logistic.value(std::vector{-800.0}, 1.0), 800.0);
  EXPECT_EQ(logistic.value(std::vector{800.0}, 1.0), 0.0);
  logistic.derivative(std::vector{-800.0}, 1.0, d);
  EXPECT_DOUBLE_EQ(d[0], -1.0);
  logistic.derivative(std::vector{800.0}, 1.0, d);
  EXPECT_EQ(d[0], -0.0);
  const Loss softmax(LossKind::softmax, 3);
  const std::vector<double> big{1000.0, 999.0, -1000.0};
  EXPECT_NEAR(softmax.value(big, 1.0), 1.0 + std::log1p(std::exp(-1.0)), 1e-12);
  std::vector<double> g(3);
  softmax.derivative(big, 1.0, g);
  for (double v : g) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NEAR(g[0] + g[1] + g[2], 0.0, 1e-15);
}

TEST(Loss, MistakesAndNames) {
  const Loss hinge(LossKind::hinge);
  EXPECT_TRUE(hinge.mistake(std::vector{0.0}, 1.0));  // a zero score is a mistake for either label
  EXPECT_TRUE(hinge.mistake(std::vector{0.0}, -1.0));
  EXPECT_FALSE(hinge.mistake(std::vector{-0.1}, -1.0));
  EXPECT_TRUE(Loss(LossKind::squared).mistake(std::vector{5.0}, -1.0));  // a sign mistake on a ±1 label
  EXPECT_FALSE(Loss(LossKind::squared).mistake(std::vector{-5.0}, -1.0));
  EXPECT_FALSE(Loss(LossKind::absolute).mistake(std::vector{-5.0}, 0.5));  // no mistakes on other labels
  const Loss softmax(LossKind::softmax, 3);
  EXPECT_FALSE(softmax.mistake(std::vector{1.0, 3.0, 3.0}, 1.0));  // ties go to the smallest class
  EXPECT_TRUE(softmax.mistake(std::vector{1.0, 3.0, 3.0}, 2.0));
  EXPECT_FALSE(Loss(LossKind::absolute).is_classification());
  EXPECT_TRUE(Loss(LossKind::squared_hinge).is_classification());
  EXPECT_EQ(Loss(LossKind::squared_hinge).name(), "squared-hinge");
  EXPECT_THROW(from_string<LossKind>("cubic"), InvalidArgument);
  EXPECT_THROW(Loss(LossKind::softmax, 1), InvalidArgument);
}

TEST(LabelMap, InfersTheDocumentedMaps) {
  const Loss logistic(LossKind::logistic), softmax(LossKind::softmax, 10), squared(LossKind::squared);
  EXPECT_EQ(LabelMap::infer(logistic, -1, 1).kind(), LabelMap::Kind::plus_minus_one);
  EXPECT_EQ(LabelMap::infer(logistic, 1, 1).kind(), LabelMap::Kind::plus_minus_one);
  EXPECT_EQ(LabelMap::infer(logistic, 0, 1).kind(), LabelMap::Kind::zero_one);
  EXPECT_EQ(LabelMap::infer(logistic, 1, 2).kind(), LabelMap::Kind::one_two);
  EXPECT_EQ(LabelMap::infer(softmax, 1, 10).kind(), LabelMap::Kind::classes_from_one);
  EXPECT_EQ(LabelMap::infer(softmax, 0, 9).kind(), LabelMap::Kind::classes_from_zero);
  EXPECT_EQ(LabelMap::infer(softmax, 0, 9).classes(), 10);
  EXPECT_EQ(LabelMap::infer(squared, -3.5, 7).kind(), LabelMap::Kind::real);
  EXPECT_EQ(LabelMap::softmax_classes("f", 1, 10, true), 10);
  EXPECT_EQ(LabelMap::softmax_classes("f", 0, 9, true), 10);
  EXPECT_EQ(LabelMap::softmax_classes("f", 0, 0, true), 2);
  EXPECT_THROW(LabelMap::softmax_classes("f", 0, 2.5, false), InputError);
  EXPECT_THROW(LabelMap::softmax_classes("f", -1, 3, true), InputError);
  EXPECT_THROW(LabelMap::softmax_classes("f", 1, 1e9, true), InputError);
}

TEST(LabelMap, AppliesOrNamesFileAndLine) {
  const LabelMap zero_one(LabelMap::Kind::zero_one), one_two(LabelMap::Kind::one_two);
  EXPECT_EQ(zero_one.apply(0, "f", 1), -1.0);
  EXPECT_EQ(zero_one.apply(1, "f", 1), 1.0);
  EXPECT_EQ(one_two.apply(1, "f", 1), -1.0);
  EXPECT_EQ(one_two.apply(2, "f", 1), 1.0);
  EXPECT_EQ(LabelMap(LabelMap::Kind::plus_minus_one).apply(-1, "f", 1), -1.0);
  EXPECT_EQ(LabelMap(LabelMap::Kind::real).apply(-2.25, "f", 1), -2.25);
  const LabelMap from_one(LabelMap::Kind::classes_from_one, 10);
  EXPECT_EQ(from_one.apply(1, "f", 1), 0.0);
  EXPECT_EQ(from_one.apply(10, "f", 1), 9.0);
  EXPECT_EQ(LabelMap(LabelMap::Kind::classes_from_zero, 3).apply(2, "f", 1), 2.0);
  try {
    from_one.apply(11, "test.svm", 42);
    FAIL() << "label 11 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "test.svm");
    EXPECT_EQ(e.line(), 42);
    EXPECT_NE(std::string(e.what()).find("label 11"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1..10 -> 0..9"), std::string::npos) << e.what();
  }
  EXPECT_THROW(from_one.apply(2.5, "f", 3), InputError);
  EXPECT_THROW(LabelMap(LabelMap::Kind::plus_minus_one).apply(0, "f", 1), InputError);
  EXPECT_THROW(zero_one.apply(-1, "f", 1), InputError);
  // Regression keeps labels as they are, but never a non-finite one (a dense binary file can hold it).
  EXPECT_THROW(LabelMap(LabelMap::Kind::real).apply(std::numeric_limits<double>::infinity(), "f", 1), InputError);
  EXPECT_THROW(LabelMap(LabelMap::Kind::real).apply(std::nan(""), "f", 1), InputError);
  EXPECT_THROW(LabelMap(LabelMap::Kind::classes_from_one, 1), InvalidArgument);
  EXPECT_TRUE(from_one.fits(Loss(LossKind::softmax, 10)));
  EXPECT_FALSE(from_one.fits(Loss(LossKind::softmax, 9)));
  EXPECT_FALSE(zero_one.fits(Loss(LossKind::squared)));
  EXPECT_TRUE(LabelMap(LabelMap::Kind::real).fits(Loss(LossKind::absolute)));
}

TEST(LabelMap, FromTheDistinctLabels) {
  const Loss logistic(LossKind::logistic), softmax(LossKind::softmax, 2), squared(LossKind::squared);
  using K = LabelMap::Kind;
  using V = std::vector<double>;
  EXPECT_EQ(LabelMap::of_values(logistic, V{-1, 1}, "f").kind(), K::plus_minus_one);
  EXPECT_EQ(LabelMap::of_values(logistic, V{1}, "f").kind(), K::plus_minus_one);
  EXPECT_EQ(LabelMap::of_values(logistic, V{0, 1}, "f").kind(), K::zero_one);
  EXPECT_EQ(LabelMap::of_values(logistic, V{1, 2}, "f").kind(), K::one_two);
  EXPECT_EQ(LabelMap::of_values(squared, V{0.5, 3, 7}, "f").kind(), K::real);
  const LabelMap one_three = LabelMap::of_values(logistic, V{1, 3}, "f");
  EXPECT_EQ(one_three.kind(), K::two_values);
  EXPECT_EQ(one_three.describe(), "{1,3} -> {-1,+1}");
  EXPECT_EQ(one_three.apply(1, "f", 1), -1.0);  // the smaller label is −1
  EXPECT_EQ(one_three.apply(3, "f", 1), 1.0);
  EXPECT_EQ(one_three.original(-1.0), 1.0);
  EXPECT_EQ(one_three.original(1.0), 3.0);
  EXPECT_TRUE(one_three.fits(logistic));
  EXPECT_FALSE(one_three.fits(softmax));
  try {
    one_three.apply(2, "test.svm", 7);
    FAIL() << "label 2 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "test.svm");
    EXPECT_EQ(e.line(), 7);
    EXPECT_NE(std::string(e.what()).find("label 2 is not covered by the label map {1,3}"), std::string::npos) << e.what();
  }
  EXPECT_EQ(LabelMap::of_values(logistic, V{-2.5, 5}, "f").original(1.0), 5.0);
  EXPECT_THROW(LabelMap::of_values(logistic, V{-1, 0, 1}, "f"), InputError);  // three values
  EXPECT_THROW(LabelMap::of_values(logistic, V{3}, "f"), InputError);         // one value, no sign

  // Softmax: K = the number of distinct labels ({2, 5, 7}: 3, not 7), in ascending order.
  const LabelMap three = LabelMap::of_values(softmax, V{2, 5, 7}, "f");
  EXPECT_EQ(three.kind(), K::listed_classes);
  EXPECT_EQ(three.classes(), 3);
  EXPECT_EQ(three.describe(), "{2,5,7} -> 0..2");
  EXPECT_EQ(three.apply(2, "f", 1), 0.0);
  EXPECT_EQ(three.apply(5, "f", 1), 1.0);
  EXPECT_EQ(three.apply(7, "f", 1), 2.0);
  EXPECT_THROW(three.apply(6, "f", 1), InputError);
  EXPECT_EQ(three.original(2.0), 7.0);
  EXPECT_TRUE(three.fits(Loss(LossKind::softmax, 3)));
  EXPECT_FALSE(three.fits(Loss(LossKind::softmax, 7)));
  EXPECT_EQ(LabelMap::of_values(softmax, V{1, 2, 3, 4}, "f").kind(), K::classes_from_one);
  EXPECT_EQ(LabelMap::of_values(softmax, V{0, 1, 2}, "f").kind(), K::classes_from_zero);
  EXPECT_EQ(LabelMap::of_values(softmax, V{0, 1, 2}, "f").classes(), 3);
  EXPECT_EQ(LabelMap::of_values(softmax, V{0.5, 1}, "f").kind(), K::listed_classes);
  EXPECT_THROW(LabelMap::of_values(softmax, V{5}, "f"), InputError);
  V many(LabelMap::kMaxValues + 1);
  for (std::size_t k = 0; k < many.size(); ++k) many[k] = 2.0 * static_cast<double>(k);
  EXPECT_THROW(LabelMap::of_values(softmax, many, "f"), InputError);
  EXPECT_THROW(LabelMap(K::two_values, V{3, 1}), InvalidArgument);  // not ascending
  EXPECT_THROW(LabelMap(K::listed_classes), InvalidArgument);       // needs its values
}

TEST(LabelMap, EveryRanksLabelsCount) {
  const int rank = test::world().rank(), ranks = test::world().size();
  // Rank r sees 10r and 1.5 (twice); only the last rank sees −7.
  std::vector<double> mine{1.5, 10.0 * rank, 1.5};
  if (rank == ranks - 1) mine.push_back(-7.0);
  std::vector<double> expected{-7.0, 0.0, 1.5};
  for (int r = 1; r < ranks; ++r) expected.push_back(10.0 * r);
  EXPECT_EQ(agree_label_values(test::world(), mine), expected);
}
