// The C interface's model calls over LinearModel (adasketch/adasketch.h).
#include <algorithm>
#include <span>
#include <vector>

#include "adasketch/adasketch.h"
#include "adasketch/io/linear_model.hpp"
#include "handles.hpp"
#include "status.hpp"

namespace {

using namespace adasketch;
using namespace adasketch::capi;

const adasketch_model& checked(const adasketch_model* m) {
  require_pointer(m, "model");
  return *m;
}

std::vector<double> scores_of(const adasketch_model& m, const double* x) {
  std::vector<double> scores(static_cast<std::size_t>(m.model.outputs()));
  m.model.predict(m.block.dense(x), scores);
  return scores;
}

}  // namespace

extern "C" {

adasketch_status adasketch_model_load(MPI_Comm comm, const char* path, adasketch_model** model) {
  return guarded([&] {
    require_pointer(model, "model");
    *model = nullptr;
    require_pointer(path, "path");
    const Communicator c(comm);
    LinearModel m = LinearModel::load(c, path);
    if (m.bias() > 0.0) {  // the data's features split as a learner of the same d and algorithm splits them
      const BlockPartition features = with_bias_feature(BlockPartition(m.data_dim(), c.size()), m.algorithm());
      bool same = true;  // on every rank alike: the reload is collective
      for (int r = 0; r < c.size(); ++r) same = same && features.end(r) == m.partition().end(r);
      if (!same) m = LinearModel::load(c, path, features);
    }
    const DataBlock block(m.partition(), c.rank(), m.bias());
    *model = new adasketch_model{std::move(m), block};
  });
}

adasketch_status adasketch_model_load_f(MPI_Fint comm, const char* path, adasketch_model** model) {
  return adasketch_model_load(MPI_Comm_f2c(comm), path, model);
}

void adasketch_model_free(adasketch_model* model) { delete model; }

adasketch_status adasketch_model_local_range(const adasketch_model* model, int64_t* begin, int64_t* end) {
  return guarded([&] {
    const adasketch_model& m = checked(model);
    if (begin != nullptr) *begin = m.block.begin();
    if (end != nullptr) *end = m.block.end();
  });
}

adasketch_status adasketch_model_predict_dense(const adasketch_model* model, const double* x, double* scores) {
  return guarded([&] {
    const adasketch_model& m = checked(model);
    require_pointer(scores, "scores");
    const std::vector<double> s = scores_of(m, x);
    std::copy(s.begin(), s.end(), scores);
  });
}

adasketch_status adasketch_model_predict_label_dense(const adasketch_model* model, const double* x, double* label) {
  return guarded([&] {
    const adasketch_model& m = checked(model);
    require_pointer(label, "label");
    *label = predicted_label(m.model.loss(), m.model.labels(), scores_of(m, x));
  });
}

adasketch_status adasketch_model_intercept(const adasketch_model* model, double* intercept) {
  return guarded([&] {
    const adasketch_model& m = checked(model);
    require_pointer(intercept, "intercept");
    capi::intercept(m.model.comm(), m.block, m.model.weights(),
                    std::span<double>(intercept, static_cast<std::size_t>(m.model.outputs())));
  });
}

}  // extern "C"
