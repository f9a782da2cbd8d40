#pragma once
/// @file
/// Dense binary example format, read with MPI-IO so each rank reads only its own columns.
/// The format: docs/formats.md, "Data".
#include <string>
#include <vector>

#include "adasketch/comm/communicator.hpp"
#include "adasketch/data/example_source.hpp"

namespace adasketch {

/// Dense examples from a dense binary file (docs/formats.md, "Data"); each rank reads its own columns
/// with MPI-IO, rows_per_read examples at a time (collective reads in next()).
class DenseBinaryReader final : public ExampleSource {
 public:
  /// Collective. Throws InputError for a missing file, a bad header or a wrong size.
  DenseBinaryReader(const Communicator& comm, const std::string& path, index_t rows_per_read = 256);
  ~DenseBinaryReader() override;
  index_t dim() const override { return partition_.dim(); }
  /// The number of examples n in the file.
  index_t rows() const noexcept { return rows_; }
  /// The uniform split of the d features over the ranks.
  const BlockPartition& partition() const override { return partition_; }
  bool next(Example& out) override;
  void rewind() override;
  /// O(1): moves the cursor; the next next() reads from there.
  index_t skip(index_t n) override;

 private:
  void read_chunk();
  Communicator comm_;
  std::string path_;
  index_t rows_ = 0;
  BlockPartition partition_;
  MPI_File file_ = MPI_FILE_NULL;
  MPI_Datatype filetype_ = MPI_DATATYPE_NULL;
  index_t rows_per_read_, chunk_begin_ = 0, chunk_rows_ = 0, cursor_ = 0;
  std::vector<double> chunk_;   // chunk_rows_ × (local_dim + 1): label then local features
};

/// Writes examples (label, dense global row) from rank 0's arrays; a test and conversion helper.
/// `rows` is row-major n × d. Not collective.
void write_dense_binary(const std::string& path, index_t n, index_t d, const double* labels,
                        const double* rows);

}  // namespace adasketch
