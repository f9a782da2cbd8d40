/** @file
 * adasketch's C interface (for C codes, and for Fortran through the adasketch module).
 *
 * Opaque handles; every call returns an adasketch_status, and adasketch_last_error() the message of
 * the calling thread's last failed call. A learner lives on the caller's communicator (a Fortran code
 * passes its handle to the *_f variants, which convert it with MPI_Comm_f2c); calls marked
 * "collective" must be made by every rank of it, in the same order. Errors of collective calls are
 * detected identically on every rank (bad specs and sizes, files, diverging models), so every rank
 * returns the same status; a NULL pointer where data is needed is reported by the rank that passed it
 * alone (a programming error: the other ranks may then wait in the collective).
 *
 * Each rank passes its own block of an example's features: local features [begin, end) of
 * adasketch_learner_local_range, dense (end − begin values) or sparse (ascending local indices).
 * With a bias B > 0 (`adasketch train --bias B`) the learner has one more feature, the constant B,
 * which the library appends: the caller passes only the data's features, and reads the intercept with
 * adasketch_intercept. Labels are the caller's own when the learner is given them (`labels`: the two
 * labels of a binary loss, negative first, or the K classes of softmax, ascending), else they follow
 * the loss: ±1 for binary losses, 0 … K−1 for softmax, any real for regression. */
#ifndef ADASKETCH_ADASKETCH_H
#define ADASKETCH_ADASKETCH_H

#include <mpi.h>
#include <stdint.h>

#include "adasketch/learners/hyperparameter_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What every call returns: ADASKETCH_OK, or the kind of error (the C++ exception it maps). */
typedef enum adasketch_status {
  ADASKETCH_OK = 0,               /**< success */
  ADASKETCH_INVALID_ARGUMENT = 1, /**< a violated condition on an argument */
  ADASKETCH_INPUT_ERROR = 2,      /**< a missing, foreign or corrupt file */
  ADASKETCH_NUMERIC_ERROR = 3,    /**< a non-finite score, loss or weight */
  ADASKETCH_MPI_ERROR = 4,        /**< an MPI call failed */
  ADASKETCH_LAPACK_ERROR = 5,     /**< a LAPACK or ScaLAPACK routine failed */
  ADASKETCH_ERROR = 6             /**< anything else (I/O, memory) */
} adasketch_status;

/** The message of the calling thread's last failed call; "" when the last call succeeded. */
const char* adasketch_last_error(void);
/** "MAJOR.MINOR.PATCH". */
const char* adasketch_version(void);

/* The fields of adasketch_spec by the table's kinds (described at adasketch_spec). */
#define ADASKETCH_SPEC_FIELD_number(type, member) type member;
#define ADASKETCH_SPEC_FIELD_choice(type, member) const char* member;
#define ADASKETCH_SPEC_FIELD_flag(type, member) int member;
#define ADASKETCH_SPEC_FIELD_list(type, member) \
  int64_t member##_count;                       \
  const double* member;
#define ADASKETCH_SPEC_FIELD(kind, type, member, ...) ADASKETCH_SPEC_FIELD_##kind(type, member)
/** A learner's hyperparameters (make_learner's C++ LearnerSpec), bias and labels. Its fields: the algorithm (ada-diag,
 * ada-fd, fast-ada-fd, ada-gp, ada-dp and their -da forms, fd-son, fast-fd-son, rp-son, oja-son, rfd-son,
 * fast-rfd-son, comp-adagrad, comp-adagrad-da; with ScaLAPACK ada-full, ada-full-da, full-on), the loss
 * (squared, absolute, logistic, hinge, squared-hinge, softmax), K for softmax, the bias B (≥ 0; 0: none) and
 * the caller's labels (a count and ascending values; 0: the loss's own; with softmax K is their count),
 * then one field per row of
 * the hyperparameter table (adasketch/learners/hyperparameter_table.h: each one's meaning, range and
 * default), in its order and named by its member: a number as its type (e.g. `double eta`), a choice as
 * its name (e.g. `const char* form`, "auto"), a flag as an int (nonzero: on), a list as a count and its
 * values (e.g. `int64_t oja_gamma_count; const double* oja_gamma`). Strings and lists are copied by the
 * create calls.
 * Fill it with adasketch_spec_defaults, then set what differs. */
typedef struct adasketch_spec {
  const char* algorithm; /**< the algorithm's name, e.g. "ada-fd" */
  const char* loss;      /**< the loss's name, e.g. "logistic" */
  int classes;           /**< K for the softmax loss */
  double bias;           /**< B > 0: every example gets the constant feature B (the intercept's); 0: none */
  int64_t labels_count;  /**< how many labels: 2 (binary losses), K (softmax), 0 (the loss's own) */
  const double* labels;  /**< the caller's labels, ascending: binary −1, +1 or softmax 0 … K−1 stand for them */
  ADASKETCH_HYPERPARAMETERS(ADASKETCH_SPEC_FIELD)
} adasketch_spec;
#undef ADASKETCH_SPEC_FIELD
#undef ADASKETCH_SPEC_FIELD_list
#undef ADASKETCH_SPEC_FIELD_flag
#undef ADASKETCH_SPEC_FIELD_choice
#undef ADASKETCH_SPEC_FIELD_number

/** Local. Fills *spec with the library's defaults (the same as the C++ options structs and
 * `adasketch train`). */
void adasketch_spec_defaults(adasketch_spec* spec);

/** A learner (opaque): created by the adasketch_learner_create calls, freed by adasketch_learner_free. */
typedef struct adasketch_learner adasketch_learner;

/** Collective. d features (the data's: a bias feature comes on top) split uniformly over the ranks of
 * comm, as `adasketch train` splits them; *learner receives the new learner. */
adasketch_status adasketch_learner_create(MPI_Comm comm, int64_t dim, const adasketch_spec* spec,
                                          adasketch_learner** learner);
/** Collective. The caller's split: this rank owns local_dim data features, after those of the lower
 * ranks (a bias feature goes to the rank that holds the last one). */
adasketch_status adasketch_learner_create_local(MPI_Comm comm, int64_t local_dim, const adasketch_spec* spec,
                                                adasketch_learner** learner);
/** Collective. adasketch_learner_create, and adasketch_learner_create_local, with a Fortran
 * communicator handle. */
/**@{*/
adasketch_status adasketch_learner_create_f(MPI_Fint comm, int64_t dim, const adasketch_spec* spec,
                                            adasketch_learner** learner);
adasketch_status adasketch_learner_create_local_f(MPI_Fint comm, int64_t local_dim, const adasketch_spec* spec,
                                                  adasketch_learner** learner);
/**@}*/
/** Collective. The same with the hyperparameters as text: `settings` holds member=value pairs
 * separated by blanks (members as in adasketch_spec, and classes; values as `adasketch train` writes
 * them, e.g. "ell=20 eta=0.5 eta_schedule=inv-t diag_rescale=true oja_gamma=1,0.5 bias=1 labels=3,7")
 * over the defaults; loss NULL is the default loss, settings NULL or "" keeps every default. An unknown
 * member, a member given twice or a value not of its type is ADASKETCH_INVALID_ARGUMENT. The Fortran
 * module creates its learners with it. */
/**@{*/
adasketch_status adasketch_learner_create_settings(MPI_Comm comm, int64_t dim, const char* algorithm, const char* loss,
                                                   const char* settings, adasketch_learner** learner);
adasketch_status adasketch_learner_create_settings_f(MPI_Fint comm, int64_t dim, const char* algorithm,
                                                     const char* loss, const char* settings,
                                                     adasketch_learner** learner);
/**@}*/
/** Local. Frees the learner (NULL is allowed). */
void adasketch_learner_free(adasketch_learner* learner);

/** Local. This rank's data features [*begin, *end), the data's d, the scores per example K and the steps
 * so far. */
/**@{*/
adasketch_status adasketch_learner_local_range(const adasketch_learner* learner, int64_t* begin, int64_t* end);
adasketch_status adasketch_learner_dim(const adasketch_learner* learner, int64_t* dim);
adasketch_status adasketch_learner_outputs(const adasketch_learner* learner, int* outputs);
adasketch_status adasketch_learner_steps(const adasketch_learner* learner, int64_t* steps);
/**@}*/

/** Local. A learner created with auto_tune (`adasketch train --auto`): whether its race is over
 * (*decided, 1 or 0) and the η and α of the candidate it chose, or leads with while racing (any
 * pointer may be NULL). ADASKETCH_INVALID_ARGUMENT for a learner without auto_tune. */
adasketch_status adasketch_learner_auto(const adasketch_learner* learner, int* decided, double* eta, double* alpha0);

/** Collective. One online step on an example, dense (x: this rank's end − begin values) or sparse
 * (nnz ascending local indices and their values); its loss before the update and whether it was a
 * mistake go to *loss and *mistake when they are not NULL. A label that is not one of the learner's is
 * ADASKETCH_INVALID_ARGUMENT. */
/**@{*/
adasketch_status adasketch_step_dense(adasketch_learner* learner, const double* x, double label, double* loss,
                                      int* mistake);
adasketch_status adasketch_step_sparse(adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                       const double* values, double label, double* loss, int* mistake);
/**@}*/
/** Collective. n examples in order: x is n × (end − begin), row-major; adds to *mistakes when not NULL. */
adasketch_status adasketch_step_dense_block(adasketch_learner* learner, int64_t n, const double* x,
                                            const double* labels, int64_t* mistakes);

/** Collective. The K scores of an example (dense or sparse, as for a step) under the current weights. */
/**@{*/
adasketch_status adasketch_predict_dense(const adasketch_learner* learner, const double* x, double* scores);
adasketch_status adasketch_predict_sparse(const adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                          const double* values, double* scores);
/**@}*/
/** Collective. The label predicted for an example (dense or sparse, as for a step), in the caller's
 * labels: binary, the positive one when the score is > 0; softmax, the class of the largest score;
 * regression, the score. */
/**@{*/
adasketch_status adasketch_predict_label_dense(const adasketch_learner* learner, const double* x, double* label);
adasketch_status adasketch_predict_label_sparse(const adasketch_learner* learner, int64_t nnz, const int64_t* indices,
                                                const double* values, double* label);
/**@}*/
/** Local. This rank's rows of W: weights[j·K + k] = W[begin + j, k], (end − begin)·K values (the
 * data's features; the bias feature's row is in adasketch_intercept). */
adasketch_status adasketch_weights(const adasketch_learner* learner, double* weights);
/** Collective. The K intercepts B·W[d, k] (zeros without a bias), the same on every rank. */
adasketch_status adasketch_intercept(const adasketch_learner* learner, double* intercept);

/** Collective. A model file of the current weights, with the bias and the labels (readable by
 * `adasketch predict` at any rank count). */
adasketch_status adasketch_save_model(const adasketch_learner* learner, const char* path);
/** Collective. The learner's complete state after adasketch_learner_steps() examples, and its
 * restoration into a learner created with the same spec, bias, labels and d (at any rank count; a
 * mismatch is ADASKETCH_INPUT_ERROR and leaves the learner as it was). */
/**@{*/
adasketch_status adasketch_save_checkpoint(adasketch_learner* learner, const char* path);
adasketch_status adasketch_load_checkpoint(adasketch_learner* learner, const char* path);
/**@}*/

/** A model file read back (opaque): scores for new examples. */
typedef struct adasketch_model adasketch_model;
/** Collective. Reads the model file at `path` (written at any rank count), its rows split uniformly
 * over comm (a C, or a Fortran, communicator). */
/**@{*/
adasketch_status adasketch_model_load(MPI_Comm comm, const char* path, adasketch_model** model);
adasketch_status adasketch_model_load_f(MPI_Fint comm, const char* path, adasketch_model** model);
/**@}*/
/** Local. Frees the model (NULL is allowed). */
void adasketch_model_free(adasketch_model* model);
/** Local. This rank's data features [*begin, *end) of the model (a bias feature is appended by the
 * library, as for a learner). */
adasketch_status adasketch_model_local_range(const adasketch_model* model, int64_t* begin, int64_t* end);
/** Collective. The K scores of a dense example (this rank's end − begin values) under the model. */
adasketch_status adasketch_model_predict_dense(const adasketch_model* model, const double* x, double* scores);
/** Collective. The label the model predicts for a dense example, in the training data's labels. */
adasketch_status adasketch_model_predict_label_dense(const adasketch_model* model, const double* x, double* label);
/** Collective. The model's K intercepts (zeros without a bias), the same on every rank. */
adasketch_status adasketch_model_intercept(const adasketch_model* model, double* intercept);

#ifdef __cplusplus
}
#endif

#endif /* ADASKETCH_ADASKETCH_H */
