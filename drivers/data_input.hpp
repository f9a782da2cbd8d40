#pragma once
// Opening a data file for the subcommands: LIBSVM text (plain or gzip) or the dense binary format,
// told apart by the dense format's magic "ADSKDNS1", with the file's label range for label maps.
#include <memory>
#include <string>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch::driver {

struct DataInput {
  std::string format;  ///< "libsvm" or "dense-binary"
  index_t rows = 0;    ///< examples in the file
  std::unique_ptr<ExampleSource> source;
};

/// Collective. `dim` is d (0: from the file: the largest LIBSVM index or the dense header's d); a
/// dense file whose header says otherwise is an InvalidArgument naming `dim_option` (e.g.
/// "option --dim"). Reader errors are InputErrors naming the file, on every rank. The source's
/// destructor may be collective (MPI-IO): hold it in a CollectiveOwner.
DataInput open_data(const Communicator& comm, const std::string& path, index_t dim, const std::string& dim_option);

/// The smallest and largest label and whether all are integers.
struct LabelRange {
  double min = 0.0, max = 0.0;
  bool integral = true;
};

/// Collective. From the LIBSVM reader's validating scan, or (other sources: dense binary) from one
/// pass over the data, which reads the whole file once; the source is rewound afterwards. `path`
/// names the file in errors.
LabelRange label_range(ExampleSource& source, const std::string& path);

}  // namespace adasketch::driver
