"""Trains fast RFD-SON on a dense problem held as numpy arrays, each rank its own columns.

    mpirun -np 2 python3 example.py      (with the module's directory on PYTHONPATH)
"""
import numpy as np
from mpi4py import MPI

import adasketch

comm = MPI.COMM_WORLD
d, n = 200, 3000
rng = np.random.default_rng(0)  # the same rows on every rank
X = rng.standard_normal((n, d))
y = np.where(X @ np.cos(np.arange(d)) >= 0, 1.0, -1.0)

learner = adasketch.Learner("fast-rfd-son", d, comm, loss="logistic", ell=20)
begin, end = learner.local_range  # this rank's features
mistakes = learner.partial_fit(X[:, begin:end], y)
accuracy = np.mean(learner.predict(X[:, begin:end]) == y)  # collective: every rank gets all scores
if comm.rank == 0:
    print(f"{learner.name}: {mistakes} online mistakes in {n}; accuracy after one pass {accuracy:.3f}")
raise SystemExit(0 if accuracy > 0.75 else 1)  # the labels are a linear function of X
