#include "adasketch/data/dense_binary.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>

#include "adasketch/error.hpp"
#include "file_kind.hpp"

namespace adasketch {

// The format is little-endian and is read and written in the native byte order.
static_assert(std::endian::native == std::endian::little, "dense binary I/O assumes a little-endian host");

namespace {

constexpr char kMagic[8] = {'A', 'D', 'S', 'K', 'D', 'N', 'S', '1'};
constexpr MPI_Offset kHeaderBytes = 24;

// A collective MPI call whose failure must end every rank together: the largest code wins.
void check_mpi_everywhere(const Communicator& comm, int rc, const char* call) {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, comm.get()), "MPI_Allreduce(max)");
  check_mpi(rc, call);
}

// Reads and validates the header against the file size; throws the same InputError on every rank.
std::uint64_t read_header(const Communicator& comm, MPI_File file, const std::string& path, std::uint64_t& dim) {
  MPI_Offset size = 0;
  check_mpi_everywhere(comm, MPI_File_get_size(file, &size), "MPI_File_get_size");
  if (size < kHeaderBytes)
    throw InputError(path, 0, "dense binary file of " + number_text(size) + " bytes is shorter than its 24-byte header");
  char header[kHeaderBytes];
  MPI_Status status;
  check_mpi_everywhere(comm, MPI_File_read_at_all(file, 0, header, static_cast<int>(kHeaderBytes), MPI_BYTE, &status),
                       "MPI_File_read_at_all(header)");
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0)
    throw InputError(path, 0, "not an adasketch dense binary file (magic \"ADSKDNS1\" missing)");
  std::uint64_t rows = 0;
  std::memcpy(&rows, header + 8, 8);
  std::memcpy(&dim, header + 16, 8);
  if (rows == 0) throw InputError(path, 0, "no examples (header says 0 rows)");
  if (dim == 0) throw InputError(path, 0, "header says 0 features");
  // 24 + 8·n·(d+1) must equal the size; bound n and d first so the product cannot overflow.
  const auto max = static_cast<std::uint64_t>(std::numeric_limits<MPI_Offset>::max());
  const bool fits = dim < max / 8 && rows <= (max - kHeaderBytes) / (8 * (dim + 1));
  if (!fits || static_cast<MPI_Offset>(kHeaderBytes + 8 * rows * (dim + 1)) != size)
    throw InputError(path, 0, "file size " + number_text(size) + " bytes does not match the header (" +
                                  number_text(rows) + " rows of 1 + " + number_text(dim) +
                                  " float64 need 24 + 8·n·(d+1) bytes)");
  return rows;
}

}  // namespace

DenseBinaryReader::DenseBinaryReader(const Communicator& comm, const std::string& path, index_t rows_per_read)
    : comm_(comm), path_(path), partition_(1, 1), rows_per_read_(rows_per_read) {
  ADASKETCH_REQUIRE(rows_per_read >= 1, "rows_per_read = " + number_text(rows_per_read));
  const std::string why = detail::not_a_regular_file(path);
  if (comm_.allreduce_max(static_cast<index_t>(why.empty() ? 0 : 1)) != 0)
    throw InputError(path, 0, "cannot read: " + (why.empty() ? std::string("not a regular file on another rank") : why));
  const int rc = MPI_File_open(comm_.get(), path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &file_);
  int failed = rc != MPI_SUCCESS ? 1 : 0;
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm_.get()), "MPI_Allreduce(max)");
  if (failed != 0) {
    if (rc == MPI_SUCCESS) MPI_File_close(&file_);
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    const bool here = rc != MPI_SUCCESS && MPI_Error_string(rc, text, &length) == MPI_SUCCESS;
    throw InputError(path, 0, "cannot open" + (here ? " (" + std::string(text, static_cast<std::size_t>(length)) + ")" : std::string()));
  }
  try {
    std::uint64_t dim = 0;
    rows_ = static_cast<index_t>(read_header(comm_, file_, path_, dim));
    partition_ = BlockPartition(static_cast<index_t>(dim), comm_.size());
    // File view: every record shows this rank the label and its columns [begin, end).
    const index_t local = partition_.size(comm_.rank());
    ADASKETCH_REQUIRE(local < INT_MAX, "local features = " + number_text(local));
    int lengths[2] = {1, static_cast<int>(local)};
    MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(8 * (1 + partition_.begin(comm_.rank())))};
    MPI_Datatype record = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_create_hindexed(2, lengths, displacements, MPI_DOUBLE, &record), "MPI_Type_create_hindexed");
    const int resized = MPI_Type_create_resized(record, 0, static_cast<MPI_Aint>(8 * (dim + 1)), &filetype_);
    MPI_Type_free(&record);
    check_mpi(resized, "MPI_Type_create_resized");
    check_mpi(MPI_Type_commit(&filetype_), "MPI_Type_commit");
    check_mpi_everywhere(comm_, MPI_File_set_view(file_, kHeaderBytes, MPI_DOUBLE, filetype_, "native", MPI_INFO_NULL),
                         "MPI_File_set_view");
    // One collective read moves rows_per_read × (local + 1) doubles: keep the count an int.
    rows_per_read_ = std::max<index_t>(1, std::min<index_t>(rows_per_read_, INT_MAX / (local + 1)));
  } catch (...) {
    if (filetype_ != MPI_DATATYPE_NULL) MPI_Type_free(&filetype_);
    MPI_File_close(&file_);
    throw;
  }
}

DenseBinaryReader::~DenseBinaryReader() {
  if (filetype_ != MPI_DATATYPE_NULL) MPI_Type_free(&filetype_);
  if (file_ != MPI_FILE_NULL) MPI_File_close(&file_);
}

void DenseBinaryReader::read_chunk() {
  const index_t width = partition_.size(comm_.rank()) + 1;
  chunk_begin_ += chunk_rows_;
  chunk_rows_ = std::min(rows_per_read_, rows_ - chunk_begin_);
  chunk_.resize(static_cast<std::size_t>(chunk_rows_ * width));
  MPI_Status status;
  // Offsets count the doubles visible through the view, i.e. `width` per record.
  check_mpi_everywhere(comm_, MPI_File_read_at_all(file_, chunk_begin_ * width, chunk_.data(),
                                                   static_cast<int>(chunk_rows_ * width), MPI_DOUBLE, &status),
                       "MPI_File_read_at_all");
}

bool DenseBinaryReader::next(Example& out) {
  if (cursor_ >= rows_) return false;
  if (cursor_ >= chunk_begin_ + chunk_rows_) read_chunk();
  const index_t width = partition_.size(comm_.rank()) + 1;
  const auto row = chunk_.begin() + (cursor_ - chunk_begin_) * width;
  out.label = *row;
  out.dense = true;
  out.indices.clear();
  out.values.assign(row + 1, row + width);
  out.position = ++cursor_;
  return true;
}

void DenseBinaryReader::rewind() {
  cursor_ = 0;
  chunk_begin_ = 0;
  chunk_rows_ = 0;
}

index_t DenseBinaryReader::skip(index_t n) {
  ADASKETCH_REQUIRE(n >= 0, "n = " + number_text(n));
  const index_t done = std::min(n, rows_ - cursor_);
  cursor_ += done;
  if (cursor_ >= chunk_begin_ + chunk_rows_) {  // past the chunk in memory: read_chunk() starts at the cursor
    chunk_begin_ = cursor_;
    chunk_rows_ = 0;
  }
  return done;
}

void write_dense_binary(const std::string& path, index_t n, index_t d, const double* labels, const double* rows) {
  ADASKETCH_REQUIRE(n >= 1 && d >= 1, "n = " + number_text(n) + ", d = " + number_text(d));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path, 0, "cannot open for writing");
  const std::uint64_t header[2] = {static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(d)};
  out.write(kMagic, sizeof kMagic);
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  for (index_t i = 0; i < n; ++i) {
    out.write(reinterpret_cast<const char*>(labels + i), sizeof(double));
    out.write(reinterpret_cast<const char*>(rows + i * d), static_cast<std::streamsize>(sizeof(double) * d));
  }
  out.close();
  if (!out) throw InputError(path, 0, "write failed");
}

}  // namespace adasketch
