#pragma once
// The serial LIBSVM reader that the parallel one replaced, kept as the tests' reference: one process
// reads the file line by line with zlib's gzgets (plain or gzip), as the library did before, and
// parses each line with the library's line parser. Its results are what the parallel reader must
// give at every rank count and chunk size: the same examples, or the same error at the same line.
#include <string>
#include <vector>

#include "adasketch/data/libsvm_reader.hpp"

namespace adasketch::test {

struct SerialExample {
  double label = 0.0;
  index_t position = 0;          ///< 1-based line
  std::vector<index_t> indices;  ///< 0-based global, ascending
  std::vector<double> values;
};

struct SerialResult {
  bool failed = false;  ///< the reader threw InputError(path, line, reason)
  index_t line = 0;
  std::string reason;
  DatasetInfo info;
  std::vector<SerialExample> examples;
};

/// Reads the whole file at `path` as the serial reader did, with d = `dim` (0: from the file).
SerialResult serial_libsvm(const std::string& path, index_t dim);

}  // namespace adasketch::test
