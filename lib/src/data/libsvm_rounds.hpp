#pragma once
// What the ranks agree on after each round of the parallel LIBSVM reader (internal to LibsvmReader):
// each rank's lines, examples and failure, and from them the first failure in file order, which every
// rank then throws with the same message.
#include <optional>
#include <span>
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "libsvm_text.hpp"

namespace adasketch::detail {

/// A rank's account of its block of one round; sent as kWords int64 values.
struct RoundStatus {
  enum Failure : index_t {
    none = 0,
    at_line = 1,      ///< at the block's line `line` (1-based; 0: at no line)
    after_round = 2,  ///< at the line after every rank's lines of the round
  };
  index_t lines = 0;     ///< lines of the block (up to a failure)
  index_t examples = 0;  ///< example lines among them
  index_t failure = none;
  index_t line = 0;
  static constexpr std::size_t kWords = 4;

  /// Records a failure of the block's text (after its `lines` lines were parsed).
  void fail(const TextFailure& text);
  void write(index_t* words) const;
  static RoundStatus read(const index_t* words);
};

/// The first failure in file order: the rank whose message counts, and the file's 1-based line (0: none).
struct AgreedFailure {
  int rank = 0;
  index_t line = 0;
};

/// The first failure among every rank's status of a round (rank order) whose first line has number
/// `first_line`; none if no rank failed.
std::optional<AgreedFailure> first_failure(std::span<const RoundStatus> ranks, index_t first_line);

/// Collective. Rank `root`'s `text` on every rank.
std::string broadcast_text(const Communicator& comm, const std::string& text, int root);

/// Collective. Throws on every rank the InputError of `failure`, with the reason `mine` of its rank.
[[noreturn]] void throw_agreed(const Communicator& comm, const std::string& path, const AgreedFailure& failure,
                               const std::string& mine);

}  // namespace adasketch::detail
