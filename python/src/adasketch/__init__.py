"""Sketched full-matrix adaptive online learning (AdaGrad, Online Newton Step) over MPI.

- ``Learner``: the library's online learner (the compiled module ``adasketch._core``), each rank
  passing its own columns.
- ``SketchedClassifier``, ``SketchedRegressor``: scikit-learn estimators over it (docs/python.md),
  importable when scikit-learn is installed.
- ``hyperparameters()``: the hyperparameter table's rows (name, default, help), the keyword
  arguments of both, with the library's one set of defaults.
- ``local_columns(n_features, bias, comm)``: the data columns a rank passes with ``columns="local"``.
"""
from ._core import Learner, __version__, hyperparameters

__all__ = ["Learner", "SketchedClassifier", "SketchedRegressor", "hyperparameters", "local_columns", "__version__"]

_ESTIMATORS = ("SketchedClassifier", "SketchedRegressor", "local_columns")


def __getattr__(name):
    # The estimators need scikit-learn; Learner alone does not.
    if name in _ESTIMATORS:
        from . import _estimators
        return getattr(_estimators, name)
    raise AttributeError(f"module 'adasketch' has no attribute '{name}'")
