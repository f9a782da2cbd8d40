// Composite regularization φ(w) = λ₁‖w‖₁ + λ₂/2‖w‖² of the AdaGrad family: ADA-DIAG and the sketched
// learners (ADA-FD, fast ADA-FD, ADA-GP, ADA-DP), mirror descent and dual averaging, with ℓ1 only,
// ℓ2 only and both:
//   - against the dense references of composite_reference.hpp (the whole W on every rank, H built
//     explicitly, each prox solved independently: closed form per entry, dposv, or coordinate
//     descent), on dense data and on sparse data fed as sparse rows (sparse sketch form) and as
//     dense rows (dense form);
//   - the same run on MPI_COMM_SELF on every rank (rank-count independence);
//   - a strong ℓ2 term, whose mirror-descent shrink folds the lazy weights' scale;
//   - a large λ₁ gives exact zeros where the reference has them;
//   - a checkpoint written after some steps and read into a fresh learner (at this rank count, and
//     for ADA-DIAG's lazy catch-up state also on one rank) continues exactly as the uninterrupted run;
//   - Sketch::apply_basis_gram: M K Mᵀ = BBᵀ for every sketch and form;
//   - bad λ are refused, spec() reports them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"
#include "adasketch/learners/sketched_adagrad/sketched_adagrad.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/oja_sketch.hpp"
#include "adasketch/sketch/random_projection.hpp"
#include "checkpoint_support.hpp"
#include "composite_reference.hpp"
#include "test_support.hpp"

using namespace adasketch;
using namespace adasketch::test;
using Kind = CompositeReference::Kind;

namespace {

struct Regularization {
  const char* what;
  double lambda1, lambda2;
};
const Regularization kRegularizations[] = {{"l1", 0.03, 0.0}, {"l2", 0.0, 0.2}, {"l1+l2", 0.03, 0.2}};

struct Algorithm {
  const char* name;  // mirror descent; "-da" appended for dual averaging
  Kind kind;
  index_t ell;
};
const Algorithm kSketched[] = {
    {"ada-fd", Kind::fd, 3}, {"fast-ada-fd", Kind::fast_fd, 2}, {"ada-gp", Kind::gp, 4}, {"ada-dp", Kind::dp, 4}};

LearnerSpec spec_for(const std::string& algorithm, const Loss& loss, index_t ell, const Regularization& reg,
                     FormChoice form) {
  LearnerSpec s;
  s.algorithm = algorithm;
  s.loss = loss.kind();
  s.classes = loss.outputs() > 1 ? loss.outputs() : 2;
  s.ell = ell;
  s.eta = 0.5;
  s.delta = 0.3;
  s.seed = 17;
  s.form = form;
  s.lambda1 = reg.lambda1;
  s.lambda2 = reg.lambda2;
  s.scale = ScaleRule::none;  // η, δ, λ as the reference takes them
  return s;
}

CompositeReference::Setup setup_for(Kind kind, bool dual, const LearnerSpec& s) {
  return {kind, dual, s.ell, s.eta, s.delta, s.lambda1, s.lambda2, s.seed};
}

struct Run {
  std::vector<double> weights;
  double cumulative_loss = 0.0;
};

/// Steps the learner through the problem (each rank its slice, as sparse or dense rows).
Run run(Learner& learner, const CompositeProblem& p, bool sparse_rows) {
  const auto& part = learner.partition();
  const int rank = learner.comm().rank();
  Run r;
  for (index_t t = 0; t < p.n; ++t) {
    std::vector<index_t> idx;
    std::vector<double> val;
    for (index_t j = part.begin(rank); j < part.end(rank); ++j) {
      const double v = p.row(t)[j];
      if (sparse_rows && v == 0.0) continue;
      idx.push_back(j - part.begin(rank));
      val.push_back(v);
    }
    const LocalRow row = sparse_rows ? LocalRow::sparse(idx, val) : LocalRow::dense(val);
    r.cumulative_loss += learner.step(row, p.y[sz(t)]).loss;
  }
  r.weights = global_weights(learner);
  return r;
}

Run run_spec(const Communicator& comm, const CompositeProblem& p, const LearnerSpec& s, bool sparse_rows) {
  auto learner = make_learner(comm, p.d, s);
  return run(*learner, p, sparse_rows);
}

CompositeReference reference_run(Kind kind, bool dual, const LearnerSpec& s, const CompositeProblem& p) {
  CompositeReference ref(setup_for(kind, dual, s), p.d, Loss(s.loss, s.classes));
  for (index_t t = 0; t < p.n; ++t) ref.step(p.row(t), p.y[sz(t)]);
  return ref;
}

/// max |a − b| / max |b|; infinite when a holds a non-finite value.
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / std::max(scale, 1e-300);
}

index_t zeros(const std::vector<double>& w) { return static_cast<index_t>(std::count(w.begin(), w.end(), 0.0)); }

const Loss kLosses[] = {Loss(LossKind::logistic), Loss(LossKind::softmax, 3)};

std::string form_label(bool dual) { return dual ? "-da" : ""; }

}  // namespace

TEST(Composite, DiagonalMatchesTheDenseReference) {
  const auto comm = world();
  for (const Loss& loss : kLosses)
    for (const bool sparse : {false, true})
      for (const bool dual : {false, true})
        for (const auto& reg : kRegularizations) {
          const auto p = make_composite_problem(300, 9, loss, sparse, 3);
          const auto s = spec_for(std::string("ada-diag") + form_label(dual), loss, 0, reg, FormChoice::automatic);
          const auto ref = reference_run(Kind::diagonal, dual, s, p);
          for (const bool sparse_rows : {false, true}) {
            if (sparse_rows && !sparse) continue;
            const auto got = run_spec(comm, p, s, sparse_rows);
            const std::string what = s.algorithm + " " + to_string(loss.kind()) + " " + reg.what +
                                     (sparse ? " sparse data" : " dense data") + (sparse_rows ? ", sparse rows" : "");
            EXPECT_LT(rel_diff(got.weights, ref.weights()), 1e-12) << what;
            EXPECT_NEAR(got.cumulative_loss, ref.cumulative_loss(), 1e-11 * ref.cumulative_loss()) << what;
          }
        }
}

TEST(Composite, SketchedMatchesTheDenseReference) {
  const auto comm = world();
  for (const Loss& loss : kLosses)
    for (const auto& a : kSketched)
      for (const bool dual : {false, true})
        for (const auto& reg : kRegularizations)
          for (const bool sparse : {false, true}) {
            const index_t d = loss.outputs() > 1 ? 4 : 7;
            const auto p = make_composite_problem(150, d, loss, sparse, 5);
            const std::string algorithm = a.name + form_label(dual);
            const auto ref = reference_run(a.kind, dual, spec_for(algorithm, loss, a.ell, reg, FormChoice::dense), p);
            // Sparse data: as sparse rows on the sparse sketch form, and as dense rows on the dense one.
            for (const FormChoice form : {FormChoice::dense, FormChoice::sparse}) {
              if (form == FormChoice::sparse && !sparse) continue;
              const auto s = spec_for(algorithm, loss, a.ell, reg, form);
              const auto got = run_spec(comm, p, s, form == FormChoice::sparse);
              const std::string what = algorithm + " " + to_string(loss.kind()) + " " + reg.what +
                                       (sparse ? " sparse data, " : " dense data, ") + to_string(form) + " form";
              // The learner drops eigenvalues of BBᵀ below 10⁻¹⁵λ_max, the reference those of BᵀB below
              // 10⁻¹²μ_max: a direction in between moves H by up to √(10⁻¹²λ_max) (sketched_adagrad.hpp).
              EXPECT_LT(rel_diff(got.weights, ref.weights()), 1e-8) << what;
              EXPECT_NEAR(got.cumulative_loss, ref.cumulative_loss(), 1e-8 * ref.cumulative_loss()) << what;
            }
          }
}

TEST(Composite, StrongL2MirrorDescentFoldsItsScale) {
  // ρ = δ/(δ + ηλ₂) = 0.3/2.8 per step: the sketched learners' global scale passes 10⁻¹⁵⁰ (and is
  // folded into w̄ and c) about every 150 steps.
  const auto comm = world();
  const Regularization strong{"strong l2", 0.0, 5.0};
  for (const Loss& loss : kLosses)
    for (const auto& a : kSketched) {
      const auto p = make_composite_problem(400, loss.outputs() > 1 ? 4 : 7, loss, true, 7);
      for (const FormChoice form : {FormChoice::dense, FormChoice::sparse}) {
        const auto s = spec_for(a.name, loss, a.ell, strong, form);
        const auto got = run_spec(comm, p, s, form == FormChoice::sparse);
        const auto ref = reference_run(a.kind, false, s, p);
        const std::string what = s.algorithm + " " + to_string(loss.kind()) + " " + to_string(form);
        EXPECT_LT(rel_diff(got.weights, ref.weights()), 1e-8) << what;
        EXPECT_NEAR(got.cumulative_loss, ref.cumulative_loss(), 1e-8 * ref.cumulative_loss()) << what;
      }
    }
}

TEST(Composite, SameWeightsOnEveryRankCount) {
  // d ≫ ℓ: the sketches shrink and fold often.
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const Loss loss(LossKind::logistic);
  const auto p = make_composite_problem(200, 23, loss, true, 9);
  std::vector<std::pair<std::string, index_t>> algorithms{{"ada-diag", 0}};
  for (const auto& a : kSketched) algorithms.emplace_back(a.name, a.ell);
  for (const auto& [name, ell] : algorithms)
    for (const bool dual : {false, true})
      for (const auto& reg : kRegularizations)
        for (const FormChoice form : {FormChoice::dense, FormChoice::sparse}) {
          const auto s = spec_for(name + form_label(dual), loss, ell, reg, form);
          const auto here = run_spec(comm, p, s, form == FormChoice::sparse);
          const auto alone = run_spec(self, p, s, form == FormChoice::sparse);
          const std::string what = s.algorithm + " " + reg.what + " " + to_string(form);
          // Sketched: the eigenvalues of BBᵀ are fixed only to about u·λ_max, so one near the rank
          // tolerance (10⁻¹⁵λ_max) may be kept at one rank count and dropped at another, moving H by
          // up to √(10⁻¹⁵λ_max)/δ (sketched_adagrad.hpp); fast FD's dual averaging meets such ones here.
          const double tolerance = ell == 0 ? 1e-12 : 1e-8;
          EXPECT_LT(rel_diff(here.weights, alone.weights), tolerance) << what;
          EXPECT_NEAR(here.cumulative_loss, alone.cumulative_loss, tolerance * alone.cumulative_loss) << what;
        }
}

TEST(Composite, LargeL1GivesExactZeros) {
  const auto comm = world();
  const Loss loss(LossKind::logistic);
  const auto p = make_composite_problem(200, 10, loss, false, 11);
  std::vector<std::pair<std::string, Algorithm>> algorithms{{"ada-diag", {"ada-diag", Kind::diagonal, 0}}};
  for (const auto& a : kSketched) algorithms.emplace_back(a.name, a);
  for (const auto& [name, a] : algorithms)
    for (const bool dual : {false, true}) {
      // Dual averaging thresholds ḡ_t at tλ₁: a λ₁ near the average gradient's size.
      const Regularization strong{"strong l1", dual ? 0.15 : 0.2, 0.0};
      const auto s = spec_for(name + form_label(dual), loss, a.ell, strong, FormChoice::dense);
      const auto got = run_spec(comm, p, s, false);
      const auto ref = reference_run(a.kind, dual, s, p);
      EXPECT_GE(zeros(got.weights), p.d / 3) << s.algorithm;
      EXPECT_LT(zeros(got.weights), p.d) << s.algorithm;  // and not the trivial model
      for (index_t j = 0; j < p.d; ++j)
        EXPECT_EQ(got.weights[sz(j)] == 0.0, ref.weights()[sz(j)] == 0.0) << s.algorithm << " feature " << j;
      EXPECT_LT(rel_diff(got.weights, ref.weights()), 1e-8) << s.algorithm;
    }
}

TEST(Composite, CheckpointResumesExactly) {
  const auto comm = world();
  const Communicator self(MPI_COMM_SELF);
  const std::string dir = shared_checkpoint_dir();
  std::vector<std::string> algorithms{"ada-diag", "ada-diag-da"};
  for (const auto& a : kSketched) {
    algorithms.push_back(a.name);
    algorithms.push_back(a.name + std::string("-da"));
  }
  // ℓ2 (the scaled lazy form) and ℓ1 + ℓ2 (explicit weights, the ℓ1 prox); binary dense rows and
  // softmax sparse rows (each save syncs the file: a few cases keep the test short).
  for (const auto& algorithm : algorithms)
    for (const bool softmax : {false, true})
      for (const auto& reg : {kRegularizations[1], kRegularizations[2]}) {
        const bool sparse = softmax;
        const auto data = make_step_data(sparse);
        const Loss loss = softmax ? Loss(LossKind::softmax, 3) : Loss(LossKind::logistic);
        const auto s = spec_for(algorithm, loss, 3, reg, FormChoice::automatic);
        const std::string what = algorithm + (softmax ? " softmax " : " binary ") + reg.what + (sparse ? " sparse" : " dense");
        const index_t half = kCheckpointExamples / 2;
        auto whole = make_learner(comm, kCheckpointDim, s);
        const auto expected = run_steps(*whole, data, 0, kCheckpointExamples);
        auto first = make_learner(comm, kCheckpointDim, s);
        auto results = run_steps(*first, data, 0, half);
        const std::string path = dir + "/composite.ckpt";
        save_checkpoint(path, *first);
        auto resumed = make_learner(comm, kCheckpointDim, s);
        load_checkpoint(path, *resumed);
        const auto rest = run_steps(*resumed, data, half, kCheckpointExamples);
        results.insert(results.end(), rest.begin(), rest.end());
        EXPECT_TRUE(everywhere(comm, bitwise_equal(results, expected))) << what;
        EXPECT_TRUE(everywhere(comm, bitwise_equal(local_weights(*resumed), local_weights(*whole)))) << what;
        if (!algorithm.starts_with("ada-diag")) continue;
        // The catch-up state does not depend on the rank count: resume on one rank.
        auto alone = make_learner(self, kCheckpointDim, s);
        load_checkpoint(path, *alone);
        run_steps(*alone, data, half, kCheckpointExamples);
        EXPECT_LT(rel_diff(local_weights(*alone), global_weights(*whole)), 1e-13) << what << " on one rank";
      }
}

TEST(Composite, BasisGramMatchesTheSketch) {
  // M K Mᵀ = BBᵀ with B gathered from the ranks' blocks, after rows that make FD shrink (the sparse
  // form defers the shrinks).
  const auto comm = world();
  const auto a = random_low_rank(40, 17, 5, 0.1, 4);
  for (const SketchForm form : {SketchForm::dense, SketchForm::sparse}) {
    std::vector<std::unique_ptr<Sketch>> sketches;
    sketches.push_back(std::make_unique<FrequentDirections>(comm, a.d, FrequentDirectionsOptions{4, false, false, 0.0, form}));
    sketches.push_back(std::make_unique<FrequentDirections>(comm, a.d, FrequentDirectionsOptions{3, true, false, 0.0, form}));
    sketches.push_back(std::make_unique<RandomProjection>(comm, a.d, RandomProjectionOptions{4, 3, 0, form}));
    OjaSketchOptions oja;
    oja.ell = 4;
    oja.form = form;
    sketches.push_back(std::make_unique<OjaSketch>(comm, a.d, oja));
    for (auto& sketch : sketches) {
      const index_t R = sketch->rows(), Rz = sketch->basis_rows();
      feed_dense(*sketch, a);
      const auto B = gather_sketch(*sketch);
      for (index_t i = 0; i < R; ++i) {
        std::vector<double> v(sz(R), 0.0), mv(sz(Rz)), kmv(sz(Rz)), got(sz(R)), expected(sz(R), 0.0);
        v[sz(i)] = 1.0;
        sketch->mix_transpose(v, mv);
        sketch->apply_basis_gram(mv, kmv);
        sketch->mix(kmv, got);
        for (index_t r = 0; r < R; ++r)
          for (index_t j = 0; j < a.d; ++j) expected[sz(r)] += B(r, j) * B(i, j);
        EXPECT_LT(relative_max_diff(got, expected), 1e-10) << sketch->name() << " " << to_string(form) << " column " << i;
      }
    }
  }
}

TEST(Composite, RefusesBadLambdasAndReportsThem) {
  const auto comm = world();
  const Loss loss(LossKind::logistic);
  for (const double bad : {-0.1, std::nan(""), std::numeric_limits<double>::infinity()}) {
    for (const char* algorithm : {"ada-diag", "ada-diag-da", "ada-fd", "ada-dp-da"}) {
      LearnerSpec s;
      s.algorithm = algorithm;
      s.lambda1 = bad;
      EXPECT_THROW(make_learner(comm, 5, s), InvalidArgument) << algorithm << " lambda1 " << bad;
      s.lambda1 = 0.0;
      s.lambda2 = bad;
      EXPECT_THROW(make_learner(comm, 5, s), InvalidArgument) << algorithm << " lambda2 " << bad;
    }
  }
  SketchedAdaGradOptions o;
  o.prox_tolerance = 0.0;
  EXPECT_THROW(SketchedAdaGrad(comm, 5, loss, o), InvalidArgument);
  for (const char* algorithm : {"ada-diag", "ada-diag-da", "ada-fd", "fast-ada-fd-da", "ada-gp", "ada-dp-da"}) {
    LearnerSpec s;
    s.algorithm = algorithm;
    s.lambda1 = 0.25;
    s.lambda2 = 0.5;
    const auto learner = make_learner(comm, 5, s);
    EXPECT_EQ(learner->spec().lambda1, 0.25) << algorithm;
    EXPECT_EQ(learner->spec().lambda2, 0.5) << algorithm;
  }
}
