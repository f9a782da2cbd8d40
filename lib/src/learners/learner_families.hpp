#pragma once
// One factory per learner family; each returns nullptr when spec.algorithm is not one of its own.
#include <memory>

#include "adasketch/learners/learner.hpp"

namespace adasketch {

/// ada-diag, ada-diag-da (learners/diagonal_adagrad.cpp)
std::unique_ptr<Learner> make_diagonal_adagrad(const Communicator& comm, index_t dim, const LearnerSpec& spec);
}  // namespace adasketch
