#pragma once
/// @file
/// Checkpoint files: the complete state of a learner (Learner::state_fields) and of its training run
/// (TrainingState), written atomically with MPI-IO and readable at any rank count.
///
/// The file format: docs/formats.md, "Checkpoint files" (one version; files of another are refused).
///
/// Writing: the learner's checkpoint hook first copies state it keeps in another layout into its
/// staged fields (an exact learner's d×d matrix, by feature rows); every rank writes its blocks
/// (MPI_File_write_at_all), rank 0 the header, table and the replicated fields, into FILE.tmp; MPI_File_sync; every rank closes it; rank 0 renames it to FILE
/// and syncs the directory. A crash at any moment leaves FILE as it was (the previous checkpoint) or
/// complete. Replicated fields are rank 0's copy (they are identical on every rank).
///
/// Reading at P' ranks: each rank reads its own items of every block, whatever the writer's P (then the
/// learner's hook installs its staged fields), so a run resumes at any rank count; it then equals an uninterrupted run at P' to round-off (bitwise at
/// the writer's rank count).
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/training/training_state.hpp"

namespace adasketch {

/// What a checkpoint records besides the learner's state.
struct CheckpointRun {
  LabelMap labels{LabelMap::Kind::real};  ///< the training data's label map
  TrainingState state;        ///< where the run stands (train() continues from it)
  int passes = 1;             ///< passes the run was asked for
  std::string data_name;      ///< the training data (for messages)
  index_t data_examples = 0;  ///< its examples per pass (a sanity check on resume); 0: unknown
  double bias = 0.0;          ///< the bias B (> 0: the learner's last feature is B in every example)
  /// > 0: the learner's features are the compact features of the training data (FeatureMap, which a
  /// resumed run rebuilds from the same data), and this is the data's original d; 0: they are the
  /// original features.
  index_t original_dim = 0;
};

/// A checkpoint's header.
struct CheckpointHeader {
  LearnerSpec spec;  ///< as Learner::spec() of the saved learner
  index_t dim = 0;   ///< the learner's d; with compact features (run.original_dim > 0), the original d (+ 1 with a bias)
  int classes = 1;   ///< K
  int ranks = 0;     ///< of the writer
  CheckpointRun run;  ///< the training run's record
};

/// Collective. Writes the learner's state and `run` to `path` (docs/formats.md, "Checkpoint files").
/// Throws Error naming the file, on every rank, when it cannot be written.
void save_checkpoint(const std::string& path, Learner& learner, const CheckpointRun& run);
/// Collective. The same for a learner its caller steps itself (no train() run): the run is its
/// steps so far, one pass, labels as its loss takes them (LabelMap::of_loss).
void save_checkpoint(const std::string& path, Learner& learner);

/// Collective. Reads and validates the header (magic, version, names, sizes, checksum, file size).
/// Throws InputError(path, 0, what), identically on every rank, for a missing, foreign, truncated or
/// corrupt file.
CheckpointHeader read_checkpoint_header(const Communicator& comm, const std::string& path);

/// Collective. Restores the learner from the checkpoint and returns its header. The learner must be
/// one make_learner builds from the header's spec and d (its spec(), d and K must equal the file's, at
/// any rank count); otherwise, or when a field or checksum does not match, throws InputError(path, 0,
/// what) on every rank. A mismatch is found before the learner is touched; after a checksum failure
/// its state is undefined (discard it).
CheckpointHeader load_checkpoint(const std::string& path, Learner& learner);

/// A LearnerSpec field on which two specs differ (algorithm, loss, classes, or a hyperparameter of
/// the learner role), with both values as text. The layout role (grid_rows) is not compared: it lays
/// out the run, not the learner, so a checkpoint resumes on another process grid (to round-off).
struct SpecDifference {
  ///@{
  /// The field's name, and its value in the saved and in the given spec, as text.
  std::string field, saved, given;
  ///@}
};
/// Local. Every field on which `saved` and `given` differ, in LearnerSpec's order (empty when they
/// agree): what a resumed run reports when its options are not the checkpoint's.
std::vector<SpecDifference> spec_differences(const LearnerSpec& saved, const LearnerSpec& given);

}  // namespace adasketch
