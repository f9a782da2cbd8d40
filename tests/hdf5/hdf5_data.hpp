#pragma once
// A small data set written as HDF5 (datasets X, n × d, and y, n) and as LIBSVM text, for the tests of
// the HDF5 reader (test_hdf5.cpp) and of `adasketch train --data FILE.h5` (tests/cli). Written with
// the serial HDF5 C API, independently of the library's reader.
#include <hdf5.h>

#include <string>
#include <vector>

namespace adasketch::test {

struct Hdf5Data {
  long n = 0, d = 0;
  std::vector<double> x;       // n × d, row-major
  std::vector<double> labels;  // n
};

/// n rows of d values k/8 (k in −16..16, about a third of them 0: exact in float32 and in text) and
/// labels ±1 from a fixed linear rule, from a fixed std::mt19937 seed.
Hdf5Data make_hdf5_data(long n, long d, unsigned seed);

/// Writes X (float64, or float32 when `single`) and y (float64) to `path`; `x_name`/`y_name` name
/// them. Throws std::runtime_error when an HDF5 call fails.
void write_hdf5(const std::string& path, const Hdf5Data& data, bool single = false, const std::string& x_name = "X",
                const std::string& y_name = "y");

/// Adds a one-dimensional float64 dataset `name` to the HDF5 file `path`.
void add_labels(const std::string& path, const std::string& name, const std::vector<double>& labels);

/// Writes the same rows as LIBSVM text (nonzeros only).
void write_libsvm(const std::string& path, const Hdf5Data& data);

}  // namespace adasketch::test
