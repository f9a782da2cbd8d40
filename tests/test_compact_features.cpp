// Seen features (adasketch/data/compact_features.hpp): the FeatureMap of a LIBSVM file against the
// features the test wrote into it, the compact numbering at every rank count, and every learner
// trained on the compact features against the same learner trained on all d features, on power-law
// rows with scattered (hashed) feature indices; then the model file of compact features (its feature list)
// and a checkpoint's flag.
//
// The comparison: both runs do the same floating-point operations on the same operands. A sparse
// step reads and writes the row's features and those its state was ever non-zero on, in ascending
// order, and sums over ranks in rank order; the compact numbering keeps the order and each rank keeps
// its original block's features. What may differ is the grouping inside a kernel whose blocking
// follows its operands' addresses; the bound of that, amplified by the trajectory's measured
// condition number, is stated at the check. The features the data never had keep exactly zero
// weights in the all-features run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "adasketch/data/compact_features.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/number_text.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/training/online_training.hpp"
#include "checkpoint_support.hpp"
#include "test_support.hpp"

using namespace adasketch;
using adasketch::test::world;

namespace {

constexpr index_t kDim = index_t{1} << 18;  // d; 2^18 keeps the all-features runs small at 3 ranks
constexpr int kWords = 3000;                 // the vocabulary the rows draw from

// Word r's feature: an odd multiplier is a bijection of [0, 2^18), so the words land at scattered,
// distinct indices as hashed features do (0-based).
index_t feature_of(int r) { return (static_cast<index_t>(r) * 40503 + 977) % kDim; }

// n rows of about `nnz` distinct words drawn with Zipf(1.1) frequencies, values N(0,1)/√nnz, labels
// 0..2 from a fixed rule over the frequent words. Rank 0 writes them as LIBSVM text (1-based
// indices, ascending) to `path` + ".classes" and, with the labels +1 for class 2 and −1 for the
// others, to `path` + ".binary"; every rank returns the set of features written.
std::set<index_t> write_power_law_rows(const std::string& path, int n, int nnz, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::vector<double> weights(kWords);
  for (int r = 0; r < kWords; ++r) weights[static_cast<std::size_t>(r)] = 1.0 / std::pow(r + 1.0, 1.1);
  std::discrete_distribution<int> word(weights.begin(), weights.end());
  std::normal_distribution<double> normal(0.0, 1.0);
  std::set<index_t> features;
  std::ofstream classes, binary;
  if (world().rank() == 0) {
    classes.open(path + ".classes", std::ios::trunc);
    binary.open(path + ".binary", std::ios::trunc);
  }
  for (int i = 0; i < n; ++i) {
    std::map<index_t, double> row;
    double score = 0.0;
    for (int k = 0; k < nnz; ++k) {
      const int r = word(gen);
      const double v = normal(gen) / std::sqrt(static_cast<double>(nnz));
      row[feature_of(r)] = v;
      if (r < 20) score += (r % 2 == 0 ? 1.0 : -1.0) * v;
    }
    const int label = score > 0.2 ? 2 : score < -0.2 ? 0 : 1;
    if (world().rank() == 0) {
      std::string pairs;
      for (const auto& [j, v] : row) pairs += ' ' + std::to_string(j + 1) + ':' + number_text(v);
      classes << label << pairs << '\n';
      binary << (label == 2 ? "+1" : "-1") << pairs << '\n';
    }
    for (const auto& [j, v] : row) features.insert(j);
  }
  if (world().rank() == 0) {
    classes.close();
    binary.close();
  }
  world().barrier();
  return features;
}

LearnerSpec spec_for(const std::string& algorithm, bool softmax) {
  LearnerSpec s;
  s.algorithm = algorithm;
  const bool son = algorithm.ends_with("-son");
  s.loss = softmax ? LossKind::softmax : son ? LossKind::squared : LossKind::logistic;
  s.classes = 3;
  s.ell = 4;
  s.eta = son ? 1.0 : 0.2;
  s.alpha0 = 1.0;
  return s;
}

// The file's labels as they are: classes 0..2, ±1, or real values for a regression loss.
LabelMap labels_for(const LearnerSpec& s) {
  if (s.loss == LossKind::softmax) return LabelMap(LabelMap::Kind::classes_from_zero, 3);
  return Loss(s.loss).is_classification() ? LabelMap(LabelMap::Kind::plus_minus_one, 2) : LabelMap(LabelMap::Kind::real);
}

constexpr double kU = 0x1p-53;  // the unit round-off of double

std::vector<Example> read_all(ExampleSource& source) {
  std::vector<Example> out;
  Example e;
  while (source.next(e)) out.push_back(e);
  source.rewind();
  return out;
}

// This rank's weights, feature-major.
std::vector<double> weights_of(const Learner& learner) {
  std::vector<double> w(static_cast<std::size_t>(learner.local_dim() * learner.outputs()));
  learner.weights(w);
  return w;
}

struct TrainedRun {
  TrainingStats stats;
  std::vector<double> weights;  // this rank's, feature-major
  std::unique_ptr<Learner> learner;
};

TrainedRun train_on(ExampleSource& source, const LearnerSpec& spec, const LabelMap& labels) {
  TrainedRun r;
  r.learner = make_learner(world(), source.partition(), spec);
  r.stats = train(*r.learner, source, labels, TrainingOptions{.passes = 2});
  r.weights.assign(static_cast<std::size_t>(r.learner->local_dim() * r.learner->outputs()), 0.0);
  r.learner->weights(r.weights);
  return r;
}

// The learner of `spec` trained on the seen features of `path`, and their map.
TrainedRun train_on_seen(const std::string& path, const LearnerSpec& spec, std::shared_ptr<const FeatureMap>& map) {
  LibsvmReader reader(world(), path, LibsvmOptions{.dim = kDim});
  map = std::make_shared<const FeatureMap>(FeatureMap::scan(world(), reader));
  CompactSource compact(reader, map);
  return train_on(compact, spec, labels_for(spec));
}


class CompactFeatures : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = adasketch::test::shared_checkpoint_dir();  // removed after the last test
    written_ = write_power_law_rows(dir_ + "/rows.svm", 240, 12, 7);
  }
  /// The rows with the labels `spec` reads.
  static std::string path(const LearnerSpec& spec) {
    return dir_ + (spec.loss == LossKind::softmax ? "/rows.svm.classes" : "/rows.svm.binary");
  }
  static std::string path() { return dir_ + "/rows.svm.classes"; }
  static inline std::string dir_;
  static inline std::set<index_t> written_;
};

TEST_F(CompactFeatures, ScanListsTheWrittenFeaturesInTheSameOrderAtEveryRankCount) {
  LibsvmReader reader(world(), path(), LibsvmOptions{.dim = kDim});
  const FeatureMap map = FeatureMap::scan(world(), reader);
  const int rank = world().rank();
  const BlockPartition& original = map.original_partition();
  ASSERT_EQ(map.original_dim(), kDim);
  ASSERT_EQ(map.partition().dim(), static_cast<index_t>(written_.size()));
  // This rank's kept features are exactly the written ones of its block, and compact index
  // partition().begin(rank) + c is the rank of the feature among all written ones.
  const std::vector<index_t> all(written_.begin(), written_.end());
  std::vector<index_t> mine;
  for (const index_t j : all)
    if (j >= original.begin(rank) && j < original.end(rank)) mine.push_back(j - original.begin(rank));
  const std::span<const index_t> kept = map.local_features();
  ASSERT_EQ(std::vector<index_t>(kept.begin(), kept.end()), mine);
  for (std::size_t c = 0; c < kept.size(); ++c) {
    const index_t global = original.begin(rank) + kept[c];
    const auto position = std::lower_bound(all.begin(), all.end(), global) - all.begin();
    EXPECT_EQ(map.partition().begin(rank) + static_cast<index_t>(c), position);
    EXPECT_EQ(map.find(kept[c]), static_cast<index_t>(c));
  }
  // A feature that is not written is not found.
  for (index_t j = 0; j < original.size(rank); j += 97)
    if (!written_.contains(original.begin(rank) + j)) {
      EXPECT_EQ(map.find(j), -1);
    }
}

TEST_F(CompactFeatures, EveryLearnerTrainsAsOnAllFeatures) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {"ada-diag", false},    {"ada-fd", false},     {"fast-ada-fd", false}, {"ada-gp", false},
      {"ada-dp", false},      {"fd-son", false},     {"fast-fd-son", false}, {"rfd-son", false},
      {"fast-rfd-son", false}, {"rp-son", false},    {"oja-son", false},     {"fast-rfd-son", true},
      {"ada-fd", true},       {"oja-son", true}};
  for (const auto& [algorithm, softmax] : cases) {
    SCOPED_TRACE(algorithm + (softmax ? " softmax" : " binary"));
    const LearnerSpec spec = spec_for(algorithm, softmax);
    LibsvmReader all_reader(world(), path(spec), LibsvmOptions{.dim = kDim});
    const std::vector<Example> rows = read_all(all_reader);
    LibsvmReader reader(world(), path(spec), LibsvmOptions{.dim = kDim});
    auto map = std::make_shared<const FeatureMap>(FeatureMap::scan(world(), reader));
    CompactSource compact(reader, map);
    const std::vector<Example> compact_rows = read_all(compact);
    EXPECT_EQ(compact.dropped(), 0);
    ASSERT_EQ(compact_rows.size(), rows.size());
    // The one-ulp move of every entry (x·(1 ± 2u), signs a function of the example and the global
    // feature, so the same at every rank count) that measures the trajectory's κ_T(t).
    std::vector<Example> moved = rows;
    const index_t begin = all_reader.partition().begin(world().rank());
    for (std::size_t i = 0; i < moved.size(); ++i)
      for (std::size_t k = 0; k < moved[i].values.size(); ++k) {
        std::mt19937_64 sign(static_cast<std::uint64_t>(i) * 1000003u + static_cast<std::uint64_t>(begin + moved[i].indices[k]));
        moved[i].values[k] *= (sign() & 1) ? 1.0 + 2.0 * kU : 1.0 - 2.0 * kU;
      }
    auto all = make_learner(world(), all_reader.partition(), spec);
    auto perturbed = make_learner(world(), all_reader.partition(), spec);
    auto seen = make_learner(world(), map->partition(), spec);
    const auto K = static_cast<std::size_t>(all->outputs());
    const auto terms = static_cast<double>(map->partition().dim()) * static_cast<double>(K);
    const std::span<const index_t> kept = map->local_features();
    constexpr std::size_t kBlock = 60;
    for (std::size_t at = 0; at < 2 * rows.size(); at += kBlock) {  // two passes
      for (std::size_t t = at; t < at + kBlock; ++t) {
        const std::size_t i = t % rows.size();
        all->step(rows[i].row(), rows[i].label);
        perturbed->step(moved[i].row(), moved[i].label);
        seen->step(compact_rows[i].row(), compact_rows[i].label);
      }
      const std::vector<double> w = weights_of(*all), v = weights_of(*perturbed), x = weights_of(*seen);
      // Relative differences against the all-features run (max |Δ| / max(1, max |w|)), over ranks.
      double scale = 1.0, moved_by = 0.0, seen_by = 0.0;
      for (std::size_t j = 0; j < w.size(); ++j) {
        scale = std::max(scale, std::abs(w[j]));
        moved_by = std::max(moved_by, std::abs(v[j] - w[j]));
      }
      std::vector<char> listed(w.size() / K, 0);
      for (std::size_t c = 0; c < kept.size(); ++c) {
        listed[sz(kept[c])] = 1;
        for (std::size_t k = 0; k < K; ++k) seen_by = std::max(seen_by, std::abs(x[c * K + k] - w[sz(kept[c]) * K + k]));
      }
      index_t stray = 0;  // weights of the features the data never had: zero in the all-features run
      for (std::size_t j = 0; j < listed.size(); ++j)
        for (std::size_t k = 0; k < K; ++k) stray += !listed[j] && w[j * K + k] != 0.0 ? 1 : 0;
      scale = world().allreduce_max(scale);
      const double delta = world().allreduce_max(moved_by) / scale, diff = world().allreduce_max(seen_by) / scale;
      ASSERT_EQ(world().allreduce_sum(stray), 0) << "t=" << at + kBlock;
      // The bound. Both runs do the same operations on the same operands; only the grouping of a sum
      // may differ (a kernel's blocking follows the address of its operands, which the numbering
      // moves), so a step's products differ by at most γ = n·u relative, n ≤ d_c·K terms (Higham,
      // Lemma 3.1). The trajectory amplifies that by κ_T(t), measured by the moved run,
      // Δ(t) = κ_T(t)·2u: the runs agree to d_c·K·u·κ_T(t)·4 = 2·d_c·K·Δ(t) (factor 4: two sign
      // patterns). Before the first rounding difference both are exactly equal (Δ may then be 0).
      ASSERT_LE(diff, 2.0 * terms * delta) << "t=" << at + kBlock << ", κ_T·u=" << delta / 2;
    }
  }
}

TEST_F(CompactFeatures, ModelFileListsTheFeaturesAndScoresTheOriginalRows) {
  const LearnerSpec spec = spec_for("fast-rfd-son", true);
  const LabelMap labels = labels_for(spec);
  std::shared_ptr<const FeatureMap> map;
  const TrainedRun seen = train_on_seen(path(spec), spec, map);
  const std::string model_path = dir_ + "/seen.model";
  save_model(*seen.learner, labels, model_path, 0.0, map);
  // 128 header bytes, d_c × K weights, no label values, the 16-byte trailer, d_c indices.
  const auto d_c = static_cast<std::uintmax_t>(map->partition().dim());
  if (world().rank() == 0) {
    EXPECT_EQ(std::filesystem::file_size(model_path), 128 + 8 * d_c * 3 + 16 + 8 * d_c);
  }

  // Loaded at this rank count and on each rank alone: the same map, and the same scores of every row
  // read on all d features (CompactSource drops nothing: the weights of unlisted features are zero).
  const LinearModel model = LinearModel::load(world(), model_path);
  ASSERT_TRUE(model.features());
  EXPECT_EQ(model.original_dim(), kDim);
  const std::span<const index_t> a = model.features()->local_features(), b = map->local_features();
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  EXPECT_EQ(std::vector<double>(model.weights().begin(), model.weights().end()), seen.weights);
  const Communicator self(MPI_COMM_SELF);
  const LinearModel alone = LinearModel::load(self, model_path);
  EXPECT_EQ(alone.features()->partition().dim(), map->partition().dim());
  LibsvmReader rows(world(), path(), LibsvmOptions{.dim = kDim});
  CompactSource on_model(rows, model.features());
  LibsvmReader rows_alone(self, path(), LibsvmOptions{.dim = kDim});
  CompactSource on_alone(rows_alone, alone.features());
  Example e, f;
  std::vector<double> p(3), q(3);
  index_t compared = 0;
  while (on_model.next(e)) {
    ASSERT_TRUE(on_alone.next(f));
    model.predict(e.row(), p);
    alone.predict(f.row(), q);
    // One rank sums the same terms as the P ranks' partial sums added in rank order: equal to
    // u·Σ|x_j w_jk| per score (the reduction's rounding), stated as 4u times that sum.
    std::vector<double> magnitude(3, 0.0);
    for (std::size_t i = 0; i < f.indices.size(); ++i)
      for (std::size_t k = 0; k < 3; ++k) magnitude[k] += std::abs(f.values[i] * alone.weights()[sz(f.indices[i]) * 3 + k]);
    for (std::size_t k = 0; k < 3; ++k) EXPECT_LE(std::abs(p[k] - q[k]), 4 * 0x1p-53 * magnitude[k]) << "row " << compared;
    ++compared;
  }
  EXPECT_EQ(compared, 240);

  // A changed index of the list, and a list cut short, are refused on every rank, naming the file.
  const std::string flipped = dir_ + "/flipped.model", cut = dir_ + "/cut.model";
  if (world().rank() == 0) {
    std::filesystem::copy_file(model_path, flipped, std::filesystem::copy_options::overwrite_existing);
    std::fstream bytes(flipped, std::ios::in | std::ios::out | std::ios::binary);
    bytes.seekp(static_cast<std::streamoff>(128 + 8 * d_c * 3 + 16 + 8 * (d_c / 2)));
    bytes.put(0x7f);
    bytes.close();
    std::filesystem::copy_file(model_path, cut, std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(cut, 128 + 8 * d_c * 3 + 16 + 8 * (d_c - 1));
  }
  world().barrier();
  for (const auto& [file, needle] : {std::pair{flipped, "the feature list is not"}, std::pair{cut, "truncated model file"}}) {
    try {
      (void)LinearModel::load(world(), file);
      ADD_FAILURE() << file << " loaded";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(file), std::string::npos) << error.what();
    }
  }
}

TEST_F(CompactFeatures, CheckpointRecordsTheOriginalDimension) {
  const LearnerSpec spec = spec_for("fast-fd-son", false);
  const LabelMap labels = labels_for(spec);
  std::shared_ptr<const FeatureMap> map;
  TrainedRun seen = train_on_seen(path(spec), spec, map);
  const std::string ckpt = dir_ + "/seen.ckpt";
  CheckpointRun run{labels, {}, 2, path(spec), 240, 0.0, kDim};
  run.state.pass = 3;
  run.state.examples = seen.learner->steps();
  save_checkpoint(ckpt, *seen.learner, run);
  const CheckpointHeader h = read_checkpoint_header(world(), ckpt);
  EXPECT_EQ(h.dim, kDim);
  EXPECT_EQ(h.run.original_dim, kDim);
  // A learner on the same compact features restores it and continues exactly as the saved one.
  auto again = make_learner(world(), map->partition(), spec);
  load_checkpoint(ckpt, *again);
  std::vector<double> w(seen.weights.size());
  again->weights(w);
  EXPECT_EQ(w, seen.weights);
  // A learner on all d features does not fit the compact state.
  auto wide = make_learner(world(), BlockPartition(kDim, world().size()), spec);
  EXPECT_THROW(load_checkpoint(ckpt, *wide), InputError);
}

}  // namespace
