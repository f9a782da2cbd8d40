#include "libsvm_rounds.hpp"

#include <array>

#include "adasketch/error.hpp"

namespace adasketch::detail {

void RoundStatus::fail(const TextFailure& text) {
  switch (text.where) {
    case TextFailure::Where::none: return;
    case TextFailure::Where::no_line:
      failure = at_line;
      line = 0;
      return;
    case TextFailure::Where::after_block:
      failure = at_line;
      line = lines + 1;
      return;
    case TextFailure::Where::after_round: failure = after_round; return;
  }
}

void RoundStatus::write(index_t* words) const {
  words[0] = lines;
  words[1] = examples;
  words[2] = failure;
  words[3] = line;
}

RoundStatus RoundStatus::read(const index_t* words) { return {words[0], words[1], words[2], words[3]}; }

std::optional<AgreedFailure> first_failure(std::span<const RoundStatus> ranks, index_t first_line) {
  index_t before = first_line - 1;  // lines before the block of the rank looked at
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].failure == RoundStatus::at_line)
      return AgreedFailure{static_cast<int>(r), ranks[r].line == 0 ? 0 : before + ranks[r].line};
    before += ranks[r].lines;
  }
  for (std::size_t r = 0; r < ranks.size(); ++r)
    if (ranks[r].failure == RoundStatus::after_round) return AgreedFailure{static_cast<int>(r), before + 1};
  return std::nullopt;
}

std::string broadcast_text(const Communicator& comm, const std::string& text, int root) {
  std::array<index_t, 1> size{static_cast<index_t>(text.size())};
  comm.broadcast(size, root);
  std::string out = comm.rank() == root ? text : std::string(static_cast<std::size_t>(size[0]), '\0');
  comm.broadcast(std::span<char>(out.data(), out.size()), root);
  return out;
}

void throw_agreed(const Communicator& comm, const std::string& path, const AgreedFailure& failure,
                  const std::string& mine) {
  throw InputError(path, failure.line, broadcast_text(comm, mine, failure.rank));
}

}  // namespace adasketch::detail
