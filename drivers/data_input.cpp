#include "data_input.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "adasketch/version.hpp"  // before ADASKETCH_WITH_HDF5 is tested
#include "adasketch/data/dense_binary.hpp"
#if ADASKETCH_WITH_HDF5
#include "adasketch/data/hdf5_reader.hpp"
#endif
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/data/synthetic_spec.hpp"
#include "adasketch/error.hpp"
#include "adasketch/training/label_map.hpp"

namespace adasketch::driver {

namespace {

constexpr char kDenseMagic[8] = {'A', 'D', 'S', 'K', 'D', 'N', 'S', '1'};

// Rank 0 looks at the first 8 bytes of a regular file; anything else is left to the LIBSVM reader,
// which reports it (on every rank) with the file name.
bool is_dense_binary(const Communicator& comm, const std::string& path) {
  std::array<char, 1> dense{0};
  std::error_code ec;
  if (comm.rank() == 0 && std::filesystem::is_regular_file(path, ec)) {  // a pipe would block the open
    std::ifstream in(path, std::ios::binary);
    std::array<char, 8> magic{};
    if (in && in.read(magic.data(), magic.size()) && std::equal(magic.begin(), magic.end(), kDenseMagic))
      dense[0] = 1;
  }
  comm.broadcast(dense, 0);
  return dense[0] != 0;
}

// HDF5: by the extension .h5 or .hdf5, or by the signature at the start of a regular file (rank 0
// looks; a missing file with the extension is left to the HDF5 reader, which names it).
bool is_hdf5(const Communicator& comm, const std::string& path) {
  static constexpr char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".h5" || extension == ".hdf5") return true;
  std::array<char, 1> found{0};
  std::error_code ec;
  if (comm.rank() == 0 && std::filesystem::is_regular_file(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    std::array<char, 8> magic{};
    if (in && in.read(magic.data(), magic.size()) && std::equal(magic.begin(), magic.end(), kSignature)) found[0] = 1;
  }
  comm.broadcast(found, 0);
  return found[0] != 0;
}

}  // namespace

std::optional<SyntheticSpec> synthetic_spec(const std::string& path, index_t dim, const std::string& data_option,
                                            const std::string& dim_option) {
  if (!is_synthetic_spec(path)) return std::nullopt;
  SyntheticSpec spec = parse_synthetic_spec(path, data_option, dim);
  if (dim != 0 && dim != spec.dim())
    throw InvalidArgument(dim_option + ": " + number_text(dim) + " does not match d = " + number_text(spec.dim()) +
                          " of '" + path + "'");
  return spec;
}

void add_hdf5_options(OptionParser& parser) {
  const Hdf5Names names;
  parser.optional("h5-x", OptionType::String, "NAME", names.x, "HDF5 data files: the dataset of the examples (n × d)");
  parser.optional("h5-y", OptionType::String, "NAME", names.y, "HDF5 data files: the dataset of the labels (n)");
}

Hdf5Names hdf5_names(const OptionParser& opts) { return {opts.text("h5-x"), opts.text("h5-y")}; }

std::string data_help() {
  const LowRankRegressionOptions r;
  const IllConditionedOptions c;
  const SparseClassificationOptions s;
  return "DATA is a file, LIBSVM text (plain or gzip; - reads it from standard input on rank 0), the dense\n"
         "binary format (magic ADSKDNS1) or HDF5 (.h5, .hdf5: datasets X, n × d, and y, n; --h5-x, --h5-y), or a\n"
         "synthetic spec (generated on the fly; the same examples at any rank count, to round-off):\n"
         "  synthetic:low-rank-regression[:d=" + number_text(r.dim) + ",n=" + number_text(r.examples) +
         ",lambda0=" + number_text(r.lambda0) + ",decay=" + number_text(r.decay) + ",mean=" + number_text(r.mean) +
         ",rank=" +
         number_text(r.rank) + ",seed=" + number_text(r.seed) + ",skip=" + number_text(r.skip) + "]\n"
         "      ADA-FD §4.1: x ~ N(mean·1, Σ), λ_j(Σ) = lambda0·j^(−decay) for the leading rank directions\n"
         "      (0: min(d, 500)), real labels y = β*ᵀx, ‖β*‖ = 1\n"
         "  synthetic:ill-conditioned[:d=" + number_text(c.dim) + ",n=" + number_text(c.examples) +
         ",kappa=" + number_text(c.condition) + ",ill=" + number_text(c.ill_directions) + ",seed=" +
         number_text(c.seed) + ",skip=" + number_text(c.skip) + "]\n"
         "      SON §5.1: x ~ N(0, VΛVᵀ), λ = 1 except ill values rising to kappa, labels ±1 = sign(θᵀx)\n"
         "  synthetic:sparse-classification[:d=" + number_text(s.dim) + ",n=" + number_text(s.examples) +
         ",nnz=" + number_text(s.nonzeros) + ",zipf=" + number_text(s.zipf) + ",noise=" + number_text(s.noise) +
         ",seed=" +
         number_text(s.seed) + ",skip=" + number_text(s.skip) + "]\n"
         "      text-like sparse rows: nnz feature draws from P(k) ∝ k^(−zipf) (0: uniform), scattered over\n"
         "      1..d, values term counts/√nnz; labels ±1 = sign(θᵀx + noise·ε)\n"
         "Absent keys take the defaults shown, except d: without d=, d is --dim if given (for --test, the\n"
         "training d; for predict, the model's d). The seed fixes the distribution (Σ's basis, β*, θ) and\n"
         "the examples; skip=K starts after the first K examples: a test set from the same distribution is\n"
         "the training spec with n=N_TEST,skip=N_TRAIN (another seed is another distribution).";
}

DataInput open_data(const Communicator& comm, const std::string& path, index_t dim, const std::string& data_option,
                    const std::string& dim_option, int passes, [[maybe_unused]] const Hdf5Names& h5_names) {
  DataInput data;
  if (const std::optional<SyntheticSpec> spec = synthetic_spec(path, dim, data_option, dim_option)) {
    data.format = "synthetic";
    data.rows = spec->examples();
    data.source = make_synthetic(comm, *spec);
    if (spec->sign_labels()) data.known_labels = LabelRange{-1.0, 1.0, true, {-1.0, 1.0}};
  } else if (path != "-" && is_hdf5(comm, path)) {
#if ADASKETCH_WITH_HDF5
    auto reader = std::make_unique<Hdf5Reader>(comm, path, h5_names);
    data.format = "hdf5";
    data.rows = reader->rows();
    if (dim != 0 && dim != reader->dim())
      throw InvalidArgument(dim_option + ": " + number_text(dim) + " does not match d = " +
                            number_text(reader->dim()) + " of the dataset '" + h5_names.x + "' in '" + path + "'");
    data.source = std::move(reader);
#else
    throw InvalidArgument(data_option + ": '" + path + "' is an HDF5 file, but this adasketch was built without HDF5 "
                          "(ADASKETCH_WITH_HDF5=OFF)");
#endif
  } else if (is_dense_binary(comm, path)) {
    auto reader = std::make_unique<DenseBinaryReader>(comm, path);
    data.format = "dense-binary";
    data.rows = reader->rows();
    if (dim != 0 && dim != reader->dim())
      throw InvalidArgument(dim_option + ": " + number_text(dim) + " does not match d = " +
                            number_text(reader->dim()) + " in the header of '" + path + "'");
    data.source = std::move(reader);
  } else {
    LibsvmOptions options{.dim = dim};
    if (passes <= 1 && path != "-") options.cache_bytes = 0;  // standard input is read once: always kept
    auto reader = std::make_unique<LibsvmReader>(comm, path, options);
    data.format = "libsvm";
    data.rows = reader->info().rows;
    data.source = std::move(reader);
  }
  return data;
}

std::optional<ParseThroughput> parse_throughput(const Communicator& comm, const ExampleSource& source) {
  const auto* libsvm = dynamic_cast<const LibsvmReader*>(&source);
  if (libsvm == nullptr) return std::nullopt;
  const ParseStats& s = libsvm->stats();
  return ParseThroughput{static_cast<double>(comm.allreduce_sum(s.bytes)) / 1e6,
                         static_cast<double>(comm.allreduce_sum(s.examples)), comm.allreduce_max(s.seconds())};
}

LabelRange label_range(const Communicator& comm, ExampleSource& source, const std::string& path) {
  LabelRange range;
  if (const auto* libsvm = dynamic_cast<const LibsvmReader*>(&source)) {
    const DatasetInfo& info = libsvm->info();
    return {info.label_min, info.label_max, info.labels_integral, info.labels};
  }
  std::set<double> values;
  Example example;
  bool first = true;
  source.rewind();
  while (source.next(example)) {
    const double y = example.label;
    if (!std::isfinite(y)) throw InputError(path, 0, "row " + number_text(example.position) + ": the label is not finite");
    range.min = first ? y : std::min(range.min, y);
    range.max = first ? y : std::max(range.max, y);
    range.integral = range.integral && y == std::floor(y);
    if (values.size() <= LabelMap::kMaxValues) values.insert(y);
    first = false;
  }
  source.rewind();
  range.values = agree_label_values(comm, std::vector<double>(values.begin(), values.end()));
  return range;
}

}  // namespace adasketch::driver
