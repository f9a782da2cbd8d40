// ADA-DIAG (diagonal_adagrad.hpp) against a direct dense implementation of Duchi et al.'s updates
// (ADA-FD paper §2, eq. (1)–(2)) written here, on dense and sparse data, binary, regression and
// softmax losses; the same run on MPI_COMM_SELF (rank-count independence); the training loop and
// evaluation (online_training.hpp) against hand-counted statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"
#include "adasketch/training/evaluate.hpp"
#include "adasketch/training/online_training.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;

namespace {

using Update = DiagonalAdaGradOptions::Update;

// n examples of dimension d, about `density` of the entries nonzero; labels for `loss`.
struct Dataset {
  DenseMatrix x;
  std::vector<double> y;
};

Dataset make_data(index_t n, index_t d, double density, const Loss& loss, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Dataset data{DenseMatrix{n, d, std::vector<double>(static_cast<std::size_t>(n * d), 0.0)}, {}};
  std::vector<double> truth(static_cast<std::size_t>(d * loss.outputs()));
  for (double& v : truth) v = normal(gen);
  for (index_t i = 0; i < n; ++i) {
    std::vector<double> score(static_cast<std::size_t>(loss.outputs()), 0.0);
    for (index_t j = 0; j < d; ++j) {
      if (unit(gen) >= density) continue;
      data.x(i, j) = normal(gen) * (1.0 + static_cast<double>(j % 5));  // uneven feature scales
      for (int k = 0; k < loss.outputs(); ++k) score[static_cast<std::size_t>(k)] += data.x(i, j) * truth[j * loss.outputs() + k];
    }
    if (loss.kind() == LossKind::softmax)
      data.y.push_back(static_cast<double>(std::max_element(score.begin(), score.end()) - score.begin()));
    else if (loss.is_classification())
      data.y.push_back(score[0] + 0.5 * normal(gen) >= 0 ? 1.0 : -1.0);
    else
      data.y.push_back(score[0] + 0.1 * normal(gen));
  }
  return data;
}

// The dense reference: W (d × K, feature-major), G, Σg; one step per example.
std::vector<double> reference_weights(const Dataset& data, const Loss& loss, const DiagonalAdaGradOptions& o) {
  const index_t d = data.x.d, K = loss.outputs();
  std::vector<double> w(static_cast<std::size_t>(d * K), 0.0), G(w.size(), 0.0), gsum(w.size(), 0.0);
  std::vector<double> p(static_cast<std::size_t>(K)), dp(static_cast<std::size_t>(K));
  const auto weight = [&](std::size_t e) {
    return o.update == Update::mirror_descent ? w[e] : -o.eta * gsum[e] / (o.delta + std::sqrt(G[e]));
  };
  for (index_t i = 0; i < data.x.n; ++i) {
    std::fill(p.begin(), p.end(), 0.0);
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K; ++k) p[k] += data.x(i, j) * weight(j * K + k);
    loss.derivative(p, data.y[i], dp);
    for (index_t j = 0; j < d; ++j)
      for (index_t k = 0; k < K; ++k) {
        const std::size_t e = j * K + k;
        const double g = data.x(i, j) * dp[k];
        G[e] += g * g;
        gsum[e] += g;
        if (o.update == Update::mirror_descent) w[e] -= o.eta * g / (o.delta + std::sqrt(G[e]));
      }
  }
  for (std::size_t e = 0; e < w.size(); ++e) w[e] = weight(e);
  return w;
}

// Steps the learner through the data, each rank passing its slice (dense or sparse).
void run(Learner& learner, const Dataset& data, bool sparse) {
  const int rank = learner.comm().rank();
  const BlockPartition& part = learner.partition();
  std::vector<index_t> idx;
  std::vector<double> val;
  for (index_t i = 0; i < data.x.n; ++i) {
    const auto slice = local_slice(data.x, i, part, rank);
    if (!sparse) {
      learner.step(LocalRow::dense(slice), data.y[i]);
      continue;
    }
    idx.clear();
    val.clear();
    for (std::size_t j = 0; j < slice.size(); ++j)
      if (slice[j] != 0.0) {
        idx.push_back(static_cast<index_t>(j));
        val.push_back(slice[j]);
      }
    learner.step(LocalRow::sparse(idx, val), data.y[i]);
  }
}

std::vector<double> local_weights(const Learner& learner) {
  std::vector<double> w(static_cast<std::size_t>(learner.local_dim() * learner.outputs()));
  learner.weights(w);
  return w;
}

struct Case {
  LossKind loss;
  int classes;
  Update form;
  bool sparse;
};

std::string describe(const Case& c) {
  return to_string(c.loss) + (c.form == Update::mirror_descent ? " CMD" : " DA") + (c.sparse ? " sparse" : " dense");
}

const Case kCases[] = {
    {LossKind::logistic, 2, Update::mirror_descent, false}, {LossKind::logistic, 2, Update::dual_averaging, true},
    {LossKind::hinge, 2, Update::mirror_descent, true},     {LossKind::squared_hinge, 2, Update::dual_averaging, false},
    {LossKind::squared, 2, Update::mirror_descent, true},   {LossKind::absolute, 2, Update::dual_averaging, true},
    {LossKind::softmax, 3, Update::mirror_descent, false},  {LossKind::softmax, 3, Update::dual_averaging, true},
    {LossKind::softmax, 4, Update::mirror_descent, true},   {LossKind::softmax, 4, Update::dual_averaging, false},
};

}  // namespace

TEST(DiagonalAdaGrad, MatchesDenseReference) {
  const index_t d = 37, n = 300;
  for (const Case& c : kCases) {
    const Loss loss(c.loss, c.classes);
    const Dataset data = make_data(n, d, c.sparse ? 0.15 : 0.8, loss, 11);
    const DiagonalAdaGradOptions options{.eta = 0.5, .delta = 0.1, .scale = ScaleRule::none, .update = c.form};
    DiagonalAdaGrad learner(world(), d, loss, options);
    run(learner, data, c.sparse);
    const auto ref = reference_weights(data, loss, options);
    const int rank = learner.comm().rank();
    const auto K = static_cast<std::size_t>(learner.outputs());
    const std::vector<double> ref_slice(ref.begin() + static_cast<std::ptrdiff_t>(learner.partition().begin(rank) * K),
                                        ref.begin() + static_cast<std::ptrdiff_t>(learner.partition().end(rank) * K));
    EXPECT_LT(relative_max_diff(local_weights(learner), ref_slice), 1e-8) << describe(c);
    EXPECT_EQ(learner.steps(), n);
    EXPECT_EQ(learner.name(), c.form == Update::mirror_descent ? "ada-diag" : "ada-diag-da");
  }
}

TEST(DiagonalAdaGrad, SameWeightsOnEveryRankCount) {
  const index_t d = 29, n = 250;
  for (const Case& c : kCases) {
    const Loss loss(c.loss, c.classes);
    const Dataset data = make_data(n, d, c.sparse ? 0.2 : 0.9, loss, 5);
    const DiagonalAdaGradOptions options{.eta = 1.0, .delta = 0.5, .update = c.form};
    DiagonalAdaGrad distributed(world(), d, loss, options);
    DiagonalAdaGrad alone(Communicator(MPI_COMM_SELF), d, loss, options);
    run(distributed, data, c.sparse);
    run(alone, data, c.sparse);
    const auto all = local_weights(alone);
    const int rank = distributed.comm().rank();
    const auto K = static_cast<std::size_t>(loss.outputs());
    const std::vector<double> slice(all.begin() + static_cast<std::ptrdiff_t>(distributed.partition().begin(rank) * K),
                                    all.begin() + static_cast<std::ptrdiff_t>(distributed.partition().end(rank) * K));
    EXPECT_LT(relative_max_diff(local_weights(distributed), slice), 1e-9) << describe(c);
    // predict() agrees with the weights it is built on.
    std::vector<double> p1(K), p2(K);
    distributed.predict(LocalRow::dense(local_slice(data.x, 0, distributed.partition(), rank)), p1);
    alone.predict(LocalRow::dense(local_slice(data.x, 0, alone.partition(), 0)), p2);
    for (std::size_t k = 0; k < K; ++k) EXPECT_NEAR(p1[k], p2[k], 1e-9 * std::max(1.0, std::abs(p2[k])));
  }
}

TEST(DiagonalAdaGrad, RejectsBadOptionsAndLabels) {
  const Loss logistic(LossKind::logistic);
  EXPECT_THROW(DiagonalAdaGrad(world(), 5, logistic, {.eta = 0.0}), InvalidArgument);
  EXPECT_THROW(DiagonalAdaGrad(world(), 5, logistic, {.delta = -1.0}), InvalidArgument);
  EXPECT_THROW(DiagonalAdaGrad(world(), 0, logistic), InvalidArgument);
  // d·K beyond what memory can address (2^48 · 2^16 wraps to 0 in int64): the vector's own error.
  EXPECT_THROW(DiagonalAdaGrad(world(), index_t{1} << 48, Loss(LossKind::softmax, 1 << 16)), std::length_error);
  DiagonalAdaGrad learner(world(), 5, logistic);
  const std::vector<double> x(static_cast<std::size_t>(learner.local_dim()), 1.0);
  EXPECT_THROW(learner.step(LocalRow::dense(x), 0.0), InvalidArgument);  // binary labels are ±1
  DiagonalAdaGrad softmax(world(), 5, Loss(LossKind::softmax, 3));
  EXPECT_THROW(softmax.step(LocalRow::dense(x), 3.0), InvalidArgument);
  EXPECT_EQ(learner.steps(), 0);
}

namespace {

// An in-memory source over a Dataset, with raw labels given separately.
class MemorySource final : public ExampleSource {
 public:
  MemorySource(const DenseMatrix& x, std::vector<double> labels, const Communicator& comm)
      : x_(x), labels_(std::move(labels)), partition_(x.d, comm.size()), rank_(comm.rank()) {}
  index_t dim() const override { return x_.d; }
  const BlockPartition& partition() const override { return partition_; }
  bool next(Example& out) override {
    if (t_ >= x_.n) return false;
    out.dense = true;
    out.indices.clear();
    out.values = local_slice(x_, t_, partition_, rank_);
    out.label = labels_[t_];
    out.position = ++t_;
    return true;
  }
  void rewind() override { t_ = 0; }

 private:
  const DenseMatrix& x_;
  std::vector<double> labels_;
  BlockPartition partition_;
  int rank_;
  index_t t_ = 0;
};

}  // namespace

TEST(OnlineTraining, CountsMistakesAndLossOverPasses) {
  const index_t d = 23, n = 200;
  const Loss loss(LossKind::logistic);
  const Dataset data = make_data(n, d, 0.7, loss, 3);
  std::vector<double> zero_one(data.y.size());
  for (std::size_t i = 0; i < data.y.size(); ++i) zero_one[i] = data.y[i] > 0 ? 1.0 : 0.0;  // {0,1} in the "file"
  MemorySource source(data.x, zero_one, world());
  const LabelMap labels = LabelMap::infer(loss, 0.0, 1.0);
  const DiagonalAdaGradOptions options{.eta = 0.3, .delta = 1.0};

  DiagonalAdaGrad trained(world(), d, loss, options);
  int calls = 0;
  TrainingOptions topts{.passes = 2, .source_name = "memory", .progress = [&](const TrainingProgress&) { ++calls; },
                        .progress_interval = 0.0};
  const TrainingStats stats = train(trained, source, labels, topts);
  EXPECT_GT(calls, 0);

  // The same by hand.
  DiagonalAdaGrad manual(world(), d, loss, options);
  index_t mistakes = 0;
  double total = 0.0;
  for (int pass = 0; pass < 2; ++pass)
    for (index_t i = 0; i < n; ++i) {
      const StepResult r = manual.step(LocalRow::dense(local_slice(data.x, i, manual.partition(), manual.comm().rank())), data.y[i]);
      mistakes += r.mistake ? 1 : 0;
      total += r.loss;
    }
  EXPECT_EQ(stats.examples, 2 * n);
  EXPECT_EQ(stats.mistakes, mistakes);
  EXPECT_NEAR(stats.cumulative_loss, total, 1e-9 * total);
  EXPECT_GT(stats.mistakes, 0);
  EXPECT_LT(relative_max_diff(local_weights(trained), local_weights(manual)), 1e-15);

  // Evaluation with the learner and with a model snapshot agree with a hand count.
  const EvaluationStats ev = evaluate(trained, source, labels, "memory");
  const EvaluationStats ev_model = evaluate(LinearModel(trained, labels), source, "memory");
  index_t wrong = 0;
  double eval_loss = 0.0;
  std::vector<double> p(1);
  for (index_t i = 0; i < n; ++i) {
    trained.predict(LocalRow::dense(local_slice(data.x, i, trained.partition(), trained.comm().rank())), p);
    wrong += loss.mistake(p, data.y[i]) ? 1 : 0;
    eval_loss += loss.value(p, data.y[i]);
  }
  EXPECT_EQ(ev.examples, n);
  EXPECT_EQ(ev.mistakes, wrong);
  EXPECT_DOUBLE_EQ(ev.accuracy, 1.0 - static_cast<double>(wrong) / static_cast<double>(n));
  EXPECT_NEAR(ev.mean_loss, eval_loss / static_cast<double>(n), 1e-12);
  EXPECT_EQ(ev_model.mistakes, ev.mistakes);
  EXPECT_NEAR(ev_model.mean_loss, ev.mean_loss, 1e-12);
  EXPECT_EQ(trained.steps(), 2 * n);  // evaluation does not step
}

TEST(OnlineTraining, UnmappableLabelNamesTheLineOnEveryRank) {
  const index_t d = 7;
  const Loss loss(LossKind::hinge);
  Dataset data = make_data(10, d, 1.0, loss, 9);
  data.y[6] = 0.0;  // position 7: not ±1
  MemorySource source(data.x, data.y, world());
  DiagonalAdaGrad learner(world(), d, loss);
  try {
    train(learner, source, LabelMap(LabelMap::Kind::plus_minus_one), {.source_name = "mem.svm"});
    FAIL() << "label 0 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "mem.svm");
    EXPECT_EQ(e.line(), 7);
  }
  EXPECT_EQ(learner.steps(), 6);
  EXPECT_THROW(train(learner, source, LabelMap(LabelMap::Kind::real), {}), InvalidArgument);  // map does not fit
  EXPECT_THROW(train(learner, source, LabelMap(LabelMap::Kind::plus_minus_one), {.passes = 0}), InvalidArgument);
}

TEST(OnlineTraining, NonFiniteInputIsAnInputErrorOnEveryRank) {
  const index_t d = 6;
  const Loss loss(LossKind::squared);
  Dataset data = make_data(5, d, 1.0, loss, 2);
  data.x(3, d - 1) = std::nan("");  // example 4, last feature: owned by the last rank holding features
  MemorySource source(data.x, data.y, world());
  DiagonalAdaGrad learner(world(), d, loss);
  try {
    train(learner, source, LabelMap(LabelMap::Kind::real), {.source_name = "nan.bin"});
    FAIL() << "NaN accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
  }
}

// A regression loss on ±1 labels counts sign mistakes (least-squares classification, RFD paper §5.2);
// on other labels it reports no accuracy.
TEST(OnlineTraining, RegressionLossOnSignLabelsReportsSignAccuracy) {
  const index_t d = 17, n = 150;
  const Loss loss(LossKind::squared);
  const Dataset data = make_data(n, d, 0.7, Loss(LossKind::logistic), 5);  // labels ±1
  const LabelMap labels = LabelMap::infer(loss, -1.0, 1.0);
  const DiagonalAdaGradOptions options{.eta = 0.1, .delta = 1.0};
  {
    MemorySource source(data.x, data.y, world());
    DiagonalAdaGrad learner(world(), d, loss, options);
    const TrainingStats stats = train(learner, source, labels, TrainingOptions{.passes = 1, .source_name = "memory"});
    EXPECT_TRUE(stats.classified);
    const EvaluationStats ev = evaluate(learner, source, labels, "memory");
    index_t wrong = 0;
    std::vector<double> p(1);
    for (index_t i = 0; i < n; ++i) {
      learner.predict(LocalRow::dense(local_slice(data.x, i, learner.partition(), learner.comm().rank())), p);
      wrong += data.y[i] * p[0] <= 0.0 ? 1 : 0;
    }
    EXPECT_EQ(ev.mistakes, wrong);
    EXPECT_DOUBLE_EQ(ev.accuracy, 1.0 - static_cast<double>(wrong) / static_cast<double>(n));
  }
  std::vector<double> real(data.y);
  real[3] = 0.25;
  MemorySource source(data.x, real, world());
  DiagonalAdaGrad learner(world(), d, loss, options);
  EXPECT_FALSE(train(learner, source, labels, TrainingOptions{.passes = 1, .source_name = "memory"}).classified);
  EXPECT_TRUE(std::isnan(evaluate(learner, source, labels, "memory").accuracy));
}
