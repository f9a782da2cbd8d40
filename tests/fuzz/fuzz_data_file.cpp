// libFuzzer target: a whole data file through the readers `adasketch` uses (LibsvmReader, plain or
// gzip; DenseBinaryReader for the ADSKDNS1 magic), on MPI_COMM_SELF. Byte 0 picks how the rest
// becomes the file (as is, or gzip-compressed so that the parser sees the text) and the dimension
// option (from the file, or a small d). Errors must be InputErrors; an accepted file must stream
// exactly the rows and nonzeros its validating scan counted, indices inside d, finite LIBSVM values,
// and the same stream again after a rewind.
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "adasketch/data/dense_binary.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/error.hpp"
#include "fuzz_support.hpp"

using namespace adasketch;
using fuzz::require;

namespace {

struct Pass {
  index_t rows = 0, nnz = 0;
  double label_sum = 0.0;
};

// One pass over the source, checking each example against d.
Pass stream(ExampleSource& source, bool dense) {
  Pass p;
  Example e;
  while (source.next(e)) {
    ++p.rows;
    require(e.dense == dense, "dense flag");
    if (dense) {
      require(static_cast<index_t>(e.values.size()) == source.dim(), "dense row length");
    } else {
      require(std::isfinite(e.label), "LIBSVM label not finite");
      require(e.indices.size() == e.values.size(), "index and value counts");
      for (std::size_t k = 0; k < e.indices.size(); ++k) {
        require(e.indices[k] >= 0 && e.indices[k] < source.dim(), "index outside d");
        require(k == 0 || e.indices[k] > e.indices[k - 1], "indices not ascending");
        require(std::isfinite(e.values[k]), "LIBSVM value not finite");
      }
      p.label_sum += e.label;
    }
    p.nnz += static_cast<index_t>(e.indices.size());
  }
  return p;
}

void write_gzip(const std::string& path, const std::uint8_t* data, std::size_t size) {
  gzFile f = gzopen(path.c_str(), "wb");
  require(f != nullptr, "gzopen for writing");
  require(size == 0 || gzwrite(f, data, static_cast<unsigned>(size)) == static_cast<int>(size), "gzwrite");
  require(gzclose(f) == Z_OK, "gzclose");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (!fuzz::start_input(size)) return 0;
  const unsigned mode = data[0];
  const std::string path = fuzz::scratch_path("data");
  if ((mode & 1) != 0)
    write_gzip(path, data + 1, size - 1);
  else
    fuzz::write_file(path, data + 1, size - 1);
  const index_t dim = (mode & 2) != 0 ? 1 + ((mode >> 2) & 15) : 0;
  const bool dense = size - 1 >= 8 && (mode & 1) == 0 && std::memcmp(data + 1, "ADSKDNS1", 8) == 0;
  const Communicator self(MPI_COMM_SELF);
  try {
    if (dense) {
      DenseBinaryReader reader(self, path, 1 + (mode >> 2));
      const Pass first = stream(reader, true);
      require(first.rows == reader.rows(), "dense rows differ from the header");
      reader.rewind();
      require(stream(reader, true).rows == first.rows, "dense rows differ after a rewind");
    } else {
      LibsvmReader reader(self, path, LibsvmOptions{dim});
      const DatasetInfo& info = reader.info();
      require(info.rows >= 1 && reader.dim() >= info.max_index && (dim == 0 || reader.dim() == dim), "scan summary");
      const Pass first = stream(reader, false);
      require(first.rows == info.rows && first.nnz == info.nnz, "the stream differs from the scan");
      reader.rewind();
      const Pass again = stream(reader, false);
      require(again.rows == first.rows && again.nnz == first.nnz && again.label_sum == first.label_sum,
              "the stream differs after a rewind");
    }
  } catch (const InputError& e) {
    require(std::strchr(e.what(), '\n') == nullptr, "multi-line error message");
  }
  std::remove(path.c_str());
  return 0;
}
