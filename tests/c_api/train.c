/* The C interface end to end, at any rank count: reads a LIBSVM file (every rank the whole file,
 * keeping its own features), trains with adasketch_step_sparse, checks a checkpoint round trip, the
 * model file's scores, labels and intercepts, and errors, and saves the model for run.sh to compare
 * with the CLI's. SETTINGS: adasketch_learner_create_settings's (e.g. "bias=1 labels=3,7"); LOSS: its
 * loss (default: the library's).
 * Usage: train_c DATA ALGORITHM ELL MODEL CHECKPOINT [SETTINGS [LOSS]] */
#include <adasketch/adasketch.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxRows = 4096, kMaxNnz = 256 };

typedef struct {
  double label;
  int64_t nnz;
  int64_t index[kMaxNnz]; /* global, 0-based */
  double value[kMaxNnz];
} row_t;

static row_t rows[kMaxRows];

static int fail(const char* what, adasketch_status s) {
  fprintf(stderr, "train_c: %s: status %d: %s\n", what, (int)s, adasketch_last_error());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return 1;
}
#define CHECK(call)                              \
  do {                                           \
    adasketch_status s_ = (call);                \
    if (s_ != ADASKETCH_OK) return fail(#call, s_); \
  } while (0)

static int read_libsvm(const char* path, int64_t* dim) {
  FILE* f = fopen(path, "r");
  char line[65536];
  int n = 0;
  if (f == NULL) return -1;
  *dim = 0;
  while (n < kMaxRows && fgets(line, sizeof line, f) != NULL) {
    char* p = line;
    row_t* r = &rows[n];
    r->label = strtod(p, &p);
    r->nnz = 0;
    for (;;) {
      char* q;
      long long j = strtoll(p, &q, 10);
      if (q == p || *q != ':' || r->nnz == kMaxNnz) break;
      r->index[r->nnz] = (int64_t)(j - 1);
      r->value[r->nnz] = strtod(q + 1, &p);
      if ((int64_t)j > *dim) *dim = (int64_t)j;
      ++r->nnz;
    }
    ++n;
  }
  fclose(f);
  return n;
}

/* This rank's entries of row r: local indices in [0, end − begin). */
static int64_t local_entries(const row_t* r, int64_t begin, int64_t end, int64_t* idx, double* val) {
  int64_t k = 0;
  for (int64_t e = 0; e < r->nnz; ++e)
    if (r->index[e] >= begin && r->index[e] < end) {
      idx[k] = r->index[e] - begin;
      val[k++] = r->value[e];
    }
  return k;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 6 || argc > 8) {
    fprintf(stderr, "usage: train_c DATA ALGORITHM ELL MODEL CHECKPOINT [SETTINGS [LOSS]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int64_t dim = 0;
  const int n = read_libsvm(argv[1], &dim);
  if (n <= 0) {
    fprintf(stderr, "train_c: cannot read %s\n", argv[1]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  adasketch_spec spec;
  adasketch_spec_defaults(&spec);
  spec.algorithm = argv[2];
  spec.ell = atoll(argv[3]);

  /* An unknown algorithm: a status and a message, on every rank. */
  adasketch_spec bad = spec;
  adasketch_learner* none = NULL;
  bad.algorithm = "no-such-learner";
  if (adasketch_learner_create(MPI_COMM_WORLD, dim, &bad, &none) != ADASKETCH_INVALID_ARGUMENT || none != NULL ||
      strstr(adasketch_last_error(), "unknown algorithm") == NULL)
    return fail("an unknown algorithm was not refused", ADASKETCH_OK);

  /* SETTINGS: the other hyperparameters by name (adasketch_learner_create_settings), "ell=ELL" first. */
  char settings[512] = "";
  if (argc >= 7) snprintf(settings, sizeof settings, "ell=%s %s", argv[3], argv[6]);
  const char* loss = argc == 8 ? argv[7] : NULL;
  adasketch_learner *learner = NULL, *resumed = NULL;
  if (argc >= 7) {
    /* A member the table lacks, and one given twice: a status naming it. */
    if (adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], NULL, "no_such=1", &none) !=
            ADASKETCH_INVALID_ARGUMENT ||
        strstr(adasketch_last_error(), "unknown hyperparameter 'no_such'") == NULL)
      return fail("an unknown hyperparameter was not refused", ADASKETCH_OK);
    if (adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], NULL, "eta=1 eta=2", &none) !=
            ADASKETCH_INVALID_ARGUMENT ||
        strstr(adasketch_last_error(), "eta given twice") == NULL)
      return fail("a hyperparameter given twice was not refused", ADASKETCH_OK);
    /* A negative bias, three labels for a binary loss, labels for regression: refused, naming why. */
    const char* refused[][3] = {{NULL, "bias=-1", "bias must be >= 0 (0: none), got -1"},
                                {"logistic", "labels=1,2,3", "the logistic loss takes 2 labels, got 3"},
                                {"squared", "labels=1,2", "the squared loss takes its labels as they are"}};
    for (int c = 0; c < 3; ++c)
      if (adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], refused[c][0], refused[c][1], &none) !=
              ADASKETCH_INVALID_ARGUMENT ||
          none != NULL || strstr(adasketch_last_error(), refused[c][2]) == NULL)
        return fail(refused[c][1], ADASKETCH_OK);
  }
#define CREATE(out)                                                                                        \
  (argc >= 7 ? adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], loss, settings, (out)) \
             : adasketch_learner_create(MPI_COMM_WORLD, dim, &spec, (out)))
  CHECK(CREATE(&learner));
  int outputs = 0;
  CHECK(adasketch_learner_outputs(learner, &outputs));
  int64_t begin, end;
  CHECK(adasketch_learner_local_range(learner, &begin, &end));
  int64_t idx[kMaxNnz];
  double val[kMaxNnz];
  int mistakes = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t k = local_entries(&rows[i], begin, end, idx, val);
    int mistake = 0;
    CHECK(adasketch_step_sparse(learner, k, idx, val, rows[i].label, NULL, &mistake));
    mistakes += mistake;
    if (i + 1 == n / 2) CHECK(adasketch_save_checkpoint(learner, argv[5]));
  }
  CHECK(adasketch_save_model(learner, argv[4]));

  /* A label that is not one of the learner's (none takes 0.5 here): refused, on every rank, and
   * nothing learned. */
  int64_t before = 0, after = 0;
  CHECK(adasketch_learner_steps(learner, &before));
  if (adasketch_step_sparse(learner, 0, idx, val, 0.5, NULL, NULL) != ADASKETCH_INVALID_ARGUMENT ||
      strstr(adasketch_last_error(), "label 0.5 is not one of the learner's labels") == NULL)
    return fail("a label outside the learner's was not refused", ADASKETCH_OK);
  CHECK(adasketch_learner_steps(learner, &after));
  if (after != before) return fail("a refused label was learned", ADASKETCH_OK);

  /* With a bias, a learner without one cannot take the checkpoint: an input error naming the bias. */
  if (strstr(settings, "bias=") != NULL) {
    adasketch_learner* plain = NULL;
    CHECK(adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], loss, "", &plain));
    if (adasketch_load_checkpoint(plain, argv[5]) != ADASKETCH_INPUT_ERROR ||
        strstr(adasketch_last_error(), "written with bias") == NULL)
      return fail("a checkpoint with a bias was restored into a learner without one", ADASKETCH_OK);
    adasketch_learner_free(plain);
  }

  /* The checkpoint after n/2 examples, restored into a new learner and trained on the rest: the
   * same weights, bit for bit. */
  CHECK(CREATE(&resumed));
  CHECK(adasketch_load_checkpoint(resumed, argv[5]));
  int64_t steps = 0;
  CHECK(adasketch_learner_steps(resumed, &steps));
  for (int64_t i = steps; i < n; ++i) {
    const int64_t k = local_entries(&rows[i], begin, end, idx, val);
    CHECK(adasketch_step_sparse(resumed, k, idx, val, rows[i].label, NULL, NULL));
  }
  const size_t local = (size_t)(end - begin);
  double* a = calloc(local * (size_t)outputs + 1, sizeof(double));
  double* b = calloc(local * (size_t)outputs + 1, sizeof(double));
  CHECK(adasketch_weights(learner, a));
  CHECK(adasketch_weights(resumed, b));
  int differ = memcmp(a, b, local * (size_t)outputs * sizeof(double)) != 0;
  MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (steps != n / 2 || differ) return fail("the resumed learner differs", ADASKETCH_OK);

  /* The saved model scores a dense example as the learner does: to round-off amplified by the lazy
   * form ū + Zᵀc the learner scores with (ADA-FD's c carries 1/σ_i of tiny sketch directions, about
   * 1e-8 relative here; see sketched_adagrad.hpp), the model with the explicit weights. The same
   * bound for the intercepts (the learner's from its weights, the model's from the file). */
  adasketch_model* model = NULL;
  CHECK(adasketch_model_load(MPI_COMM_WORLD, argv[4], &model));
  int64_t model_begin = -1, model_end = -1;
  CHECK(adasketch_model_local_range(model, &model_begin, &model_end));
  if (model_begin != begin || model_end != end) return fail("the model's data features differ", ADASKETCH_OK);
  double* x = calloc(local + 1, sizeof(double));
  double *from_learner = calloc((size_t)outputs, sizeof(double)), *from_model = calloc((size_t)outputs, sizeof(double));
  for (size_t j = 0; j < local; ++j) x[j] = (double)((begin + (int64_t)j) % 7) - 3.0;
  CHECK(adasketch_predict_dense(learner, x, from_learner));
  CHECK(adasketch_model_predict_dense(model, x, from_model));
  for (int k = 0; k < outputs; ++k)
    if (fabs(from_learner[k] - from_model[k]) > 1e-6 * (1.0 + fabs(from_learner[k])))
      return fail("the model file scores differently", ADASKETCH_OK);
  CHECK(adasketch_intercept(learner, from_learner));
  CHECK(adasketch_model_intercept(model, from_model));
  for (int k = 0; k < outputs; ++k)
    if (fabs(from_learner[k] - from_model[k]) > 1e-6 * (1.0 + fabs(from_learner[k])) ||
        (strstr(settings, "bias=") == NULL && from_learner[k] != 0.0))
      return fail("the model file's intercept differs", ADASKETCH_OK);

  /* Predicted labels, in the data's labels: the learner's (sparse rows) and the model's (the same rows
   * dense) agree with each other on every training row whose scores are not within the bound above of
   * a tie, and each is one of the training labels. */
  int disagree = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t k = local_entries(&rows[i], begin, end, idx, val);
    memset(x, 0, (local + 1) * sizeof(double));
    for (int64_t e = 0; e < k; ++e) x[idx[e]] = val[e];
    double by_learner = 0.0, by_model = 0.0;
    CHECK(adasketch_predict_label_sparse(learner, k, idx, val, &by_learner));
    CHECK(adasketch_model_predict_label_dense(model, x, &by_model));
    CHECK(adasketch_model_predict_dense(model, x, from_model));
    double lo = from_model[0], hi = from_model[0], second = -INFINITY;
    for (int c = 1; c < outputs; ++c) {
      if (from_model[c] > hi) { second = hi; hi = from_model[c]; } else if (from_model[c] > second) second = from_model[c];
      if (from_model[c] < lo) lo = from_model[c];
    }
    const double margin = outputs == 1 ? fabs(hi) : hi - second;
    int known = 0;
    for (int j = 0; j < n && !known; ++j) known = rows[j].label == by_learner;
    if (!known || (by_learner != by_model && margin > 1e-6 * (1.0 + fabs(hi) + fabs(lo)))) disagree = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &disagree, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (disagree) return fail("a predicted label is not the model's, or not a training label", ADASKETCH_OK);

  /* --auto: the race (150 of the 400 examples in run.sh) is over. */
  if (strstr(settings, "auto_tune=true") != NULL) {
    int decided = 0;
    double eta = 0.0, alpha0 = 0.0;
    CHECK(adasketch_learner_auto(learner, &decided, &eta, &alpha0));
    if (!decided || !(eta > 0.0)) return fail("the --auto race is not over", ADASKETCH_OK);
  } else if (adasketch_learner_auto(learner, NULL, NULL, NULL) != ADASKETCH_INVALID_ARGUMENT) {
    return fail("a learner without --auto told a race", ADASKETCH_OK);
  }

  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("train_c: adasketch %s, %s, %d examples, %d online mistakes\n", adasketch_version(), argv[2], n, mistakes);
  adasketch_model_free(model);
  adasketch_learner_free(learner);
  adasketch_learner_free(resumed);
  free(a);
  free(b);
  free(x);
  free(from_learner);
  free(from_model);
  MPI_Finalize();
  return 0;
}
