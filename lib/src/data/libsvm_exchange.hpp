#pragma once
// One round's exchange of the parallel LIBSVM reader (internal to LibsvmReader): every rank sends each
// example of its block to every other rank, each with the features that rank owns, in one Alltoallv
// (after an Alltoall of the sizes and of the ranks' round statuses, which also agrees on a failure);
// a rank takes its own block's examples from its parsed block directly.
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/comm/partition.hpp"
#include "adasketch/data/example.hpp"
#include "libsvm_block.hpp"
#include "libsvm_rounds.hpp"

namespace adasketch::detail {

class EntryExchange {
 public:
  EntryExchange(const Communicator& comm, const BlockPartition& partition);

  /// Collective. Sends the examples of `mine` (this rank's block, global line numbers) and this rank's
  /// `status` for the round (with its `reason`); then every rank holds the examples of the round,
  /// from every rank's block, in file order. If any rank failed, every rank throws the first failure
  /// in file order (the round's lines numbered from `first_line`) as an InputError naming `path`.
  /// `mine` must stay unchanged until the round's examples are delivered.
  void exchange(const ParsedExamples& mine, const RoundStatus& status, const std::string& reason, index_t first_line,
                const std::string& path);
  /// The round's next example with this rank's features (local indices); false after its last.
  bool next(Example& out);
  /// Moves past up to n of the round's examples; returns how many there were.
  index_t skip(index_t n);
  /// Drops the round's examples not yet delivered.
  void clear() noexcept {
    source_ = comm_.size();
    left_ = 0;
  }

 private:
  // The words of `mine`'s examples for every other rank, in send_ (sizes in send_counts_).
  void pack(const ParsedExamples& mine);
  // Moves to the next rank's examples if the current one's are all delivered; false at the round's end.
  bool next_source();

  Communicator comm_;
  BlockPartition partition_;
  // Per example and rank: label (bits), line, feature count, then (local index, value bits) pairs.
  std::vector<index_t> send_, send_counts_, receive_, receive_counts_;
  std::vector<index_t> next_word_;  // while packing: where each rank's next words go in send_
  std::vector<index_t> headers_out_, headers_in_;  // per rank: words, then a RoundStatus
  std::vector<RoundStatus> statuses_;
  const ParsedExamples* mine_ = nullptr;  // this rank's block of the round
  int source_ = 0;          // the rank whose examples are being delivered (P: none left)
  index_t left_ = 0;        // its examples not yet delivered
  index_t example_ = 0;     // next example of mine_, while source_ is this rank
  std::size_t cursor_ = 0;  // next example's first word in receive_, for other sources
};

}  // namespace adasketch::detail
