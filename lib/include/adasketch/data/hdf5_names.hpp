#pragma once
/// @file
/// The datasets of an HDF5 example file (adasketch/data/hdf5_reader.hpp); in every build, so that
/// callers can name them whether or not the reader was built.
#include <string>

namespace adasketch {

/// The names of the two datasets Hdf5Reader reads.
struct Hdf5Names {
  std::string x = "X";  ///< the examples, n × d
  std::string y = "y";  ///< the labels, n
};

}  // namespace adasketch
