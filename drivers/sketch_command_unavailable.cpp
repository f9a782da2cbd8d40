// `adasketch sketch` in a build without the evaluation component (ADASKETCH_WITH_SCALAPACK=OFF).
#include "adasketch/error.hpp"
#include "commands.hpp"

namespace adasketch::driver {

int run_sketch(const Communicator&, std::span<const std::string>) {
  throw InvalidArgument(std::string(kProgram) +
                        " sketch needs the exact covariance of the evaluation component, which this build does not "
                        "have (configure with -DADASKETCH_WITH_SCALAPACK=ON)");
}

}  // namespace adasketch::driver
