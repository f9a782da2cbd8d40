// A build without ScaLAPACK (ADASKETCH_WITH_SCALAPACK=OFF) has no exact learners: version.hpp says so
// and make_learner refuses their names, on every rank, saying how to get them.
#include <gtest/gtest.h>

#include <string>

#include "adasketch/error.hpp"
#include "adasketch/version.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

static_assert(ADASKETCH_WITH_EXACT_LEARNERS == 0, "this test belongs to builds without ScaLAPACK");

TEST(FullMatrixAbsent, MakeLearnerRefusesTheExactLearners) {
  for (const std::string algorithm : {"ada-full", "ada-full-da", "full-on"}) {
    LearnerSpec spec;
    spec.algorithm = algorithm;
    spec.loss = LossKind::squared;
    try {
      make_learner(world(), 10, spec);
      ADD_FAILURE() << algorithm << " was built";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("-DADASKETCH_WITH_SCALAPACK=ON"), std::string::npos) << e.what();
    }
  }
  LearnerSpec other;
  other.algorithm = "ada-fd";
  EXPECT_NE(make_learner(world(), 10, other), nullptr);
}
