// write_hdf5_data PREFIX N D: writes PREFIX.h5 (X float64, y), PREFIX.f32.h5 (X float32) and
// PREFIX.svm, the same examples (hdf5_data.hpp), for the command-line tests.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "hdf5_data.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: write_hdf5_data PREFIX N D\n");
    return 2;
  }
  try {
    const std::string prefix = argv[1];
    const auto data = adasketch::test::make_hdf5_data(std::atol(argv[2]), std::atol(argv[3]), 7);
    adasketch::test::write_hdf5(prefix + ".h5", data);
    adasketch::test::write_hdf5(prefix + ".f32.h5", data, true);
    adasketch::test::write_libsvm(prefix + ".svm", data);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_hdf5_data: %s\n", e.what());
    return 1;
  }
  return 0;
}
