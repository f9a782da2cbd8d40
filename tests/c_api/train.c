/* The C interface end to end, at any rank count: reads a LIBSVM file (every rank the whole file,
 * keeping its own features), trains with adasketch_step_sparse, checks a checkpoint round trip, the
 * model file's scores and an error, and saves the model for run.sh to compare with the CLI's.
 * Usage: train_c DATA ALGORITHM ELL MODEL CHECKPOINT */
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
  if (argc != 6 && argc != 7) {
    fprintf(stderr, "usage: train_c DATA ALGORITHM ELL MODEL CHECKPOINT [SETTINGS]\n");
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
  if (argc == 7) snprintf(settings, sizeof settings, "ell=%s %s", argv[3], argv[6]);
  adasketch_learner *learner = NULL, *resumed = NULL;
  if (argc == 7) {
    /* A member the table lacks, and one given twice: a status naming it. */
    if (adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], NULL, "no_such=1", &none) !=
            ADASKETCH_INVALID_ARGUMENT ||
        strstr(adasketch_last_error(), "unknown hyperparameter 'no_such'") == NULL)
      return fail("an unknown hyperparameter was not refused", ADASKETCH_OK);
    if (adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], NULL, "eta=1 eta=2", &none) !=
            ADASKETCH_INVALID_ARGUMENT ||
        strstr(adasketch_last_error(), "eta given twice") == NULL)
      return fail("a hyperparameter given twice was not refused", ADASKETCH_OK);
  }
#define CREATE(out)                                                                                        \
  (argc == 7 ? adasketch_learner_create_settings(MPI_COMM_WORLD, dim, argv[2], NULL, settings, (out)) \
             : adasketch_learner_create(MPI_COMM_WORLD, dim, &spec, (out)))
  CHECK(CREATE(&learner));
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
  double* a = calloc(local + 1, sizeof(double));
  double* b = calloc(local + 1, sizeof(double));
  CHECK(adasketch_weights(learner, a));
  CHECK(adasketch_weights(resumed, b));
  int differ = memcmp(a, b, local * sizeof(double)) != 0;
  MPI_Allreduce(MPI_IN_PLACE, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (steps != n / 2 || differ) return fail("the resumed learner differs", ADASKETCH_OK);

  /* The saved model scores a dense example as the learner does: to round-off amplified by the lazy
   * form ū + Zᵀc the learner scores with (ADA-FD's c carries 1/σ_i of tiny sketch directions, about
   * 1e-8 relative here; see sketched_adagrad.hpp), the model with the explicit weights. */
  adasketch_model* model = NULL;
  CHECK(adasketch_model_load(MPI_COMM_WORLD, argv[4], &model));
  double* x = calloc(local + 1, sizeof(double));
  for (size_t j = 0; j < local; ++j) x[j] = (double)((begin + (int64_t)j) % 7) - 3.0;
  double from_learner = 0.0, from_model = 0.0;
  CHECK(adasketch_predict_dense(learner, x, &from_learner));
  CHECK(adasketch_model_predict_dense(model, x, &from_model));
  if (fabs(from_learner - from_model) > 1e-6 * (1.0 + fabs(from_learner)))
    return fail("the model file scores differently", ADASKETCH_OK);

  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("train_c: adasketch %s, %s, %d examples, %d online mistakes\n", adasketch_version(), argv[2], n, mistakes);
  adasketch_model_free(model);
  adasketch_learner_free(learner);
  adasketch_learner_free(resumed);
  free(a);
  free(b);
  free(x);
  MPI_Finalize();
  return 0;
}
