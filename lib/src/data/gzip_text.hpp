#pragma once
// gzip-compressed LIBSVM text (libsvm_text.hpp): rank 0 decompresses the stream and cuts each round
// into the ranks' blocks, which it scatters; every rank parses its own block.
//
// Decompressing on one rank is forced (a deflate stream has no points to start from), but parsing,
// the larger cost, stays parallel: shipping the decompressed text costs one Scatterv of the round's
// bytes, while parsing on rank 0 and scattering the entries would send more bytes (16 a nonzero
// against about 10 of text) and leave the other ranks idle.
#include <zlib.h>

#include <memory>
#include <string>

#include "libsvm_text.hpp"

namespace adasketch::detail {

/// `file`: the open stream on rank 0 (taken over), null elsewhere. `path` names it in zlib's messages.
std::unique_ptr<TextSource> gzip_text(const Communicator& comm, gzFile file, const std::string& path, index_t chunk);

}  // namespace adasketch::detail
