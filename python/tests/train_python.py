"""The Python module end to end, at any rank count (run under mpiexec by tests/c_api/run.sh): reads a
LIBSVM file (every rank the whole file, keeping its own columns as a scipy.sparse CSR matrix), trains
with partial_fit, checks scores, predictions, a checkpoint round trip and the errors, and saves the
model for run.sh to compare with the CLI's.

Usage: train_python.py DATA ALGORITHM ELL MODEL CHECKPOINT
"""
import sys

import numpy as np
import scipy.sparse
from mpi4py import MPI

import adasketch


def read_libsvm(path):
    labels, rows = [], []
    with open(path) as f:
        for line in f:
            tokens = line.split()
            labels.append(float(tokens[0]))
            rows.append([(int(j) - 1, float(v)) for j, v in (t.split(":") for t in tokens[1:])])
    dim = max(j for row in rows for j, _ in row) + 1
    return np.array(labels), rows, dim


def local_csr(rows, begin, end):
    indptr, indices, data = [0], [], []
    for row in rows:
        for j, v in row:
            if begin <= j < end:
                indices.append(j - begin)
                data.append(v)
        indptr.append(len(indices))
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(len(rows), end - begin))


def check(condition, what):
    if not condition:
        print(f"train_python: {what}", file=sys.stderr)
        MPI.COMM_WORLD.Abort(1)


def main():
    data, algorithm, ell, model, checkpoint = sys.argv[1:6]
    comm = MPI.COMM_WORLD
    y, rows, dim = read_libsvm(data)
    n = len(y)
    learner = adasketch.Learner(algorithm, dim, comm, ell=int(ell))
    begin, end = learner.local_range
    X = local_csr(rows, begin, end)
    half = n // 2
    mistakes = learner.partial_fit(X[:half], y[:half])
    learner.save_checkpoint(checkpoint)
    mistakes += learner.partial_fit(X[half:], y[half:])
    learner.save_model(model)

    # Restored from the checkpoint and trained on the rest: the same weights, bit for bit.
    resumed = adasketch.Learner(algorithm, dim, comm, ell=int(ell))
    resumed.load_checkpoint(checkpoint)
    check(resumed.steps == half, "the checkpoint's step count")
    resumed.partial_fit(X[half:], y[half:])
    differ = comm.allreduce(0 if np.array_equal(resumed.coef_, learner.coef_) else 1, op=MPI.MAX)
    check(differ == 0, "the resumed learner differs")

    # Scores are Wᵀx: the local coef_ against the rank's columns, summed over ranks (to round-off
    # amplified by a sketched learner's lazy weights, about 3e-9 for ada-fd here; see
    # sketched_adagrad.hpp).
    scores = learner.decision_function(X)
    partial = X @ learner.coef_
    total = np.empty_like(partial)
    comm.Allreduce(partial, total, op=MPI.SUM)
    scale = 1e-6 * max(1.0, np.max(np.abs(scores)))
    check(np.max(np.abs(scores - total)) <= scale, "decision_function is not X·coef_")
    # A dense numpy X scores as its CSR form (the same tolerance: the dense product rounds differently).
    check(np.max(np.abs(learner.decision_function(X.toarray()) - scores)) <= scale, "dense X scores differently")
    check(set(np.unique(learner.predict(X))) <= {-1.0, 1.0}, "predict returns labels other than ±1")

    # Errors are Python exceptions.
    try:
        adasketch.Learner("no-such-learner", dim, comm)
        check(False, "an unknown algorithm was not refused")
    except ValueError as e:
        check("unknown algorithm" in str(e), f"the error says {e}")
    # Hyperparameters are keyword arguments named as the table's rows (LearnerSpec's fields).
    for kwargs, says in (({"etaa": 1.0}, "unknown hyperparameter 'etaa'"),
                         ({"ell": "x"}, "hyperparameter 'ell' cannot take 'x'"),
                         ({"eta_schedule": "bogus"}, "unknown eta schedule 'bogus'")):
        try:
            adasketch.Learner(algorithm, dim, comm, **kwargs)
            check(False, f"{kwargs} was not refused")
        except ValueError as e:
            check(says in str(e), f"the error says {e}")
    check("eta_schedule = constant" in adasketch.Learner.__doc__, "the docstring lacks the defaults")
    try:
        learner.partial_fit(np.zeros((2, X.shape[1] + 1)), [1.0, -1.0])
        check(False, "a wrong number of columns was not refused")
    except ValueError:
        pass
    if comm.rank == 0:
        print(f"train_python: adasketch {adasketch.__version__}, {learner.name}, {n} examples, {mistakes} online mistakes")


if __name__ == "__main__":
    main()
