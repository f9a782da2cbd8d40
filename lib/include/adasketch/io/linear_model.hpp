#pragma once
/// @file
/// A trained linear model W (d × K) held as weight slices, block-partitioned by features like a
/// learner's, and its file format. A model saved at one rank count loads at any other: each rank
/// reads the rows of W its own block needs.
/// The file format: docs/formats.md, "Model files". save() writes FILE.tmp with MPI-IO (each rank
/// its rows), syncs it and renames it to FILE on rank 0 after every rank has closed it, so FILE is
/// never half-written; a failed save removes FILE.tmp.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/compact_features.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/learners/loss.hpp"
#include "adasketch/sketch/local_row.hpp"
#include "adasketch/training/label_map.hpp"

namespace adasketch {

/// A trained linear model W (d × K): a learner's weights with its algorithm, loss, label map, bias
/// and compact features, saved to and loaded from a model file at any rank count.
class LinearModel {
 public:
  /// A copy of the learner's current weight slice, with the label map its training data used and
  /// its bias B (> 0: the learner's last feature is the constant B; 0: none). `features`: the learner
  /// was trained on compact features (its data features are features->partition()'s), and the
  /// model keeps their original indices; null: on the original ones. Local (no communication).
  LinearModel(const Learner& learner, const LabelMap& labels, double bias = 0.0,
              std::shared_ptr<const FeatureMap> features = nullptr);

  /// Collective. Reads a model file written at any rank count, partitioned for comm. Throws
  /// InputError naming the file, identically on every rank, for a missing, truncated or corrupt
  /// file (bad magic, format version, names, sizes, trailer or checksums).
  static LinearModel load(const Communicator& comm, const std::string& path);
  /// The same, split as the caller's `partition` (its d must be the file's).
  static LinearModel load(const Communicator& comm, const std::string& path, const BlockPartition& partition);
  /// Collective. Writes the model file (docs/formats.md, "Model files"). Throws Error naming the file
  /// when it cannot be written, NumericError when a weight is not finite (nothing is written), on
  /// every rank.
  void save(const std::string& path) const;

  /// The communicator the model lives on.
  const Communicator& comm() const noexcept { return comm_; }
  /// The split of W's rows over the ranks.
  const BlockPartition& partition() const noexcept { return partition_; }
  /// The rows of W: the data's features, and the bias feature if any.
  index_t dim() const noexcept { return partition_.dim(); }
  /// The bias B (0: none).
  double bias() const noexcept { return bias_; }
  /// The features of the data: dim() without the bias feature.
  index_t data_dim() const noexcept { return dim() - (bias_ > 0.0 ? 1 : 0); }
  /// For a model of compact features, their original indices (rows of W are these features, in
  /// order, then the bias feature); null when the rows are the original features 0..d−1.
  const std::shared_ptr<const FeatureMap>& features() const noexcept { return features_; }
  /// The d of the data the model scores: the original d for compact features, else data_dim().
  index_t original_dim() const noexcept { return features_ ? features_->original_dim() : data_dim(); }
  /// K, the scores per example.
  int outputs() const noexcept { return loss_.outputs(); }
  /// The learner's name (Learner::name()) that trained the model.
  const std::string& algorithm() const noexcept { return algorithm_; }
  /// The loss (with K for softmax).
  const Loss& loss() const noexcept { return loss_; }
  /// How the training data's labels were mapped (LabelMap::original turns a prediction back).
  const LabelMap& labels() const noexcept { return labels_; }
  /// This rank's rows of W, feature-major: weights()[j*K + k] = W[begin + j, k].
  std::span<const double> weights() const noexcept { return weights_; }

  /// Collective (one Allreduce of K numbers). scores[0..K) = Wᵀx.
  void predict(const LocalRow& x, std::span<double> scores) const;

 private:
  LinearModel(const Communicator& comm, const BlockPartition& partition, std::string algorithm, const Loss& loss,
              const LabelMap& labels, double bias);
  static LinearModel load(const Communicator& comm, const std::string& path, const BlockPartition* partition);

  Communicator comm_;
  BlockPartition partition_;
  std::string algorithm_;
  Loss loss_;
  LabelMap labels_;
  double bias_ = 0.0;
  std::shared_ptr<const FeatureMap> features_;
  std::vector<double> weights_;
};

/// Collective: LinearModel(learner, labels, bias, features).save(path).
void save_model(const Learner& learner, const LabelMap& labels, const std::string& path, double bias = 0.0,
                std::shared_ptr<const FeatureMap> features = nullptr);

}  // namespace adasketch
