// The C interface (adasketch/adasketch.h) over the C++ API: exceptions become status codes and a
// thread-local message.
#include "adasketch/adasketch.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adasketch/error.hpp"
#include "adasketch/io/checkpoint.hpp"
#include "adasketch/io/linear_model.hpp"
#include "adasketch/learners/learner.hpp"
#include "adasketch/training/label_map.hpp"
#include "adasketch/version.hpp"

struct adasketch_learner {
  adasketch::Communicator comm;
  std::unique_ptr<adasketch::Learner> learner;
};

struct adasketch_model {
  adasketch::LinearModel model;
};

namespace {

using namespace adasketch;

thread_local std::string g_last_error;

// Runs f, mapping every exception to a status and the thread's message.
template <class F>
adasketch_status guarded(F&& f) noexcept {
  try {
    f();
    g_last_error.clear();
    return ADASKETCH_OK;
  } catch (const InvalidArgument& e) {
    g_last_error = e.what();
    return ADASKETCH_INVALID_ARGUMENT;
  } catch (const InputError& e) {
    g_last_error = e.what();
    return ADASKETCH_INPUT_ERROR;
  } catch (const NumericError& e) {
    g_last_error = e.what();
    return ADASKETCH_NUMERIC_ERROR;
  } catch (const MpiError& e) {
    g_last_error = e.what();
    return ADASKETCH_MPI_ERROR;
  } catch (const LapackError& e) {
    g_last_error = e.what();
    return ADASKETCH_LAPACK_ERROR;
  } catch (const std::bad_alloc&) {
    g_last_error = "out of memory";
    return ADASKETCH_ERROR;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return ADASKETCH_ERROR;
  } catch (...) {
    g_last_error = "unknown error";
    return ADASKETCH_ERROR;
  }
}

void require_pointer(const void* p, const char* what) {
  if (p == nullptr) throw InvalidArgument(std::string(what) + " is NULL");
}

// A field of adasketch_spec (named as LearnerSpec's) as the hyperparameter's type, and back: enums
// by name, switches as int, lists as a count and a pointer (copied).
void from_c(double c, double& out) { out = c; }
void from_c(int64_t c, index_t& out) { out = c; }
void from_c(int c, int& out) { out = c; }
void from_c(uint64_t c, std::uint64_t& out) { out = c; }
void from_c(int c, bool& out) { out = c != 0; }
template <class Enum>
void from_c(const char* c, Enum& out) {
  require_pointer(c, "a string of spec");
  out = from_string<Enum>(c);
}
void from_c(int64_t count, const double* c, std::vector<double>& out, const char* name) {
  if (count < 0 || (count > 0 && c == nullptr))
    throw InvalidArgument(std::string("spec: ") + name + "_count = " + number_text(count) + " with " + name + " " +
                          (c == nullptr ? "NULL" : "set"));
  out.assign(c, c + count);
}

LearnerSpec to_spec(const adasketch_spec* s) {
  require_pointer(s, "spec");
  for (const char* text : {s->algorithm, s->loss}) require_pointer(text, "a string of spec");
  LearnerSpec spec;
  spec.algorithm = s->algorithm;
  spec.loss = from_string<LossKind>(s->loss);
  spec.classes = s->classes;
#define ADASKETCH_FROM_C_number(member) from_c(s->member, spec.member);
#define ADASKETCH_FROM_C_choice(member) from_c(s->member, spec.member);
#define ADASKETCH_FROM_C_flag(member) from_c(s->member, spec.member);
#define ADASKETCH_FROM_C_list(member) from_c(s->member##_count, s->member, spec.member, #member);
#define ADASKETCH_FROM_C(kind, type, member, ...) ADASKETCH_FROM_C_##kind(member)
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_FROM_C)
#undef ADASKETCH_FROM_C
#undef ADASKETCH_FROM_C_list
#undef ADASKETCH_FROM_C_flag
#undef ADASKETCH_FROM_C_choice
#undef ADASKETCH_FROM_C_number
  return spec;
}

// `size` is d (uniform split) or, with `local`, this rank's block size (the caller's split).
// `spec_of()` gives the LearnerSpec (it may throw; every error becomes the call's status).
template <class SpecOf>
adasketch_status create(MPI_Comm comm, bool local, int64_t size, SpecOf spec_of, adasketch_learner** out) {
  return guarded([&] {
    require_pointer(out, "learner");
    *out = nullptr;
    Communicator c(comm);
    const LearnerSpec s = spec_of();
    auto learner = local ? make_learner(c, BlockPartition::from_local_sizes(c, size), s) : make_learner(c, size, s);
    *out = new adasketch_learner{c, std::move(learner)};
  });
}

// `algorithm`, `loss` (NULL: the default) and the blank-separated member=value pairs of `settings`
// over LearnerSpec's defaults.
LearnerSpec settings_spec(const char* algorithm, const char* loss, const char* settings) {
  require_pointer(algorithm, "algorithm");
  LearnerSpec spec;
  spec.algorithm = algorithm;
  if (loss != nullptr) spec.loss = from_string<LossKind>(loss);
  std::vector<std::string_view> given;
  for (std::string_view text = settings != nullptr ? settings : ""; !text.empty();) {
    const std::size_t begin = text.find_first_not_of(" \t\n");
    if (begin == std::string_view::npos) break;
    text.remove_prefix(begin);
    const std::string_view pair = text.substr(0, text.find_first_of(" \t\n"));
    text.remove_prefix(pair.size());
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos)
      throw InvalidArgument("settings: '" + std::string(pair) + "' is not member=value");
    const std::string_view member = pair.substr(0, equals);
    if (std::find(given.begin(), given.end(), member) != given.end())
      throw InvalidArgument("settings: hyperparameter " + std::string(member) + " given twice");
    given.push_back(member);
    set_hyperparameter(spec, member, pair.substr(equals + 1));
  }
  return spec;
}

std::size_t local_size(const adasketch_learner* l) { return static_cast<std::size_t>(l->learner->local_dim()); }

LocalRow sparse_row(int64_t nnz, const int64_t* indices, const double* values) {
  if (nnz < 0) throw InvalidArgument("nnz = " + number_text(nnz));
  if (nnz > 0) {
    require_pointer(indices, "indices");
    require_pointer(values, "values");
  }
  const auto n = static_cast<std::size_t>(nnz);
  return LocalRow::sparse(std::span<const index_t>(indices, n), std::span<const double>(values, n));
}

}  // namespace

extern "C" {

const char* adasketch_last_error(void) { return g_last_error.c_str(); }

const char* adasketch_version(void) { return adasketch::version(); }

void adasketch_spec_defaults(adasketch_spec* spec) {
  if (spec == nullptr) return;
  static const LearnerSpec d;  // it and these strings live as long as the program
  static const std::string loss = to_string(d.loss);
  *spec = adasketch_spec{};
  spec->algorithm = d.algorithm.c_str();
  spec->loss = loss.c_str();
  spec->classes = d.classes;
#define ADASKETCH_TO_C_number(member) spec->member = d.member;
#define ADASKETCH_TO_C_choice(member)                                        \
  static const std::string member##_name = to_string(d.member);             \
  spec->member = member##_name.c_str();
#define ADASKETCH_TO_C_flag(member) spec->member = d.member ? 1 : 0;
#define ADASKETCH_TO_C_list(member)                                          \
  spec->member##_count = static_cast<int64_t>(d.member.size());              \
  spec->member = d.member.empty() ? nullptr : d.member.data();
#define ADASKETCH_TO_C(kind, type, member, ...) ADASKETCH_TO_C_##kind(member)
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_TO_C)
#undef ADASKETCH_TO_C
#undef ADASKETCH_TO_C_list
#undef ADASKETCH_TO_C_flag
#undef ADASKETCH_TO_C_choice
#undef ADASKETCH_TO_C_number
}

adasketch_status adasketch_learner_create(MPI_Comm comm, int64_t dim, const adasketch_spec* spec,
                                          adasketch_learner** learner) {
  return create(comm, false, dim, [&] { return to_spec(spec); }, learner);
}

adasketch_status adasketch_learner_create_local(MPI_Comm comm, int64_t local_dim, const adasketch_spec* spec,
                                                adasketch_learner** learner) {
  return create(comm, true, local_dim, [&] { return to_spec(spec); }, learner);
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
  return create(comm, false, dim, [&] { return settings_spec(algorithm, loss, settings); }, learner);
}

adasketch_status adasketch_learner_create_settings_f(MPI_Fint comm, int64_t dim, const char* algorithm, const char* loss,
                                                     const char* settings, adasketch_learner** learner) {
  return adasketch_learner_create_settings(MPI_Comm_f2c(comm), dim, algorithm, loss, settings, learner);
}

void adasketch_learner_free(adasketch_learner* learner) { delete learner; }

adasketch_status adasketch_learner_local_range(const adasketch_learner* learner, int64_t* begin, int64_t* end) {
  return guarded([&] {
    require_pointer(learner, "learner");
    const int rank = learner->comm.rank();
    if (begin != nullptr) *begin = learner->learner->partition().begin(rank);
    if (end != nullptr) *end = learner->learner->partition().end(rank);
  });
}

adasketch_status adasketch_learner_dim(const adasketch_learner* learner, int64_t* dim) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(dim, "dim");
    *dim = learner->learner->partition().dim();
  });
}

adasketch_status adasketch_learner_outputs(const adasketch_learner* learner, int* outputs) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(outputs, "outputs");
    *outputs = learner->learner->outputs();
  });
}

adasketch_status adasketch_learner_steps(const adasketch_learner* learner, int64_t* steps) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(steps, "steps");
    *steps = learner->learner->steps();
  });
}

adasketch_status adasketch_step_dense(adasketch_learner* learner, const double* x, double label, double* loss,
                                      int* mistake) {
  return guarded([&] {
    require_pointer(learner, "learner");
    if (local_size(learner) > 0) require_pointer(x, "x");
    const StepResult r = learner->learner->step(LocalRow::dense(std::span<const double>(x, local_size(learner))), label);
    if (loss != nullptr) *loss = r.loss;
    if (mistake != nullptr) *mistake = r.mistake ? 1 : 0;
  });
}

adasketch_status adasketch_step_sparse(adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                       const double* values, double label, double* loss, int* mistake) {
  return guarded([&] {
    require_pointer(learner, "learner");
    const StepResult r = learner->learner->step(sparse_row(nnz, indices, values), label);
    if (loss != nullptr) *loss = r.loss;
    if (mistake != nullptr) *mistake = r.mistake ? 1 : 0;
  });
}

adasketch_status adasketch_step_dense_block(adasketch_learner* learner, int64_t n, const double* x,
                                            const double* labels, int64_t* mistakes) {
  return guarded([&] {
    require_pointer(learner, "learner");
    if (n < 0) throw InvalidArgument("n = " + number_text(n));
    if (n > 0) require_pointer(labels, "labels");
    const std::size_t dp = local_size(learner);
    if (n > 0 && dp > 0) require_pointer(x, "x");
    for (int64_t i = 0; i < n; ++i) {
      const double* row = dp > 0 ? x + static_cast<std::size_t>(i) * dp : x;
      const StepResult r = learner->learner->step(LocalRow::dense(std::span<const double>(row, dp)), labels[i]);
      if (mistakes != nullptr && r.mistake) ++*mistakes;
    }
  });
}

adasketch_status adasketch_predict_dense(const adasketch_learner* learner, const double* x, double* scores) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(scores, "scores");
    if (local_size(learner) > 0) require_pointer(x, "x");
    learner->learner->predict(LocalRow::dense(std::span<const double>(x, local_size(learner))),
                              std::span<double>(scores, static_cast<std::size_t>(learner->learner->outputs())));
  });
}

adasketch_status adasketch_predict_sparse(const adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                          const double* values, double* scores) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(scores, "scores");
    learner->learner->predict(sparse_row(nnz, indices, values),
                              std::span<double>(scores, static_cast<std::size_t>(learner->learner->outputs())));
  });
}

adasketch_status adasketch_weights(const adasketch_learner* learner, double* weights) {
  return guarded([&] {
    require_pointer(learner, "learner");
    const std::size_t n = local_size(learner) * static_cast<std::size_t>(learner->learner->outputs());
    if (n > 0) require_pointer(weights, "weights");
    learner->learner->weights(std::span<double>(weights, n));
  });
}

adasketch_status adasketch_save_model(const adasketch_learner* learner, const char* path) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(path, "path");
    save_model(*learner->learner, LabelMap::of_loss(learner->learner->loss()), path);
  });
}

adasketch_status adasketch_save_checkpoint(adasketch_learner* learner, const char* path) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(path, "path");
    save_checkpoint(path, *learner->learner);
  });
}

adasketch_status adasketch_load_checkpoint(adasketch_learner* learner, const char* path) {
  return guarded([&] {
    require_pointer(learner, "learner");
    require_pointer(path, "path");
    load_checkpoint(path, *learner->learner);
  });
}

adasketch_status adasketch_model_load(MPI_Comm comm, const char* path, adasketch_model** model) {
  return guarded([&] {
    require_pointer(model, "model");
    *model = nullptr;
    require_pointer(path, "path");
    *model = new adasketch_model{LinearModel::load(Communicator(comm), path)};
  });
}

adasketch_status adasketch_model_load_f(MPI_Fint comm, const char* path, adasketch_model** model) {
  return adasketch_model_load(MPI_Comm_f2c(comm), path, model);
}

void adasketch_model_free(adasketch_model* model) { delete model; }

adasketch_status adasketch_model_local_range(const adasketch_model* model, int64_t* begin, int64_t* end) {
  return guarded([&] {
    require_pointer(model, "model");
    const int rank = model->model.comm().rank();
    if (begin != nullptr) *begin = model->model.partition().begin(rank);
    if (end != nullptr) *end = model->model.partition().end(rank);
  });
}

adasketch_status adasketch_model_predict_dense(const adasketch_model* model, const double* x, double* scores) {
  return guarded([&] {
    require_pointer(model, "model");
    require_pointer(scores, "scores");
    const auto& m = model->model;
    const auto dp = static_cast<std::size_t>(m.partition().size(m.comm().rank()));
    if (dp > 0) require_pointer(x, "x");
    m.predict(LocalRow::dense(std::span<const double>(x, dp)), std::span<double>(scores, static_cast<std::size_t>(m.outputs())));
  });
}

}  // extern "C"
