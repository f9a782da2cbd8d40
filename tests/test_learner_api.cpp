// The C++ API a scientist links: one set of defaults whichever way a learner is built, the caller's
// own split of the features (BlockPartition from sizes, RowSlicer), and examples held in memory
// (MemorySource) trained with train().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "adasketch/data/memory_source.hpp"
#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/learners/diagonal/diagonal_adagrad.hpp"
#include "adasketch/learners/sketched_adagrad/sketched_adagrad.hpp"
#include "adasketch/learners/sketched_newton/sketched_newton.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/sketch/make_sketch.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/training/online_training.hpp"
#include "adasketch/version.hpp"
#include "test_support.hpp"

namespace adasketch {
namespace {

using test::world;

// from_string inverts to_string on every value; an unknown name throws InvalidArgument naming it and
// the accepted names.
template <class Enum>
void expect_names(const std::vector<std::pair<Enum, std::string>>& names) {
  for (const auto& [value, name] : names) {
    EXPECT_EQ(to_string(value), name);
    EXPECT_EQ(from_string<Enum>(to_string(value)), value) << name;
  }
  for (const std::string& bad : std::vector<std::string>{"bogus", "", names.front().second + " "}) {
    try {
      (void)from_string<Enum>(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'" + bad + "'"), std::string::npos) << what;
      for (const auto& named : names) EXPECT_NE(what.find(named.second), std::string::npos) << what;
    }
  }
}

TEST(LearnerApi, EnumNamesRoundTrip) {
  expect_names<SketchForm>({{SketchForm::dense, "dense"}, {SketchForm::sparse, "sparse"}});
  expect_names<FormChoice>(
      {{FormChoice::automatic, "auto"}, {FormChoice::dense, "dense"}, {FormChoice::sparse, "sparse"}});
  expect_names<SketchKind>({{SketchKind::fd, "fd"},
                            {SketchKind::fast_fd, "fast-fd"},
                            {SketchKind::rfd, "rfd"},
                            {SketchKind::fast_rfd, "fast-rfd"},
                            {SketchKind::rp, "rp"},
                            {SketchKind::oja, "oja"}});
  expect_names<LossKind>({{LossKind::squared, "squared"},
                          {LossKind::absolute, "absolute"},
                          {LossKind::logistic, "logistic"},
                          {LossKind::hinge, "hinge"},
                          {LossKind::squared_hinge, "squared-hinge"},
                          {LossKind::softmax, "softmax"}});
  expect_names<EtaSchedule>(
      {{EtaSchedule::constant, "constant"}, {EtaSchedule::inv_t, "inv-t"}, {EtaSchedule::inv_sqrt_t, "inv-sqrt-t"}});
  // The CLI tests match these texts.
  const auto message = [](auto parse) -> std::string {
    try {
      parse();
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_EQ(message([] { (void)from_string<LossKind>("cubic"); }),
            "unknown loss 'cubic' (expected squared, absolute, logistic, hinge, squared-hinge or softmax)");
  EXPECT_EQ(message([] { (void)from_string<EtaSchedule>("bogus"); }),
            "unknown eta schedule 'bogus' (expected constant, inv-t or inv-sqrt-t)");
  EXPECT_EQ(message([] { (void)from_string<SketchKind>("svd"); }),
            "unknown method 'svd' (expected fd, fast-fd, rfd, fast-rfd, rp or oja)");
  EXPECT_EQ(SketchedNewton(world(), 4, Loss(LossKind::squared), {.sketch = SketchKind::rp}).name(), "rp-son");
}

// A learner built from its options struct's defaults and the same learner from make_learner with
// only the algorithm named: the same hyperparameters (the bug this guards: ℓ = 20, η = 1, η/√t
// against ℓ = 10, η = 0.1, constant).
TEST(LearnerApi, OneSetOfDefaults) {
  const Communicator comm = world();
  const index_t d = 12;
  const Loss logistic(LossKind::logistic);
  const std::pair<std::unique_ptr<Learner>, const char*> built[] = {
      {std::make_unique<DiagonalAdaGrad>(comm, d, logistic), "ada-diag"},
      {std::make_unique<SketchedAdaGrad>(comm, d, logistic), "ada-fd"},
      {std::make_unique<SketchedNewton>(comm, d, logistic), "fast-rfd-son"},
  };
  for (const auto& [learner, algorithm] : built) {
    LearnerSpec spec;
    spec.algorithm = algorithm;
    const auto made = make_learner(comm, d, spec);
    const auto diffs = spec_differences(made->spec(), learner->spec());
    EXPECT_TRUE(diffs.empty()) << algorithm << ": " << (diffs.empty() ? "" : diffs.front().field) << " differs";
    EXPECT_EQ(made->name(), learner->name());
  }
}

// The hyperparameters each algorithm reads, from the papers' algorithms (not from the table's readers
// column).
std::vector<std::pair<std::string, std::vector<std::string>>> hyperparameters_read() {
  // divergence: every learner, through Learner::step's check.
  const std::vector<std::string> adagrad{"eta", "delta", "lambda1", "lambda2", "divergence"};
  const std::vector<std::string> son{"ell", "alpha0", "C", "sigma", "eta", "eta_schedule", "form", "diag_rescale",
                                     "divergence"};
  const auto plus = [](std::vector<std::string> v, std::initializer_list<const char*> more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
  };
  std::vector<std::pair<std::string, std::vector<std::string>>> reads{
      {"ada-diag", adagrad},
      {"ada-diag-da", adagrad},
      {"ada-fd", plus(adagrad, {"ell", "form"})},
      {"fast-ada-fd-da", plus(adagrad, {"ell", "form"})},
      {"ada-gp", plus(adagrad, {"ell", "form", "seed"})},
      {"ada-dp-da", plus(adagrad, {"ell", "form", "seed"})},
      {"fd-son", son},
      {"fast-rfd-son", son},
      {"rp-son", plus(son, {"seed"})},
      {"oja-son", plus(son, {"seed", "oja_gamma"})},
      {"comp-adagrad", plus(adagrad, {"ell", "tau", "seed"})},
  };
  if (ADASKETCH_WITH_EXACT_LEARNERS) {
    reads.push_back({"ada-full", {"eta", "delta", "grid_rows", "divergence"}});
    reads.push_back(
        {"full-on", {"alpha0", "C", "sigma", "eta", "eta_schedule", "diag_rescale", "grid_rows", "divergence"}});
  }
  return reads;
}

// Every algorithm given every hyperparameter away from its default: its spec() reports back the
// ones its family reads (listed here from the papers' algorithms, not from the table's readers
// column) and the defaults for the rest, so that the table's rows reach each family and come back.
TEST(LearnerApi, EachFamilyReadsItsHyperparameters) {
  const Communicator comm = world();
  LearnerSpec given;
  given.loss = LossKind::squared;
  given.ell = 7;
  given.eta = 0.25;
  given.delta = 0.5;
  given.alpha0 = 2.0;
  given.C = 3.0;
  given.sigma = 0.01;
  given.eta_schedule = EtaSchedule::inv_t;
  given.seed = 99;
  given.form = FormChoice::dense;
  given.lambda1 = 1e-3;
  given.lambda2 = 2e-3;
  given.tau = 0.5;
  given.diag_rescale = true;
  given.grid_rows = 1;
  given.divergence = 20.0;
  const auto reads = hyperparameters_read();
  // Each also under --auto (AutoTunedLearner), which every family reads.
  for (const bool tuned : {false, true}) {
  for (auto [algorithm, members] : reads) {
    LearnerSpec spec = given;
    spec.algorithm = algorithm;
    if (algorithm == "oja-son") spec.oja_gamma = {0.5};
    if (tuned) {
      spec.auto_tune = true;
      spec.auto_examples = 5;
      members.insert(members.end(), {"auto_tune", "auto_examples"});
    }
    LearnerSpec expected;
    expected.algorithm = algorithm;
    expected.loss = LossKind::squared;
    for (const std::string& member : members) {
      for_each_hyperparameter(
          [&](const HyperparameterInfo& h, auto& out, const auto& in) {
            if (h.member == member) out = in;
          },
          expected, spec);
    }
    const LearnerSpec reported = make_learner(comm, 12, spec)->spec();
    for (const auto& d : spec_differences(reported, expected))
      ADD_FAILURE() << algorithm << ": " << d.field << " is " << d.saved << ", expected " << d.given;
    EXPECT_EQ(reported.grid_rows, expected.grid_rows) << algorithm;  // (spec_differences skips the layout)
  }
  }
}

// A value outside a hyperparameter's range is refused by every learner that reads it, in one message
// naming the hyperparameter and the value.
TEST(LearnerApi, EachFamilyRefusesValuesOutsideTheRanges) {
  const Communicator comm = world();
  const std::map<std::string, std::string> outside{{"ell", "-1"},     {"eta", "-0.5"},    {"delta", "1e-310"},
                                                   {"alpha0", "-1"},  {"C", "0"},         {"sigma", "-0.25"},
                                                   {"lambda1", "-1"}, {"lambda2", "-1"},  {"tau", "-1"},
                                                   {"oja_gamma", "1.5"}, {"grid_rows", "-1"}, {"divergence", "-1"}};
  for (const auto& [algorithm, members] : hyperparameters_read()) {
    for (const std::string& member : members) {
      const auto value = outside.find(member);
      if (value == outside.end()) continue;  // an enum or a switch: no value outside
      LearnerSpec spec;
      spec.algorithm = algorithm;
      spec.loss = LossKind::squared;
      set_hyperparameter(spec, member, value->second);
      if (member == "oja_gamma" || member == "divergence") spec.ell = 1;  // valid at d = 6 (the check is after)
      try {
        make_learner(comm, 6, spec);
        ADD_FAILURE() << algorithm << " took " << member << " = " << value->second;
      } catch (const InvalidArgument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(member), std::string::npos) << algorithm << ": " << what;
        EXPECT_NE(what.find(value->second), std::string::npos) << algorithm << ": " << what;
      }
    }
  }
}

// Hyperparameters by name (the C and Fortran settings text, checkpoints' spec text): each written
// value, set by its member, is the same value; other text is refused naming the member.
TEST(LearnerApi, HyperparametersSetByName) {
  LearnerSpec spec;
  for (const auto& [member, text] : std::vector<std::pair<std::string, std::string>>{
           {"ell", "7"}, {"eta", "0.25"}, {"alpha0", "1e-20"}, {"C", "-0"}, {"eta_schedule", "inv-sqrt-t"},
           {"seed", "18446744073709551615"}, {"form", "dense"}, {"diag_rescale", "true"},
           {"oja_gamma", "1,0.5,0.25"}, {"grid_rows", "2"}, {"divergence", "2.5"}, {"classes", "5"}})
    set_hyperparameter(spec, member, text);
  EXPECT_EQ(spec.ell, 7);
  EXPECT_EQ(spec.eta, 0.25);
  EXPECT_EQ(spec.alpha0, 1e-20);
  EXPECT_TRUE(spec.C == 0.0 && std::signbit(spec.C));
  EXPECT_EQ(spec.eta_schedule, EtaSchedule::inv_sqrt_t);
  EXPECT_EQ(spec.seed, UINT64_MAX);
  EXPECT_EQ(spec.form, FormChoice::dense);
  EXPECT_TRUE(spec.diag_rescale);
  EXPECT_EQ(spec.oja_gamma, (std::vector<double>{1.0, 0.5, 0.25}));
  EXPECT_EQ(spec.grid_rows, 2);
  EXPECT_EQ(spec.divergence, 2.5);
  EXPECT_EQ(spec.classes, 5);
  // Every row's default, written and set over those values: the defaults, bit for bit.
  const LearnerSpec defaults;
  LearnerSpec copy = spec;
  copy.classes = defaults.classes;
  for_each_hyperparameter(
      [&](const HyperparameterInfo& h, const auto& value) {
        set_hyperparameter(copy, h.member, hyperparameter_text(value));
      },
      defaults);
  EXPECT_TRUE(spec_differences(copy, defaults).empty());
  EXPECT_EQ(copy.grid_rows, defaults.grid_rows);  // (spec_differences skips the layout)
  const auto message = [&](const std::string& member, const std::string& text) -> std::string {
    try {
      set_hyperparameter(spec, member, text);
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_EQ(message("eta", "0.1x"), "hyperparameter eta: '0.1x' is not a value of it");
  EXPECT_EQ(message("ell", "2.5"), "hyperparameter ell: '2.5' is not a value of it");
  EXPECT_EQ(message("grid_rows", "99999999999"), "hyperparameter grid_rows: '99999999999' is not a value of it");
  EXPECT_EQ(message("diag_rescale", "yes"), "hyperparameter diag_rescale: 'yes' is not a value of it");
  EXPECT_EQ(message("oja_gamma", "1,,2"), "hyperparameter oja_gamma: '1,,2' is not a value of it");
  EXPECT_EQ(message("form", "Dense"), "hyperparameter form: 'Dense' is not a value of it");
  EXPECT_EQ(message("eta", " 0.1"), "hyperparameter eta: ' 0.1' is not a value of it");
  EXPECT_NE(message("etaa", "1").find("unknown hyperparameter 'etaa' (expected one of classes, ell, eta, "),
            std::string::npos);
}

TEST(LearnerApi, PartitionFromSizes) {
  const std::vector<index_t> sizes{3, 0, 5, 1};
  const BlockPartition p(sizes);
  EXPECT_EQ(p.dim(), 9);
  EXPECT_EQ(p.parts(), 4);
  EXPECT_FALSE(p.is_uniform());
  const index_t begins[] = {0, 3, 3, 8}, ends[] = {3, 3, 8, 9};
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(p.begin(r), begins[r]);
    EXPECT_EQ(p.end(r), ends[r]);
  }
  // The owner of each feature, by a scan of the blocks.
  for (index_t j = 0; j < 9; ++j) {
    int owner = -1;
    for (int r = 0; r < 4; ++r)
      if (begins[r] <= j && j < ends[r]) owner = r;
    EXPECT_EQ(p.owner(j), owner) << j;
  }
  const BlockPartition k = p.interleaved(3);
  EXPECT_EQ(k.dim(), 27);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(k.begin(r), 3 * begins[r]);
  EXPECT_THROW(BlockPartition(std::vector<index_t>{2, -1}), InvalidArgument);
  EXPECT_THROW(BlockPartition(std::vector<index_t>{0, 0}), InvalidArgument);

  // Collective: rank r owns r + 1 features, but rank 1 none.
  const Communicator comm = world();
  const index_t mine = comm.rank() == 1 ? 0 : comm.rank() + 1;
  const BlockPartition gathered = BlockPartition::from_local_sizes(comm, mine);
  EXPECT_EQ(gathered.size(comm.rank()), mine);
  index_t total = 0;
  for (int r = 0; r < comm.size(); ++r) total += r == 1 ? 0 : r + 1;
  EXPECT_EQ(gathered.dim(), total);
  // A negative size on one rank fails on every rank (checked after the Allgather).
  EXPECT_THROW(BlockPartition::from_local_sizes(comm, comm.rank() == comm.size() - 1 ? -1 : 1), InvalidArgument);
}

TEST(LearnerApi, RowSlicer) {
  const std::vector<index_t> sizes{4, 0, 3};
  const BlockPartition p(sizes);
  const std::vector<double> dense{1, 0, 2, 0, 0, 3, 4};
  const std::vector<index_t> idx{0, 2, 5, 6};
  const std::vector<double> val{1, 2, 3, 4};
  for (int r = 0; r < 3; ++r) {
    RowSlicer slicer(p, r);
    const LocalRow a = slicer.dense(dense);
    const LocalRow b = slicer.sparse(idx, val);
    ASSERT_EQ(a.values().size(), static_cast<std::size_t>(p.size(r)));
    // The sparse slice, scattered, is the dense slice.
    std::vector<double> scattered(a.values().size(), 0.0);
    for (std::size_t n = 0; n < b.indices().size(); ++n) scattered[static_cast<std::size_t>(b.indices()[n])] = b.values()[n];
    EXPECT_EQ(scattered, std::vector<double>(a.values().begin(), a.values().end())) << r;
  }
  RowSlicer slicer(p, 0);
  EXPECT_THROW(slicer.sparse(std::vector<index_t>{2, 1}, std::vector<double>{1, 1}), InvalidArgument);
  EXPECT_THROW(slicer.sparse(std::vector<index_t>{7}, std::vector<double>{1}), InvalidArgument);
  EXPECT_THROW(slicer.dense(std::vector<double>(6, 0.0)), InvalidArgument);
}

// Global rows (the same on every rank): sparse rows with about a third of the features.
struct GlobalRows {
  index_t d = 0;
  std::vector<double> labels;
  std::vector<std::vector<index_t>> indices;
  std::vector<std::vector<double>> values;
};

GlobalRows make_rows(index_t d, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit;
  GlobalRows rows;
  rows.d = d;
  for (int i = 0; i < n; ++i) {
    std::vector<index_t> idx;
    std::vector<double> val;
    double score = 0.0;
    for (index_t j = 0; j < d; ++j)
      if (unit(rng) < 0.35) {
        idx.push_back(j);
        val.push_back(normal(rng));
        score += val.back() * std::cos(static_cast<double>(j));
      }
    rows.labels.push_back(score >= 0.0 ? 1.0 : -1.0);
    rows.indices.push_back(idx);
    rows.values.push_back(val);
  }
  return rows;
}

// The whole weight vector on every rank (collective).
std::vector<double> global_weights(const Learner& learner) {
  const auto& p = learner.partition();
  const int rank = learner.comm().rank();
  std::vector<double> local(static_cast<std::size_t>(learner.local_dim() * learner.outputs()));
  learner.weights(local);
  std::vector<double> all(static_cast<std::size_t>(p.dim() * learner.outputs()), 0.0);
  std::copy(local.begin(), local.end(), all.begin() + p.begin(rank) * learner.outputs());
  learner.comm().allreduce_sum(all);
  return all;
}

// Uneven blocks of the caller's own choosing, with an empty one when P ≥ 2.
std::vector<index_t> uneven_sizes(index_t d, int parts) {
  std::vector<index_t> sizes(static_cast<std::size_t>(parts), 0);
  if (parts == 1) {
    sizes[0] = d;
  } else {
    sizes[0] = d - 2 * (parts - 1) + 1;  // the largest block first, then rank 1 empty, then 2 each
    for (int r = 2; r < parts; ++r) sizes[static_cast<std::size_t>(r)] = 2;
    sizes[0] += d - std::accumulate(sizes.begin(), sizes.end(), index_t{0});
  }
  return sizes;
}

TEST(LearnerApi, CallersPartitionGivesTheSameRun) {
  const Communicator comm = world();
  const GlobalRows rows = make_rows(17, 120, 7);
  const BlockPartition uniform(rows.d, comm.size());
  const BlockPartition uneven(uneven_sizes(rows.d, comm.size()));
  for (const char* algorithm : {"ada-diag", "ada-fd", "fast-ada-fd-da", "ada-gp", "fast-rfd-son", "oja-son", "rp-son"}) {
    SCOPED_TRACE(algorithm);
    LearnerSpec spec;
    spec.algorithm = algorithm;
    spec.ell = 4;
    auto a = make_learner(comm, uniform, spec);
    auto b = make_learner(comm, uneven, spec);
    RowSlicer sa(uniform, comm.rank()), sb(uneven, comm.rank());
    for (std::size_t i = 0; i < rows.labels.size(); ++i) {
      const StepResult ra = a->step(sa.sparse(rows.indices[i], rows.values[i]), rows.labels[i]);
      const StepResult rb = b->step(sb.sparse(rows.indices[i], rows.values[i]), rows.labels[i]);
      ASSERT_NEAR(ra.loss, rb.loss, 1e-10 * (1.0 + std::abs(ra.loss))) << i;
    }
    EXPECT_LT(test::relative_max_diff(global_weights(*b), global_weights(*a)), 1e-10);
  }
}

TEST(LearnerApi, MemorySourceTrainsAsSteppingDoes) {
  const Communicator comm = world();
  const GlobalRows rows = make_rows(15, 80, 11);
  const BlockPartition partition(uneven_sizes(rows.d, comm.size()));
  const int rank = comm.rank();
  const index_t local = partition.size(rank), begin = partition.begin(rank);
  // The first 30 examples as a dense batch, the rest as CSR, each rank its own columns.
  const std::size_t split = 30;
  std::vector<double> dense_labels(rows.labels.begin(), rows.labels.begin() + split);
  std::vector<double> dense(split * static_cast<std::size_t>(local), 0.0);
  std::vector<double> csr_labels(rows.labels.begin() + split, rows.labels.end());
  std::vector<index_t> offsets{0}, indices;
  std::vector<double> values;
  for (std::size_t i = 0; i < rows.labels.size(); ++i)
    for (std::size_t n = 0; n < rows.indices[i].size(); ++n) {
      const index_t j = rows.indices[i][n] - begin;
      if (j < 0 || j >= local) continue;
      if (i < split) {
        dense[i * static_cast<std::size_t>(local) + static_cast<std::size_t>(j)] = rows.values[i][n];
      } else {
        indices.push_back(j);
        values.push_back(rows.values[i][n]);
      }
    }
  for (std::size_t i = split; i < rows.labels.size(); ++i) {
    index_t end = offsets.back();
    for (const index_t g : rows.indices[i])
      if (g >= begin && g < begin + local) ++end;
    offsets.push_back(end);
  }
  MemorySource source(comm, partition);
  source.add_dense(dense_labels, dense);
  source.add_csr(csr_labels, offsets, indices, values);
  EXPECT_EQ(source.size(), static_cast<index_t>(rows.labels.size()));

  LearnerSpec spec;
  spec.algorithm = "fast-rfd-son";
  spec.ell = 4;
  spec.form = FormChoice::dense;  // the dense batch and the sparse one share one sketch form
  auto trained = make_learner(comm, partition, spec);
  TrainingOptions options;
  options.passes = 2;
  const TrainingStats stats = train(*trained, source, LabelMap(LabelMap::Kind::plus_minus_one), options);
  EXPECT_EQ(stats.examples, 2 * source.size());

  // The same two passes, stepped by hand from the global rows.
  auto stepped = make_learner(comm, partition, spec);
  RowSlicer slicer(partition, rank);
  for (int pass = 0; pass < 2; ++pass)
    for (std::size_t i = 0; i < rows.labels.size(); ++i) stepped->step(slicer.sparse(rows.indices[i], rows.values[i]), rows.labels[i]);
  EXPECT_LT(test::relative_max_diff(global_weights(*trained), global_weights(*stepped)), 1e-10);

  // skip() lands where next() would.
  Example e;
  source.rewind();
  EXPECT_EQ(source.skip(42), 42);
  ASSERT_TRUE(source.next(e));
  EXPECT_EQ(e.position, 43);
  EXPECT_EQ(e.label, rows.labels[42]);
  EXPECT_EQ(source.skip(1000), source.size() - 43);
  EXPECT_FALSE(source.next(e));
}

TEST(LearnerApi, MemorySourceRefusesBadBatchesOnEveryRank) {
  const Communicator comm = world();
  const BlockPartition partition(10, comm.size());
  const index_t local = partition.size(comm.rank());
  MemorySource source(comm, partition);
  const std::vector<double> labels{1.0, -1.0};
  EXPECT_THROW(source.add_dense(labels, std::vector<double>(static_cast<std::size_t>(2 * local) + 1, 0.0)), InvalidArgument);
  // Only the last rank's batch is wrong (descending indices): every rank throws.
  const bool bad = comm.rank() == comm.size() - 1 && local >= 2;
  const std::vector<index_t> offsets{0, bad ? 2 : 0, bad ? 2 : 0};
  const std::vector<index_t> indices = bad ? std::vector<index_t>{1, 0} : std::vector<index_t>{};
  const std::vector<double> values(indices.size(), 1.0);
  if (comm.allreduce_max(index_t{bad ? 1 : 0}) != 0) {
    EXPECT_THROW(source.add_csr(labels, offsets, indices, values), InvalidArgument);
  }
  // Different labels on different ranks.
  if (comm.size() > 1) {
    const std::vector<double> mine{comm.rank() == 0 ? 1.0 : -1.0};
    EXPECT_THROW(source.add_dense(mine, std::vector<double>(static_cast<std::size_t>(local), 0.0)), InvalidArgument);
  }
  EXPECT_EQ(source.size(), 0);
}

}  // namespace
}  // namespace adasketch
