#include "bench_forms.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "adasketch/training/label_map.hpp"

namespace adasketch::driver {

namespace {

index_t rebases_of(const Learner& learner) { return learner.sketch() != nullptr ? learner.sketch()->rebases() : 0; }

}  // namespace

FormComparison compare_forms(const Communicator& comm, LearnerSpec spec, BenchExamples& examples, index_t steps) {
  spec.form = FormChoice::sparse;
  const std::unique_ptr<Learner> sparse = make_learner(comm, examples.dim(), spec);
  spec.form = FormChoice::dense;
  const std::unique_ptr<Learner> dense = make_learner(comm, examples.dim(), spec);
  const LabelMap labels = LabelMap::infer(dense->loss(), examples.labels().min, examples.labels().max);
  FormComparison c;
  c.steps = steps;
  for (index_t t = 0; t < steps; ++t) {
    const Example& x = examples.at(t);
    const double y = labels.apply(x.label, examples.name(), x.position);
    double start = MPI_Wtime();
    const StepResult a = sparse->step(x.row(), y);
    const double middle = MPI_Wtime();
    const StepResult b = dense->step(x.row(), y);
    c.seconds_sparse += middle - start;
    c.seconds_dense += MPI_Wtime() - middle;
    c.mistakes_sparse += a.mistake ? 1 : 0;
    c.mistakes_dense += b.mistake ? 1 : 0;
    c.max_loss_difference = std::max(c.max_loss_difference, std::abs(a.loss - b.loss) / std::max(1.0, std::abs(b.loss)));
  }
  std::vector<double> ws(static_cast<std::size_t>(dense->local_dim() * dense->outputs())), wd(ws.size());
  sparse->weights(ws);
  dense->weights(wd);
  double diff = 0.0, scale = 0.0;
  for (std::size_t j = 0; j < ws.size(); ++j) {
    diff = std::max(diff, std::abs(ws[j] - wd[j]));
    scale = std::max(scale, std::abs(wd[j]));
  }
  diff = comm.allreduce_max(diff);
  scale = comm.allreduce_max(scale);
  c.weight_difference = scale > 0.0 ? diff / scale : diff;
  c.sparse_rebases = rebases_of(*sparse);
  c.seconds_sparse = comm.allreduce_max(c.seconds_sparse);
  c.seconds_dense = comm.allreduce_max(c.seconds_dense);
  return c;
}

}  // namespace adasketch::driver
