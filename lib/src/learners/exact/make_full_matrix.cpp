// The exact learners' family factory, in every build: without ScaLAPACK it refuses their names.
#include <memory>
#include <string>
#include <string_view>

#include "../family_options.hpp"
#include "../learner_families.hpp"
#include "adasketch/error.hpp"
#include "adasketch/version.hpp"
#if ADASKETCH_WITH_EXACT_LEARNERS
#include "adasketch/learners/exact/full_adagrad.hpp"
#include "adasketch/learners/exact/full_newton.hpp"
#endif

namespace adasketch {

bool needs_equal_blocks(std::string_view algorithm) noexcept {
  return algorithm == "ada-full" || algorithm == "ada-full-da" || algorithm == "full-on";
}

std::unique_ptr<Learner> make_full_matrix(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec) {
  const std::string& a = spec.algorithm;
  if (!needs_equal_blocks(a)) return nullptr;
#if ADASKETCH_WITH_EXACT_LEARNERS
  const Loss loss(spec.loss, spec.classes);
  if (a == "full-on") return std::make_unique<FullNewton>(comm, partition, loss, detail::options_from_spec<FullNewtonOptions>(spec));
  auto o = detail::options_from_spec<FullAdaGradOptions>(spec);
  if (a == "ada-full-da") o.update = FullAdaGradOptions::Update::dual_averaging;
  return std::make_unique<FullAdaGrad>(comm, partition, loss, o);
#else
  (void)comm;
  (void)partition;
  throw InvalidArgument(a + " needs ScaLAPACK, which this build of adasketch does not have (rebuild with "
                            "-DADASKETCH_WITH_SCALAPACK=ON)");
#endif
}

}  // namespace adasketch
