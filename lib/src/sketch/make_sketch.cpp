#include "adasketch/sketch/make_sketch.hpp"

#include "../enum_names.hpp"
#include "adasketch/error.hpp"
#include "adasketch/sketch/frequent_directions.hpp"
#include "adasketch/sketch/oja_sketch.hpp"
#include "adasketch/sketch/random_projection.hpp"

namespace adasketch {

namespace {
constexpr detail::EnumNames<SketchKind, 6> kSketchNames{{{SketchKind::fd, "fd"},
                                                         {SketchKind::fast_fd, "fast-fd"},
                                                         {SketchKind::rfd, "rfd"},
                                                         {SketchKind::fast_rfd, "fast-rfd"},
                                                         {SketchKind::rp, "rp"},
                                                         {SketchKind::oja, "oja"}}};
}  // namespace

std::string to_string(SketchKind kind) { return detail::name_of(kSketchNames, kind); }

template <>
SketchKind from_string<SketchKind>(std::string_view text) {
  return detail::value_named(kSketchNames, text, "method");
}

std::unique_ptr<Sketch> make_sketch(const Communicator& comm, index_t dim, const SketchSpec& spec) {
  return make_sketch(comm, BlockPartition(dim, comm.size()), spec);
}

std::unique_ptr<Sketch> make_sketch(const Communicator& comm, const BlockPartition& partition, const SketchSpec& spec) {
  if (spec.ell <= 0) throw InvalidArgument("make_sketch: ell = " + number_text(spec.ell) + " (expected ell >= 1)");
  const SketchKind k = spec.kind;
  if (k != SketchKind::oja && !spec.oja_gamma.empty())
    throw InvalidArgument("make_sketch: oja_gamma has " + number_text(spec.oja_gamma.size()) +
                          " values, but only the oja sketch takes step sizes (method " + to_string(k) + ")");
  switch (k) {
    case SketchKind::fd:
    case SketchKind::fast_fd:
    case SketchKind::rfd:
    case SketchKind::fast_rfd: {
      FrequentDirectionsOptions o;
      o.ell = spec.ell;
      o.fast = k == SketchKind::fast_fd || k == SketchKind::fast_rfd;
      o.regularized = k == SketchKind::rfd || k == SketchKind::fast_rfd;
      o.alpha0 = spec.alpha0;
      o.form = spec.form;
      return std::make_unique<FrequentDirections>(comm, partition, o);
    }
    case SketchKind::rp:
      return std::make_unique<RandomProjection>(comm, partition, RandomProjectionOptions{spec.ell, spec.seed, 0, spec.form});
    case SketchKind::oja: {
      OjaSketchOptions o;
      o.ell = spec.ell;
      o.form = spec.form;
      o.max_growth = spec.max_growth;
      o.gamma = spec.oja_gamma;
      return std::make_unique<OjaSketch>(comm, partition, o);
    }
  }
  throw InvalidArgument("make_sketch: kind = " + number_text(static_cast<int>(k)) + " is not a SketchKind");
}

}  // namespace adasketch
