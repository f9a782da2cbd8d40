#pragma once
// One factory per learner family; each returns nullptr when spec.algorithm is not one of its own.
#include <memory>

#include "adasketch/learners/learner.hpp"

namespace adasketch {

/// ada-diag, ada-diag-da (learners/diagonal/)
std::unique_ptr<Learner> make_diagonal_adagrad(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec);
/// ada-fd, ada-fd-da, fast-ada-fd, fast-ada-fd-da, ada-gp, ada-gp-da, ada-dp, ada-dp-da
/// (learners/sketched_adagrad/)
std::unique_ptr<Learner> make_sketched_adagrad(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec);
/// fd-son, fast-fd-son, rp-son, oja-son, rfd-son, fast-rfd-son (learners/sketched_newton/)
std::unique_ptr<Learner> make_sketched_newton(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec);
/// comp-adagrad, comp-adagrad-da (learners/comp_adagrad/)
std::unique_ptr<Learner> make_comp_adagrad(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec);
/// ada-full, ada-full-da, full-on (learners/exact/make_full_matrix.cpp); throws InvalidArgument for them in a
/// build without ScaLAPACK.
std::unique_ptr<Learner> make_full_matrix(const Communicator& comm, const BlockPartition& partition, const LearnerSpec& spec);

}  // namespace adasketch
