#include "hdf5_data.hpp"

#include <cstdio>
#include <random>
#include <stdexcept>

namespace adasketch::test {

namespace {

void check(bool ok, const char* call) {
  if (!ok) throw std::runtime_error(std::string("test: HDF5 call failed: ") + call);
}

void write_dataset(hid_t file, const std::string& name, int rank, const hsize_t* dims, hid_t file_type,
                   const std::vector<double>& values) {
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  check(space >= 0, "H5Screate_simple");
  const hid_t dataset = H5Dcreate2(file, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  check(dataset >= 0, "H5Dcreate2");
  check(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0, "H5Dwrite");
  check(H5Dclose(dataset) >= 0 && H5Sclose(space) >= 0, "H5Dclose");
}

}  // namespace

Hdf5Data make_hdf5_data(long n, long d, unsigned seed) {
  Hdf5Data data{n, d, std::vector<double>(static_cast<std::size_t>(n * d)), std::vector<double>(static_cast<std::size_t>(n))};
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> value(-16, 16), zero(0, 2);
  for (long i = 0; i < n; ++i) {
    double margin = 0.5;
    for (long j = 0; j < d; ++j) {
      const double v = zero(random) == 0 ? 0.0 : value(random) / 8.0;
      data.x[static_cast<std::size_t>(i * d + j)] = v;
      margin += (j % 2 == 0 ? 1.0 : -0.5) * v;
    }
    data.labels[static_cast<std::size_t>(i)] = margin > 0.0 ? 1.0 : -1.0;
  }
  return data;
}

void write_hdf5(const std::string& path, const Hdf5Data& data, bool single, const std::string& x_name,
                const std::string& y_name) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  check(file >= 0, "H5Fcreate");
  const hsize_t xdims[2] = {static_cast<hsize_t>(data.n), static_cast<hsize_t>(data.d)};
  const hsize_t ydims[1] = {static_cast<hsize_t>(data.n)};
  write_dataset(file, x_name, 2, xdims, single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, data.x);
  write_dataset(file, y_name, 1, ydims, H5T_IEEE_F64LE, data.labels);
  check(H5Fclose(file) >= 0, "H5Fclose");
}

void add_labels(const std::string& path, const std::string& name, const std::vector<double>& labels) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(file >= 0, "H5Fopen");
  const hsize_t dims[1] = {labels.size()};
  write_dataset(file, name, 1, dims, H5T_IEEE_F64LE, labels);
  check(H5Fclose(file) >= 0, "H5Fclose");
}

void write_libsvm(const std::string& path, const Hdf5Data& data) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("test: cannot write " + path);
  for (long i = 0; i < data.n; ++i) {
    std::fprintf(f, "%+g", data.labels[static_cast<std::size_t>(i)]);
    for (long j = 0; j < data.d; ++j)
      if (const double v = data.x[static_cast<std::size_t>(i * data.d + j)]; v != 0.0) std::fprintf(f, " %ld:%.17g", j + 1, v);
    std::fputc('\n', f);
  }
  if (std::fclose(f) != 0) throw std::runtime_error("test: cannot write " + path);
}

}  // namespace adasketch::test
