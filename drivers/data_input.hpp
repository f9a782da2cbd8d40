#pragma once
// Opening the data of the subcommands: a synthetic spec (adasketch/data/synthetic_spec.hpp, text
// starting with "synthetic:"), or a file: LIBSVM text (plain or gzip; "-" is standard input), the
// dense binary format or HDF5, told apart by the dense format's magic "ADSKDNS1" and HDF5's
// extension (.h5, .hdf5) or signature; with the label range for label maps.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"
#include "adasketch/data/hdf5_names.hpp"
#include "adasketch/data/synthetic_spec.hpp"
#include "cli_options.hpp"

namespace adasketch::driver {

/// The smallest and largest label, whether all are integers, and the distinct labels (ascending, the
/// same on every rank, at most LabelMap::kMaxValues + 1 of them).
struct LabelRange {
  double min = 0.0, max = 0.0;
  bool integral = true;
  std::vector<double> values;
};

struct DataInput {
  std::string format;  ///< "libsvm", "dense-binary", "hdf5" or "synthetic"
  index_t rows = 0;    ///< examples in the file
  std::unique_ptr<ExampleSource> source;
  /// The label range when it is known without reading the data: ±1 for the ill-conditioned
  /// generator (so no generating pass is needed); empty otherwise.
  std::optional<LabelRange> known_labels;
};

/// Not collective, no work. For a synthetic spec `path`, the parsed spec checked against `dim` as
/// open_data does (errors as there); empty for a file. Lets a command reject a bad spec (e.g. of
/// --test) before the work.
std::optional<SyntheticSpec> synthetic_spec(const std::string& path, index_t dim, const std::string& data_option,
                                            const std::string& dim_option);

/// Declares --h5-x NAME and --h5-y NAME (the datasets of HDF5 data files), and reads them.
void add_hdf5_options(OptionParser& parser);
Hdf5Names hdf5_names(const OptionParser& opts);

/// The paragraph of --help that describes DATA: the file formats and the synthetic specs with their
/// defaults.
std::string data_help();

/// Collective. `path` is a file or a synthetic spec. `dim` is d (0: from the data: the largest
/// LIBSVM index, the dense header's d, the spec's d). A dense header or a spec's d= that says
/// otherwise is an InvalidArgument naming `dim_option` (e.g. "option --dim"); a spec without d= takes
/// d = `dim` when it is positive. A bad spec is an InvalidArgument naming `data_option` (e.g.
/// "option --data") and the key. Reader errors are InputErrors naming the file, on every rank. The
/// source's destructor may be collective (MPI-IO): hold it in a CollectiveOwner. `passes`: how many
/// times the caller reads the data; a LIBSVM file keeps the examples of its validating pass (within
/// the reader's default cache budget) only when it is read more than once, since building the cache
/// costs about as much as one more parse (docs/formats.md, Data); standard input ("-") always keeps them, as it
/// cannot be read twice. `h5_names`: the datasets of an HDF5 file (an HDF5 file in a build without
/// HDF5 is an InvalidArgument naming `data_option`).
DataInput open_data(const Communicator& comm, const std::string& path, index_t dim, const std::string& data_option,
                    const std::string& dim_option, int passes = 1, const Hdf5Names& h5_names = {});

/// What the LIBSVM reader did over a run (its validating pass included), summed over the ranks: the
/// text parsed (or replayed from its cache) and the examples, in the slowest rank's seconds in it.
struct ParseThroughput {
  double megabytes = 0.0, examples = 0.0, seconds = 0.0;
  double megabytes_per_second() const noexcept { return seconds > 0.0 ? megabytes / seconds : 0.0; }
  double examples_per_second() const noexcept { return seconds > 0.0 ? examples / seconds : 0.0; }
};

/// Collective. The throughput of a LibsvmReader `source` so far; empty for other sources.
std::optional<ParseThroughput> parse_throughput(const Communicator& comm, const ExampleSource& source);

/// Collective. From the LIBSVM reader's validating scan, or (other sources: dense binary, synthetic)
/// from one pass over the data, which reads (or generates) it all once; the source is rewound
/// afterwards. `path` names the data in errors. `comm` agrees on the distinct labels.
LabelRange label_range(const Communicator& comm, ExampleSource& source, const std::string& path);

}  // namespace adasketch::driver
