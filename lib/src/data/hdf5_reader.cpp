#include "adasketch/data/hdf5_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <system_error>

#include "adasketch/error.hpp"
#include "file_kind.hpp"

#ifndef H5_HAVE_PARALLEL
#error "adasketch's HDF5 reader needs a parallel HDF5 (H5_HAVE_PARALLEL)"
#endif

namespace adasketch {

namespace {

// Whether a dataset holds numbers (integers or floating point), which H5Dread converts to float64.
bool numeric(hid_t dataset) {
  const hid_t type = H5Dget_type(dataset);
  if (type < 0) return false;
  const H5T_class_t kind = H5Tget_class(type);
  H5Tclose(type);
  return kind == H5T_INTEGER || kind == H5T_FLOAT;
}

// The dataset's extent, if it has `rank` dimensions.
bool extent(hid_t dataset, int rank, std::array<hsize_t, 2>& dims) {
  const hid_t space = H5Dget_space(dataset);
  if (space < 0) return false;
  const bool ok = H5Sget_simple_extent_ndims(space) == rank && H5Sget_simple_extent_dims(space, dims.data(), nullptr) == rank;
  H5Sclose(space);
  return ok;
}

// Reads rows [first, first + count) and columns [column, column + width) of a 1- or 2-dimensional
// dataset (width 0: this rank reads nothing, but takes part in the collective read).
bool read_block(hid_t dataset, hid_t transfer, int rank, hsize_t first, hsize_t count, hsize_t column, hsize_t width,
                double* out) {
  const hid_t file_space = H5Dget_space(dataset);
  if (file_space < 0) return false;
  const std::array<hsize_t, 2> start{first, column}, size{count, width};
  hid_t memory = H5I_INVALID_HID;
  bool ok = true;
  if (count * width == 0) {
    const hsize_t one = 1;
    memory = H5Screate_simple(1, &one, nullptr);
    ok = memory >= 0 && H5Sselect_none(memory) >= 0 && H5Sselect_none(file_space) >= 0;
  } else {
    memory = H5Screate_simple(rank, size.data(), nullptr);
    ok = memory >= 0 && H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, size.data(), nullptr) >= 0;
  }
  double unused = 0.0;
  ok = ok && H5Dread(dataset, H5T_NATIVE_DOUBLE, memory, file_space, transfer, count * width == 0 ? &unused : out) >= 0;
  if (memory >= 0) H5Sclose(memory);
  H5Sclose(file_space);
  return ok;
}

}  // namespace

struct Hdf5Reader::Handles {
  hid_t access = H5I_INVALID_HID, file = H5I_INVALID_HID, x = H5I_INVALID_HID, y = H5I_INVALID_HID,
        transfer = H5I_INVALID_HID;
  ~Handles() {
    if (transfer >= 0) H5Pclose(transfer);
    if (y >= 0) H5Dclose(y);
    if (x >= 0) H5Dclose(x);
    if (file >= 0) H5Fclose(file);
    if (access >= 0) H5Pclose(access);
  }
};

namespace {

// Collective: throws InputError(path, reason) on every rank unless `ok` on every rank.
void agree(const Communicator& comm, bool ok, const std::string& path, const std::string& reason) {
  if (comm.allreduce_max(static_cast<index_t>(ok ? 0 : 1)) != 0) throw InputError(path, 0, reason);
}

}  // namespace

Hdf5Reader::Hdf5Reader(const Communicator& comm, const std::string& path, const Hdf5Names& names,
                       index_t rows_per_read)
    : comm_(comm), path_(path), h5_(std::make_unique<Handles>()), partition_(1, 1), rows_per_read_(rows_per_read) {
  ADASKETCH_REQUIRE(rows_per_read >= 1, "rows_per_read = " + number_text(rows_per_read));
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions, not HDF5's stack on stderr
  std::error_code ec;
  const std::string why = detail::not_a_regular_file(path);
  agree(comm_, why.empty(), path_, "cannot read: " + (why.empty() ? std::string("not a regular file on another rank") : why));
  agree(comm_, std::filesystem::exists(path, ec), path_, "cannot open: no such file");
  Handles& h = *h5_;
  h.access = H5Pcreate(H5P_FILE_ACCESS);
  agree(comm_, h.access >= 0 && H5Pset_fapl_mpio(h.access, comm_.get(), MPI_INFO_NULL) >= 0, path_,
        "cannot set up parallel HDF5 access");
  h.file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, h.access);
  agree(comm_, h.file >= 0, path_, "cannot open as an HDF5 file");
  const auto open = [&](hid_t& id, const std::string& name, const char* what) {
    id = H5Lexists(h.file, name.c_str(), H5P_DEFAULT) > 0 ? H5Dopen2(h.file, name.c_str(), H5P_DEFAULT) : H5I_INVALID_HID;
    agree(comm_, id >= 0, path_, "no dataset '" + name + "' (" + what + ")");
    agree(comm_, numeric(id), path_, "dataset '" + name + "' does not hold numbers");
  };
  open(h.x, names.x, "the examples, n × d");
  open(h.y, names.y, "the labels, n");
  std::array<hsize_t, 2> xdims{}, ydims{};
  agree(comm_, extent(h.x, 2, xdims), path_, "dataset '" + names.x + "' is not two-dimensional (n × d)");
  agree(comm_, extent(h.y, 1, ydims), path_, "dataset '" + names.y + "' is not one-dimensional (n labels)");
  if (xdims[0] == 0 || xdims[1] == 0)
    throw InputError(path_, 0, "dataset '" + names.x + "' is empty (" + number_text(xdims[0]) + " × " +
                                   number_text(xdims[1]) + ")");
  if (ydims[0] != xdims[0])
    throw InputError(path_, 0, "dataset '" + names.y + "' has " + number_text(ydims[0]) + " labels for " +
                                   number_text(xdims[0]) + " rows of '" + names.x + "'");
  rows_ = static_cast<index_t>(xdims[0]);
  partition_ = BlockPartition(static_cast<index_t>(xdims[1]), comm_.size());
  h.transfer = H5Pcreate(H5P_DATASET_XFER);
  agree(comm_, h.transfer >= 0 && H5Pset_dxpl_mpio(h.transfer, H5FD_MPIO_COLLECTIVE) >= 0, path_,
        "cannot set up collective HDF5 reads");
}

Hdf5Reader::~Hdf5Reader() = default;

void Hdf5Reader::read_chunk() {
  const int rank = comm_.rank();
  const index_t local = partition_.size(rank);
  chunk_begin_ += chunk_rows_;
  chunk_rows_ = std::min(rows_per_read_, rows_ - chunk_begin_);
  x_.resize(static_cast<std::size_t>(chunk_rows_ * local));
  y_.resize(static_cast<std::size_t>(chunk_rows_));
  const auto first = static_cast<hsize_t>(chunk_begin_), count = static_cast<hsize_t>(chunk_rows_);
  const bool ok = read_block(h5_->x, h5_->transfer, 2, first, count, static_cast<hsize_t>(partition_.begin(rank)),
                             static_cast<hsize_t>(local), x_.data()) &&
                  read_block(h5_->y, h5_->transfer, 1, first, count, 0, 1, y_.data());
  // The first row with a value or label that is not finite, on any rank (rows_: none; −1: a failed read).
  index_t bad = rows_;
  for (index_t i = 0; ok && i < chunk_rows_ && bad == rows_; ++i) {
    const auto row = x_.begin() + i * local;
    if (!std::isfinite(y_[static_cast<std::size_t>(i)]) ||
        !std::all_of(row, row + local, [](double v) { return std::isfinite(v); }))
      bad = chunk_begin_ + i;
  }
  bad = comm_.allreduce_min(ok ? bad : index_t{-1});
  if (bad < 0)
    throw InputError(path_, 0, "cannot read rows " + number_text(chunk_begin_ + 1) + ".." +
                                   number_text(chunk_begin_ + chunk_rows_));
  if (bad < rows_) throw InputError(path_, 0, "row " + number_text(bad + 1) + ": a value or the label is not finite");
}

bool Hdf5Reader::next(Example& out) {
  if (cursor_ >= rows_) return false;
  if (cursor_ >= chunk_begin_ + chunk_rows_) read_chunk();
  const index_t local = partition_.size(comm_.rank()), i = cursor_ - chunk_begin_;
  out.label = y_[static_cast<std::size_t>(i)];
  out.dense = true;
  out.indices.clear();
  out.values.assign(x_.begin() + i * local, x_.begin() + (i + 1) * local);
  out.position = ++cursor_;
  return true;
}

void Hdf5Reader::rewind() {
  cursor_ = 0;
  chunk_begin_ = 0;
  chunk_rows_ = 0;
}

index_t Hdf5Reader::skip(index_t n) {
  ADASKETCH_REQUIRE(n >= 0, "n = " + number_text(n));
  const index_t done = std::min(n, rows_ - cursor_);
  cursor_ += done;
  if (cursor_ >= chunk_begin_ + chunk_rows_) {
    chunk_begin_ = cursor_;
    chunk_rows_ = 0;
  }
  return done;
}

}  // namespace adasketch
