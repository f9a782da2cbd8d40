#include "data_input.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "adasketch/data/dense_binary.hpp"
#include "adasketch/data/libsvm_reader.hpp"
#include "adasketch/error.hpp"

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

}  // namespace

DataInput open_data(const Communicator& comm, const std::string& path, index_t dim, const std::string& dim_option) {
  DataInput data;
  if (is_dense_binary(comm, path)) {
    auto reader = std::make_unique<DenseBinaryReader>(comm, path);
    data.format = "dense-binary";
    data.rows = reader->rows();
    if (dim != 0 && dim != reader->dim())
      throw InvalidArgument(dim_option + ": " + std::to_string(dim) + " does not match d = " +
                            std::to_string(reader->dim()) + " in the header of '" + path + "'");
    data.source = std::move(reader);
  } else {
    auto reader = std::make_unique<LibsvmReader>(comm, path, LibsvmOptions{dim});
    data.format = "libsvm";
    data.rows = reader->info().rows;
    data.source = std::move(reader);
  }
  return data;
}

LabelRange label_range(ExampleSource& source, const std::string& path) {
  LabelRange range;
  if (const auto* libsvm = dynamic_cast<const LibsvmReader*>(&source)) {
    const DatasetInfo& info = libsvm->info();
    return {info.label_min, info.label_max, info.labels_integral};
  }
  Example example;
  bool first = true;
  source.rewind();
  while (source.next(example)) {
    const double y = example.label;
    if (!std::isfinite(y)) throw InputError(path, 0, "row " + std::to_string(example.position) + ": the label is not finite");
    range.min = first ? y : std::min(range.min, y);
    range.max = first ? y : std::max(range.max, y);
    range.integral = range.integral && y == std::floor(y);
    first = false;
  }
  source.rewind();
  return range;
}

}  // namespace adasketch::driver
