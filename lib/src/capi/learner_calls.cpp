// The C interface's learner calls over the C++ API (adasketch/adasketch.h).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adasketch/adasketch.h"
#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/auto_tune/auto_tuned_learner.hpp"
#include "adasketch/number_text.hpp"
#include "handles.hpp"
#include "request.hpp"
#include "status.hpp"

namespace {

using namespace adasketch;
using namespace adasketch::capi;

// `size` is d (uniform split) or, with `local`, this rank's data features (the caller's split); a
// bias feature goes where `adasketch train --bias` puts it (for the caller's split too: a learner
// that needs equal blocks then needs a split that has them with the bias feature). `request()` may throw: every error
// becomes the call's status.
template <class Request>
adasketch_status create(MPI_Comm comm, bool local, int64_t size, Request request, adasketch_learner** out) {
  return guarded([&] {
    require_pointer(out, "learner");
    *out = nullptr;
    Communicator c(comm);
    LearnerRequest r = request();
    const BlockPartition data = local ? BlockPartition::from_local_sizes(c, size) : BlockPartition(size, c.size());
    const BlockPartition features = r.bias > 0.0 ? capi::with_bias_feature(data, r.spec.algorithm) : data;
    auto learner = make_learner(c, features, r.spec);
    *out = new adasketch_learner{c, std::move(learner), DataBlock(features, c.rank(), r.bias), std::move(r.labels)};
  });
}

const adasketch_learner& checked(const adasketch_learner* l) {
  require_pointer(l, "learner");
  return *l;
}

// The caller's label as the loss takes it.
double mapped_label(const adasketch_learner& l, double raw) {
  try {
    return l.labels.apply(raw, "", 0);
  } catch (const InputError&) {
    throw InvalidArgument("example " + number_text(l.learner->steps() + 1) + ": label " + number_text(raw) +
                          " is not one of the learner's labels (" + l.labels.describe() + ")");
  }
}

// One step on `row` (a function of the data block, evaluated inside the guard).
template <class Row>
adasketch_status step_on(adasketch_learner* learner, Row row, double label, double* loss, int* mistake) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    const double y = mapped_label(l, label);
    const StepResult r = l.learner->step(row(l.block), y);
    if (loss != nullptr) *loss = r.loss;
    if (mistake != nullptr) *mistake = r.mistake ? 1 : 0;
  });
}

template <class Row>
adasketch_status predict_on(const adasketch_learner* learner, Row row, double* scores) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(scores, "scores");
    l.learner->predict(row(l.block), std::span<double>(scores, static_cast<std::size_t>(l.learner->outputs())));
  });
}

template <class Row>
adasketch_status predict_label_on(const adasketch_learner* learner, Row row, double* label) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(label, "label");
    std::vector<double> scores(static_cast<std::size_t>(l.learner->outputs()));
    l.learner->predict(row(l.block), scores);
    *label = predicted_label(l.learner->loss(), l.labels, scores);
  });
}

// This rank's rows of W, the bias feature's included.
std::vector<double> local_rows(const adasketch_learner& l) {
  std::vector<double> w(static_cast<std::size_t>(l.learner->local_dim() * l.learner->outputs()));
  l.learner->weights(w);
  return w;
}

bool same_map(const LabelMap& a, const LabelMap& b) {
  return a.kind() == b.kind() && a.classes() == b.classes() &&
         std::equal(a.values().begin(), a.values().end(), b.values().begin(), b.values().end());
}

}  // namespace

extern "C" {

adasketch_status adasketch_learner_create(MPI_Comm comm, int64_t dim, const adasketch_spec* spec,
                                          adasketch_learner** learner) {
  return create(comm, false, dim, [&] { return request_of(spec); }, learner);
}

adasketch_status adasketch_learner_create_local(MPI_Comm comm, int64_t local_dim, const adasketch_spec* spec,
                                                adasketch_learner** learner) {
  return create(comm, true, local_dim, [&] { return request_of(spec); }, learner);
}

adasketch_status adasketch_learner_create_f(MPI_Fint comm, int64_t dim, const adasketch_spec* spec,
                                            adasketch_learner** learner) {
  return adasketch_learner_create(MPI_Comm_f2c(comm), dim, spec, learner);
}

adasketch_status adasketch_learner_create_local_f(MPI_Fint comm, int64_t local_dim, const adasketch_spec* spec,
                                                  adasketch_learner** learner) {
  return adasketch_learner_create_local(MPI_Comm_f2c(comm), local_dim, spec, learner);
}

adasketch_status adasketch_learner_create_settings(MPI_Comm comm, int64_t dim, const char* algorithm, const char* loss,
                                                   const char* settings, adasketch_learner** learner) {
  return create(comm, false, dim, [&] { return request_of_settings(algorithm, loss, settings); }, learner);
}

adasketch_status adasketch_learner_create_settings_f(MPI_Fint comm, int64_t dim, const char* algorithm, const char* loss,
                                                     const char* settings, adasketch_learner** learner) {
  return adasketch_learner_create_settings(MPI_Comm_f2c(comm), dim, algorithm, loss, settings, learner);
}

void adasketch_learner_free(adasketch_learner* learner) { delete learner; }

adasketch_status adasketch_learner_local_range(const adasketch_learner* learner, int64_t* begin, int64_t* end) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    if (begin != nullptr) *begin = l.block.begin();
    if (end != nullptr) *end = l.block.end();
  });
}

adasketch_status adasketch_learner_dim(const adasketch_learner* learner, int64_t* dim) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(dim, "dim");
    *dim = l.block.data_dim();
  });
}

adasketch_status adasketch_learner_outputs(const adasketch_learner* learner, int* outputs) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(outputs, "outputs");
    *outputs = l.learner->outputs();
  });
}

adasketch_status adasketch_learner_steps(const adasketch_learner* learner, int64_t* steps) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(steps, "steps");
    *steps = l.learner->steps();
  });
}

adasketch_status adasketch_learner_auto(const adasketch_learner* learner, int* decided, double* eta, double* alpha0) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    const auto* tuned = dynamic_cast<const AutoTunedLearner*>(l.learner.get());
    if (tuned == nullptr) throw InvalidArgument("the learner was not created with auto_tune");
    const LearnerSpec& chosen = tuned->candidates()[static_cast<std::size_t>(tuned->leader())].spec;
    if (decided != nullptr) *decided = tuned->decided() ? 1 : 0;
    if (eta != nullptr) *eta = chosen.eta;
    if (alpha0 != nullptr) *alpha0 = chosen.alpha0;
  });
}

adasketch_status adasketch_step_dense(adasketch_learner* learner, const double* x, double label, double* loss,
                                      int* mistake) {
  return step_on(learner, [&](const DataBlock& b) { return b.dense(x); }, label, loss, mistake);
}

adasketch_status adasketch_step_sparse(adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                       const double* values, double label, double* loss, int* mistake) {
  return step_on(learner, [&](const DataBlock& b) { return b.sparse(nnz, indices, values); }, label, loss, mistake);
}

adasketch_status adasketch_step_dense_block(adasketch_learner* learner, int64_t n, const double* x,
                                            const double* labels, int64_t* mistakes) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    if (n < 0) throw InvalidArgument("n = " + number_text(n));
    if (n > 0) require_pointer(labels, "labels");
    const auto dp = static_cast<std::size_t>(l.block.end() - l.block.begin());
    if (n > 0 && dp > 0) require_pointer(x, "x");
    for (int64_t i = 0; i < n; ++i) {
      const double y = mapped_label(l, labels[i]);
      const StepResult r = l.learner->step(l.block.dense(dp > 0 ? x + static_cast<std::size_t>(i) * dp : x), y);
      if (mistakes != nullptr && r.mistake) ++*mistakes;
    }
  });
}

adasketch_status adasketch_predict_dense(const adasketch_learner* learner, const double* x, double* scores) {
  return predict_on(learner, [&](const DataBlock& b) { return b.dense(x); }, scores);
}

adasketch_status adasketch_predict_sparse(const adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                          const double* values, double* scores) {
  return predict_on(learner, [&](const DataBlock& b) { return b.sparse(nnz, indices, values); }, scores);
}

adasketch_status adasketch_predict_label_dense(const adasketch_learner* learner, const double* x, double* label) {
  return predict_label_on(learner, [&](const DataBlock& b) { return b.dense(x); }, label);
}

adasketch_status adasketch_predict_label_sparse(const adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                                const double* values, double* label) {
  return predict_label_on(learner, [&](const DataBlock& b) { return b.sparse(nnz, indices, values); }, label);
}

adasketch_status adasketch_weights(const adasketch_learner* learner, double* weights) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    const std::size_t n = static_cast<std::size_t>((l.block.end() - l.block.begin()) * l.learner->outputs());
    if (n > 0) require_pointer(weights, "weights");
    const std::vector<double> w = local_rows(l);
    std::copy_n(w.begin(), n, weights);
  });
}

adasketch_status adasketch_intercept(const adasketch_learner* learner, double* intercept) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(intercept, "intercept");
    capi::intercept(l.comm, l.block, local_rows(l),
                    std::span<double>(intercept, static_cast<std::size_t>(l.learner->outputs())));
  });
}

adasketch_status adasketch_save_model(const adasketch_learner* learner, const char* path) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(path, "path");
    save_model(*l.learner, l.labels, path, l.block.bias());
  });
}

adasketch_status adasketch_save_checkpoint(adasketch_learner* learner, const char* path) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(path, "path");
    CheckpointRun run{l.labels, {}, 1, "", 0, l.block.bias()};
    run.state.position = run.state.examples = l.learner->steps();
    save_checkpoint(path, *l.learner, run);
  });
}

adasketch_status adasketch_load_checkpoint(adasketch_learner* learner, const char* path) {
  return guarded([&] {
    const adasketch_learner& l = checked(learner);
    require_pointer(path, "path");
    // The bias and labels first (the header alone), so that a mismatch leaves the learner untouched.
    const CheckpointHeader h = read_checkpoint_header(l.comm, path);
    if (h.run.bias != l.block.bias())
      throw InputError(path, 0, "written with bias " + number_text(h.run.bias) + ", this learner has bias " +
                                    number_text(l.block.bias()));
    if (!same_map(h.run.labels, l.labels))
      throw InputError(path, 0, "written with labels " + h.run.labels.describe() + ", this learner has " +
                                    l.labels.describe());
    load_checkpoint(path, *l.learner);
  });
}

}  // extern "C"
