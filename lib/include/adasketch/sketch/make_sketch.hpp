#pragma once
/// @file
/// Construct a sketch by its kind (SketchSpec::kind).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adasketch/sketch/sketch.hpp"

namespace adasketch {

/// The sketches: FD, fast FD (2ℓ buffer), regularized FD and its fast form, random projection, Oja.
enum class SketchKind { fd, fast_fd, rfd, fast_rfd, rp, oja };
/// "fd", "fast-fd", "rfd", "fast-rfd", "rp" or "oja" (Sketch::name()).
std::string to_string(SketchKind kind);
/// The inverse of to_string (types.hpp).
template <>
SketchKind from_string<SketchKind>(std::string_view text);

/// What make_sketch builds: the kind and its options (each kind reads the fields marked for it).
struct SketchSpec {
  SketchKind kind = SketchKind::fast_fd;  ///< which sketch
  index_t ell = 10;                ///< ℓ ≥ 1
  std::uint64_t seed = 1;          ///< rp
  double alpha0 = 0.0;             ///< rfd, fast-rfd
  SketchForm form = SketchForm::dense;  ///< dense, or sparse (time per sparse row independent of d)
  double max_growth = 1e4;  ///< sparse oja: the rebase threshold (OjaSketchOptions::max_growth)
  /// oja: Γ_t = diag(γ_1, …, γ_ℓ)/t (OjaSketchOptions::gamma); the other kinds take none.
  std::vector<double> oja_gamma{};
};

/// The sketch of `spec` on d = dim features split uniformly over comm. Local (no communication), like
/// the sketches' constructors. Throws InvalidArgument naming the violated condition.
std::unique_ptr<Sketch> make_sketch(const Communicator& comm, index_t dim, const SketchSpec& spec);
/// The same on an explicit column partition (e.g. BlockPartition::interleaved for d×K weights).
std::unique_ptr<Sketch> make_sketch(const Communicator& comm, const BlockPartition& partition, const SketchSpec& spec);

}  // namespace adasketch
