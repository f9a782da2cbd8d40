#include "adasketch/sketch/make_sketch.hpp"

#include "adasketch/error.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/oja_sketch.hpp"
#include "adasketch/sketch/random_projection.hpp"

namespace adasketch {

std::unique_ptr<Sketch> make_sketch(const Communicator& comm, index_t dim, const SketchSpec& spec) {
  return make_sketch(comm, BlockPartition(dim, comm.size()), spec);
}

std::unique_ptr<Sketch> make_sketch(const Communicator& comm, const BlockPartition& partition, const SketchSpec& spec) {
  if (spec.ell <= 0) throw InvalidArgument("make_sketch: ell = " + std::to_string(spec.ell) + " (expected ell >= 1)");
  const std::string& m = spec.method;
  if (m == "fd" || m == "fast-fd" || m == "rfd" || m == "fast-rfd") {
    FrequentDirectionsOptions o;
    o.ell = spec.ell;
    o.fast = m.starts_with("fast-");
    o.regularized = m.ends_with("rfd");
    o.alpha0 = spec.alpha0;
    o.form = spec.form;
    o.max_growth = spec.max_growth;
    return std::make_unique<FrequentDirections>(comm, partition, o);
  }
  if (m == "rp")
    return std::make_unique<RandomProjection>(comm, partition, RandomProjectionOptions{spec.ell, spec.seed, 0, spec.form});
  if (m == "oja") {
    OjaSketchOptions o;
    o.ell = spec.ell;
    o.seed = spec.seed;
    o.form = spec.form;
    o.max_growth = spec.max_growth;
    return std::make_unique<OjaSketch>(comm, partition, o);
  }
  throw InvalidArgument("unknown sketch method '" + m + "' (expected fd, fast-fd, rfd, fast-rfd, rp or oja)");
}

}  // namespace adasketch
