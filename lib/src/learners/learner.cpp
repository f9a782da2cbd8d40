#include "adasketch/learners/learner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "adasketch/error.hpp"

namespace adasketch {

namespace {
constexpr index_t kMaxEntries = PTRDIFF_MAX / sizeof(double);  // std::vector<double>'s limit
}  // namespace

Learner::Learner(const Communicator& comm, index_t dim, const Loss& loss)
    : comm_(comm), partition_(dim, comm.size()), loss_(loss) {
  // Learners store d_p × K weights (and a few such arrays): d·K must not overflow. Beyond
  // std::vector's limit, throw what the vector itself would throw for the exact size.
  if (dim > kMaxEntries / loss.outputs())
    throw std::length_error("d × K = " + std::to_string(dim) + " × " + std::to_string(loss.outputs()) +
                            " weights: more than memory can address");
}

StepResult Learner::step(const LocalRow& x, double label) {
  if (!std::isfinite(label)) throw InvalidArgument(name() + ": label is not finite");
  if (loss_.kind() == LossKind::softmax) {
    if (label < 0 || label >= outputs() || label != std::floor(label))
      throw InvalidArgument(name() + ": softmax label must be an integer in [0, " + std::to_string(outputs()) +
                            "), got " + std::to_string(label));
  } else if (loss_.is_classification() && label != 1.0 && label != -1.0) {
    throw InvalidArgument(name() + ": binary label must be -1 or +1, got " + std::to_string(label));
  }
  const StepResult r = do_step(x, label);
  ++steps_;
  return r;
}

void Learner::predict(const LocalRow& x, std::span<double> scores) const {
  ADASKETCH_REQUIRE(static_cast<int>(scores.size()) >= outputs(), "scores.size() = " + std::to_string(scores.size()));
  std::fill(scores.begin(), scores.begin() + outputs(), 0.0);
  add_local_scores(x, scores.first(static_cast<std::size_t>(outputs())));
  comm_.allreduce_sum(scores.first(static_cast<std::size_t>(outputs())));
}

}  // namespace adasketch
