#pragma once
// The text of a LIBSVM file, handed to the ranks in rounds (internal to LibsvmReader).
//
// The text is cut into chunks of `chunk` bytes dealt round-robin: in round k, rank r gets the lines
// that START in chunk kP + r (a line belongs to the chunk holding its first byte, so a rank reads on
// past its chunk to the end of its last line, and a chunk inside a long line has no lines). The
// ranks' blocks of one round are consecutive in the file, in rank order, so a round parsed in
// parallel and exchanged in one Alltoallv keeps the file's order, with O(P · chunk) bytes in flight
// per round instead of O(file / P) (what one contiguous byte range per rank would need to keep order).
//   plain files: every rank reads its own chunks with pread (plain_text.cpp);
//   gzip files: a gzip stream cannot be split, so rank 0 decompresses and cuts each round into the
//     other ranks' blocks at line starts (rank 0's own is empty unless it is alone), then scatters
//     them (gzip_text.cpp).
#include <memory>
#include <string>
#include <string_view>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/types.hpp"

namespace adasketch::detail {

/// Why a block's text stops short, and where that counts in the file's line order.
struct TextFailure {
  enum class Where {
    none,
    no_line,      ///< not at a line (an I/O failure): line 0
    after_block,  ///< at the line after the block's lines
    after_round,  ///< at the line after every rank's lines of the round (a gzip stream's failure)
  };
  Where where = Where::none;
  std::string reason;
};

/// One rank's text of one round.
struct LineBlock {
  std::string_view text;    ///< whole lines, each ending in '\n' except the file's last line
  bool file_start = false;  ///< the text starts at the file's first byte (a UTF-8 BOM is skipped there)
  TextFailure failure;
};

class TextSource {
 public:
  virtual ~TextSource() = default;
  /// Collective. This rank's block of the next round (valid until the next call); false after the
  /// last round, on every rank alike.
  virtual bool next(LineBlock& block) = 0;
  /// Moves past the next round without handing out its text (plain files: no I/O); every rank calls it.
  virtual void skip() = 0;
  /// Back to the first round; every rank calls it.
  virtual void rewind() = 0;
};

/// The path that names standard input: rank 0 reads it as it reads a gzip stream (plain or gzip).
inline constexpr const char* kStandardInput = "-";

/// Collective. Opens `path` (rank 0 tells plain text from gzip by the magic bytes 1f 8b, as zlib does)
/// with `chunk` bytes per rank and round. Throws InputError, the same on every rank, if a rank cannot
/// open it (rank 0's reason, or the first other rank's, named).
std::unique_ptr<TextSource> open_text(const Communicator& comm, const std::string& path, index_t chunk);

}  // namespace adasketch::detail
