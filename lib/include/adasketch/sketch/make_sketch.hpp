#pragma once
// Construct a sketch by its method name (SketchSpec::method).
#include <memory>
#include <string>

#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

struct SketchSpec {
  std::string method = "fast-fd";  ///< fd, fast-fd, rfd, fast-rfd, rp, oja
  index_t ell = 10;                ///< ℓ ≥ 1
  std::uint64_t seed = 1;          ///< rp and oja
  double alpha0 = 0.0;             ///< rfd, fast-rfd
  SketchForm form = SketchForm::dense;  ///< dense, or sparse (time per sparse row independent of d)
  double max_growth = 1e4;  ///< sparse fd and oja: the rebase threshold (FrequentDirectionsOptions::max_growth)
};

/// Throws InvalidArgument naming the unknown method or the violated condition.
std::unique_ptr<Sketch> make_sketch(const Communicator& comm, index_t dim, const SketchSpec& spec);
/// The same on an explicit column partition (e.g. BlockPartition::interleaved for d×K weights).
std::unique_ptr<Sketch> make_sketch(const Communicator& comm, const BlockPartition& partition, const SketchSpec& spec);

}  // namespace adasketch
