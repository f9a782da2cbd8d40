#pragma once
// gzip-compressed LIBSVM text (libsvm_text.hpp): rank 0 decompresses the stream and cuts each round
// into blocks of whole lines, which it scatters; every other rank parses its block, while rank 0
// decompresses the next round (alone, it parses too).
//
// Decompressing on one rank is forced (a deflate stream has no points to start from), but parsing
// stays parallel: shipping the decompressed text costs one Scatterv of the round's bytes, while
// parsing on rank 0 and scattering the entries would send more bytes (16 a nonzero against about 10
// of text) and serialize both costs on rank 0. Measured (docs/formats.md, Data), rank 0 decompresses at
// about the speed one rank parses, so it keeps no block of its own and reads ahead instead.
#include <zlib.h>

#include <memory>
#include <string>

#include "libsvm_text.hpp"

namespace adasketch::detail {

/// `file`: the open stream on rank 0 (taken over), null elsewhere. `path` names it in zlib's messages.
std::unique_ptr<TextSource> gzip_text(const Communicator& comm, gzFile file, const std::string& path, index_t chunk);

}  // namespace adasketch::detail
