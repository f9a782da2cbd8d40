#pragma once
/// @file
/// Dense examples from an HDF5 file, read with parallel HDF5 (MPI-IO) so each rank reads only its own
/// columns. Built with ADASKETCH_WITH_HDF5 (adasketch/version.hpp).
///
/// Layout: a two-dimensional dataset X (n × d, row-major as C, NumPy and h5py store it: row i is
/// example i) and a one-dimensional dataset y (n labels), of any integer or floating-point type (read
/// as float64); the names are options. Every value must be finite. Rows are read in chunks of
/// `rows_per_read` by collective hyperslab reads: rank p reads X[rows, begin(p):end(p)] and the
/// chunk's labels, so memory per rank is O(rows_per_read · d/P).
#include <memory>
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"
#include "adasketch/data/hdf5_names.hpp"

namespace adasketch {

/// Dense examples from the datasets X and y of an HDF5 file, with parallel HDF5 (see the file
/// description).
class Hdf5Reader final : public ExampleSource {
 public:
  /// Collective. Throws InputError naming the file, the same on every rank, for a missing or
  /// non-HDF5 file, a missing dataset, wrong ranks or shapes, a non-numeric type or a failed read.
  Hdf5Reader(const Communicator& comm, const std::string& path, const Hdf5Names& names = {},
             index_t rows_per_read = 256);
  /// Collective (closes the file).
  ~Hdf5Reader() override;
  Hdf5Reader(const Hdf5Reader&) = delete;
  Hdf5Reader& operator=(const Hdf5Reader&) = delete;

  index_t dim() const override { return partition_.dim(); }
  /// The number of examples n (rows of X).
  index_t rows() const noexcept { return rows_; }
  /// The uniform split of the d features over the ranks.
  const BlockPartition& partition() const override { return partition_; }
  /// Collective when it reads the next chunk; an example with a value or label that is not finite
  /// is an InputError "row N: ..." on every rank.
  bool next(Example& out) override;
  void rewind() override;
  /// O(1): moves the cursor; the next next() reads from there.
  index_t skip(index_t n) override;

 private:
  struct Handles;
  void read_chunk();
  Communicator comm_;
  std::string path_;
  std::unique_ptr<Handles> h5_;
  index_t rows_ = 0;
  BlockPartition partition_;
  index_t rows_per_read_, chunk_begin_ = 0, chunk_rows_ = 0, cursor_ = 0;
  std::vector<double> x_, y_;  // the chunk: chunk_rows_ × local features, and its labels
};

}  // namespace adasketch
