"""The estimators under mpirun -np P (P = 1, 2, 3): every rank passes the full rows, or only its own
columns (adasketch.local_columns), and gets the same predictions, scores, coef_ and intercept_ as
every other rank (bit for bit) and as one process (the same estimator on MPI.COMM_SELF, computed on
each rank) to round-off: |Δscore| ≤ 1e-6·max(1, max|score|) (the learners' sums over ranks round
differently at another rank count, and an online learner carries that through its steps; ada-fd's
lazy weights amplify it to about 3e-9 here, python/tests/train_python.py). A pickled estimator
continues partial_fit exactly at P ranks too.

Usage: mpirun -np P test_estimators_mpi.py DATA_DIR   (reads a slice of a9a.gz)
"""
import os
import pickle
import sys

import numpy as np
from mpi4py import MPI
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

import adasketch
from adasketch import SketchedClassifier, SketchedRegressor
from libsvm_data import read_libsvm_gz  # (python/tests)

comm = MPI.COMM_WORLD
BOUND = 1e-6
failures = 0


def check(condition, what):
    global failures
    bad = comm.allreduce(0 if condition else 1, op=MPI.MAX)
    if bad:
        failures += 1
        if comm.rank == 0 or not condition:
            print(f"test_estimators_mpi (rank {comm.rank} of {comm.size}): FAILED: {what}", file=sys.stderr)


def same_on_every_rank(*arrays):
    """Whether the arrays' bytes are rank 0's on every rank."""
    mine = pickle.dumps([np.asarray(a) for a in arrays])
    return comm.bcast(mine, root=0) == mine


def scores_of(est, X):
    return est.decision_function(X) if isinstance(est, SketchedClassifier) else est.predict(X)


def compare(name, make, X, y):
    full = make(comm=None).fit(X, y)  # None: COMM_WORLD
    begin, end = adasketch.local_columns(X.shape[1], full.bias, comm)
    local = make(comm=comm, columns="local").fit(X[:, begin:end], y)
    single = make(comm=MPI.COMM_SELF).fit(X, y)  # one process, on each rank
    s_full, s_local, s_single = scores_of(full, X), scores_of(local, X[:, begin:end]), scores_of(single, X)
    check(same_on_every_rank(s_full, full.predict(X), full.coef_, full.intercept_, full.score(X, y)),
          f"{name}: not the same on every rank")
    check(np.array_equal(s_full, s_local) and np.array_equal(full.coef_, local.coef_)
          and np.array_equal(full.intercept_, local.intercept_), f"{name}: local columns differ from full rows")
    scale = BOUND * max(1.0, np.abs(s_single).max())
    gap = np.abs(s_full - s_single).max()
    check(gap <= scale, f"{name}: scores differ from one process's by {gap:.3g} > {scale:.3g}")
    w_gap = np.abs(full.coef_ - single.coef_).max()
    check(w_gap <= BOUND * max(1.0, np.abs(single.coef_).max()), f"{name}: coef_ differs from one process's by {w_gap:.3g}")
    sure = np.abs(s_single) > scale
    if isinstance(full, SketchedClassifier):  # the labels of the scores not within round-off of a tie
        if s_single.ndim == 2:
            top = np.sort(s_single, axis=1)
            sure = top[:, -1] - top[:, -2] > 2 * scale
        check(np.array_equal(full.predict(X)[sure], single.predict(X)[sure]), f"{name}: predictions differ")
    check(abs(full.score(X, y) - single.score(X, y)) <= 1e-6, f"{name}: score differs")
    # Pickled at P ranks (every rank), it continues partial_fit exactly.
    half = X.shape[0] // 2
    a = make(comm=None).partial_fit(X[:half], y[:half])
    b = pickle.loads(pickle.dumps(a))
    a.partial_fit(X[half:], y[half:])
    b.partial_fit(X[half:], y[half:])
    check(np.array_equal(a.coef_, b.coef_) and np.array_equal(scores_of(a, X), scores_of(b, X)),
          f"{name}: the unpickled estimator does not continue exactly")
    # With a communicator given: clone (a copy is the same communicator) and a grid search, whose
    # best estimator is the same on every rank.
    check(clone(local).comm is comm and clone(make(comm=MPI.COMM_SELF)).comm is MPI.COMM_SELF, f"{name}: clone's comm")
    grid = GridSearchCV(make(comm=comm, columns="local"), {"eta": [0.05, 0.5]}, cv=2).fit(X[:, begin:end], y)
    check(same_on_every_rank(grid.best_params_["eta"], grid.predict(X[:, begin:end])), f"{name}: grid search differs by rank")
    scores = full.score(X, y), single.score(X, y)  # (collective: on every rank)
    if comm.rank == 0:
        print(f"test_estimators_mpi: {name} at {comm.size} rank(s): score {scores[0]:.4f}, "
              f"one process's {scores[1]:.4f}, max |Δscore| {gap:.2g}")


def main():
    X, y = read_libsvm_gz(os.path.join(sys.argv[1], "a9a.gz"), 400, dim=123)
    rng = np.random.default_rng(0)  # the same rows on every rank
    D = rng.standard_normal((300, 17))
    classes = np.array(["x", "y", "z"])[np.argmax(D[:, :3] + 0.1 * rng.standard_normal((300, 3)), axis=1)]
    target = D @ np.linspace(-1, 1, 17) + 0.3
    compare("fast-rfd-son logistic, a9a CSR", lambda **kw: SketchedClassifier(algorithm="fast-rfd-son", ell=10, **kw), X, y)
    compare("ada-fd softmax, dense, 3 classes", lambda **kw: SketchedClassifier(algorithm="ada-fd", ell=5, **kw), D, classes)
    compare("rfd-son squared, dense regression",
            lambda **kw: SketchedRegressor(algorithm="rfd-son", ell=5, eta=0.05, max_iter=2, **kw), D, target)
    # d = 2 with the bias: at 3 ranks one feature each, the last rank's the bias alone.
    compare("ada-diag logistic, d = 2", lambda **kw: SketchedClassifier(algorithm="ada-diag", **kw), D[:, :2],
            np.where(D[:, 0] - D[:, 1] > 0.2, 1, 0))
    if failures:
        return 1
    if comm.rank == 0:
        print("test_estimators_mpi: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
