"""scikit-learn estimators over adasketch.Learner (issue 26; docs/python.md).

The hyperparameters are keyword arguments named and defaulted as the library's hyperparameter table
(``adasketch.hyperparameters()``, read from the compiled module: never retyped here), next to the
estimator's own parameters (ESTIMATOR_PARAMETERS). The bias is the CLI's ``--bias B``: the constant B
appended to every example as feature d, so the learner has d + 1 features and ``intercept_`` is
B·w_d. Under ``mpirun -np P`` every rank makes the same calls (fit, predict, pickling: they are
collective) with the same rows, either all d columns (``columns="full"``: each rank keeps its block)
or only its own block of the data's columns (``columns="local"``: ``local_columns`` says which);
predictions, scores, ``coef_`` and ``intercept_`` are the same on every rank.
"""
import copyreg
import inspect

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_array
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_consistent_length, check_is_fitted, column_or_1d

from . import _core

# The hyperparameter table's rows: (name, default, help), in the table's order.
HYPERPARAMETERS = tuple(_core.hyperparameters())

# The estimators' own parameters, before the table's: (name, classifier's default, regressor's default).
ESTIMATOR_PARAMETERS = (
    ("algorithm", _core.default_algorithm, _core.default_algorithm),
    # auto: logistic for two classes, softmax for more
    ("loss", "auto", "squared"),
    # the CLI's --bias B (0: none); 1.0 here, as scikit-learn's linear models fit an intercept
    ("bias", 1.0, 1.0),
    # passes over the data in fit (partial_fit: one)
    ("max_iter", 1, 1),
    # an mpi4py communicator; None: MPI_COMM_WORLD (no mpi4py needed)
    ("comm", None, None),
    # "full": X has all d columns on every rank; "local": only this rank's (local_columns)
    ("columns", "full", "full"),
)

_CLASSIFIER_LOSSES = ("auto", "logistic", "hinge", "squared-hinge", "softmax", "squared")
_REGRESSOR_LOSSES = ("squared", "absolute")


def _signature(which):
    """__init__'s signature: self, then keyword-only parameters with their defaults."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [inspect.Parameter(p[0], inspect.Parameter.KEYWORD_ONLY, default=p[which])
                   for p in ESTIMATOR_PARAMETERS]
    parameters += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default)
                   for name, default, _ in HYPERPARAMETERS]
    return inspect.Signature(parameters)


def _parameter_doc():
    return "\n".join(f"    {name} = {default!r}: {help}" for name, default, help in HYPERPARAMETERS)


def local_columns(n_features, bias=1.0, comm=None):
    """[begin, end): the data columns this rank passes with columns="local", of n_features (d), when
    the learner splits the d (+ 1 with a bias) features into uniform blocks. Collective only in
    name (it reads comm's rank and size)."""
    dim = int(n_features) + (1 if bias > 0 else 0)
    begin, end = _core.block_range(dim, comm)
    return min(begin, int(n_features)), min(end, int(n_features))


# An mpi4py communicator is a handle: scikit-learn's clone deep-copies parameters, which mpi4py's
# communicators refuse (they cannot be pickled). Registered for their type once an estimator is given
# one, a copy is the same communicator: COMM_WORLD and COMM_SELF by name, any other by a reference
# valid in this process.
_COMMUNICATORS = {}


def _predefined_communicator(name):
    from mpi4py import MPI
    return getattr(MPI, name)


def _communicator_reference(key):
    return _COMMUNICATORS[key]


def _reduce_communicator(comm):
    from mpi4py import MPI
    for name in ("COMM_WORLD", "COMM_SELF"):
        if comm == getattr(MPI, name):
            return _predefined_communicator, (name,)
    _COMMUNICATORS[id(comm)] = comm
    return _communicator_reference, (id(comm),)


def _copyable_communicator(comm):
    if comm is not None and type(comm) not in copyreg.dispatch_table:
        copyreg.pickle(type(comm), _reduce_communicator)


def _plain(value):
    """numpy scalars (a grid search's values) as Python's, as the module's keywords take them."""
    return value.item() if isinstance(value, np.generic) else value


class _SketchedEstimator(BaseEstimator):
    """What both estimators share: the learner, its input, pickling (see the module's description)."""

    def __init__(self, **parameters):
        signature = type(self).__init__.__signature__
        unknown = set(parameters) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{type(self).__name__}: unknown parameter(s) {', '.join(sorted(unknown))}")
        for name, p in signature.parameters.items():
            if name != "self":
                setattr(self, name, parameters.get(name, p.default))
        _copyable_communicator(parameters.get("comm"))

    def set_params(self, **params):
        _copyable_communicator(params.get("comm"))
        return super().set_params(**params)

    # --- the learner -----------------------------------------------------------------------------
    def _learner_loss(self):
        return self.loss

    def _outputs(self):
        return 1

    def _check_parameters(self):
        """The estimator's own parameters (the learner checks the table's)."""
        if self.columns not in ("full", "local"):
            raise ValueError(f"columns must be 'full' or 'local', got {self.columns!r}")
        if not (np.isfinite(self.bias) and self.bias >= 0):
            raise ValueError(f"bias must be >= 0 (0: none), got {self.bias!r}")
        if int(self.max_iter) < 1:
            raise ValueError(f"max_iter must be >= 1, got {self.max_iter!r}")

    def _new_learner(self):
        hyperparameters = {name: _plain(getattr(self, name)) for name, _, _ in HYPERPARAMETERS}
        outputs = self._outputs()
        return _core.Learner(self.algorithm, self._dim, self.comm, loss=self._learner_loss(),
                             classes=max(outputs, 2), **hyperparameters)

    def _learner(self):
        """The learner, rebuilt from an unpickled checkpoint on first use (collective then)."""
        # (_model and _checkpoint are not set by __init__, which sets the parameters only)
        if getattr(self, "_model", None) is None:
            self._model = self._new_learner()
            if getattr(self, "_checkpoint", None) is not None:
                self._model.restore_checkpoint_bytes(self._checkpoint)
                self._checkpoint = None
        return self._model

    # --- input -----------------------------------------------------------------------------------
    def _check_X(self, X, reset):
        """X as float64 dense or sorted CSR; on reset, the fitted layout (_columns, _bias, _dim),
        which set_params changes at the next fit only."""
        if reset:
            self._columns, self._bias = self.columns, float(self.bias)
        if self._columns == "full":
            X = self._validate_data(X, accept_sparse="csr", dtype=np.float64, reset=reset)
            d = X.shape[1]
        else:
            # (a rank may own no data column: d small, or only the bias feature)
            X = check_array(X, accept_sparse="csr", dtype=np.float64, ensure_min_features=0)
            d = _core.allreduce_sum(X.shape[1], self.comm)
            if reset:
                self.n_features_in_ = d
            elif d != self.n_features_in_:
                raise ValueError(f"X has {d} features, but {type(self).__name__} is expecting "
                                 f"{self.n_features_in_} features as input.")
            begin, end = local_columns(d, self._bias, self.comm)
            if X.shape[1] != end - begin:
                raise ValueError(f"X has {X.shape[1]} columns on this rank, which owns the data columns "
                                 f"[{begin}, {end}) (adasketch.local_columns)")
        if scipy.sparse.issparse(X) and not X.has_sorted_indices:
            X = X.sorted_indices()
        if reset:
            self._dim = d + (1 if self._bias > 0 else 0)
        return X

    def _local(self, X):
        """This rank's columns of [X, B] (the learner's block)."""
        d = self.n_features_in_
        begin, end = self._learner().local_range
        if self._columns == "full":
            X = X[:, begin:min(end, d)]
        if end > d:  # this rank owns the bias feature
            column = np.full((X.shape[0], 1), self._bias)
            X = (scipy.sparse.hstack([X, scipy.sparse.csr_matrix(column)], format="csr")
                 if scipy.sparse.issparse(X) else np.hstack([X, column]))
        return X

    # --- fitting ---------------------------------------------------------------------------------
    def _start(self, X, y, classes):
        """Resets the fitted state to a new learner for X's columns (and y's or the given classes)."""
        self._check_parameters()
        X = self._check_X(X, reset=True)
        self._set_targets(y, classes)
        self._model, self._checkpoint = None, None
        self.n_iter_ = 0
        self._learner()
        return X

    def _steps(self, X, y, passes):
        targets = self._targets(y)
        local = self._local(X)
        for _ in range(passes):
            self._learner().partial_fit(local, targets)
            self.n_iter_ += 1
        self.t_ = self._learner().steps
        # auto_tune: the race (what it chose: candidates[chosen]); None without it
        self.auto_race_ = self._learner().auto_race()
        self._publish_weights()
        return self

    def _fit(self, X, y, classes=None):
        X, y = self._check_X_y(X, y)
        X = self._start(X, y, classes)
        return self._steps(X, y, int(self.max_iter))

    def _partial_fit(self, X, y, classes=None):
        X, y = self._check_X_y(X, y)
        if not hasattr(self, "n_iter_"):
            X = self._start(X, y, classes)
        else:
            X = self._check_X(X, reset=False)
            self._check_classes(classes)
        return self._steps(X, y, 1)

    def _check_X_y(self, X, y):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        y = column_or_1d(y, warn=True)
        check_consistent_length(X, y)
        return X, y

    def _check_classes(self, classes):
        pass

    def _publish_weights(self):
        """coef_ and intercept_ from all of W (d + 1 rows with a bias, K columns): on every rank."""
        W = self._learner().global_coef().reshape(self._dim, -1)
        d = self.n_features_in_
        bias_row = W[d] * self._bias if self._bias > 0 else np.zeros(W.shape[1])
        self._set_weights(W[:d].T.copy(), bias_row)

    # --- prediction ------------------------------------------------------------------------------
    def _scores(self, X):
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        return self._learner().decision_function(self._local(X))

    def save_model(self, path):
        """Collective. The model file of `adasketch train --model` (docs/formats.md), with the bias and
        the label map, for `adasketch predict` and the C, Fortran and Python model readers."""
        check_is_fitted(self)
        self._learner().save_model(path, bias=self._bias, labels=self._model_labels())

    def _model_labels(self):
        return None

    # --- pickling --------------------------------------------------------------------------------
    def __getstate__(self):
        """The parameters, the fitted attributes and the learner's checkpoint bytes (collective for a
        fitted estimator: under mpirun every rank pickles). A communicator is not kept: an unpickled
        estimator runs on MPI_COMM_WORLD unless given another with set_params(comm=...)."""
        state = super().__getstate__()
        state = dict(state)
        if state.get("_model") is not None:
            state["_checkpoint"] = state["_model"].checkpoint_bytes()
        state["_model"] = None
        state["comm"] = None
        return state

    def _more_tags(self):
        return {"_xfail_checks": _XFAIL_CHECKS}


_XFAIL_CHECKS = {}


def _make_init(which):
    def __init__(self, **parameters):
        _SketchedEstimator.__init__(self, **parameters)
    __init__.__signature__ = _signature(which)
    return __init__


class SketchedClassifier(ClassifierMixin, _SketchedEstimator):
    """A linear classifier trained online by an adasketch learner (any labels; classes_ sorted).

    loss: auto (logistic for two classes, softmax for more), logistic, hinge, squared-hinge,
    squared (least squares on ±1) or softmax. predict_proba: logistic and softmax (and auto).
    decision_function: (n,) for two classes (positive: classes_[1]), (n, K) for more.
    coef_: (1, d) or (K, d); intercept_: (1,) or (K,).

    Hyperparameters (the library's table, with its defaults):
"""

    __init__ = _make_init(1)

    def _softmax(self):
        return self.loss == "softmax" or (self.loss == "auto" and len(self.classes_) > 2)

    def _learner_loss(self):
        if self.loss not in _CLASSIFIER_LOSSES:
            raise ValueError(f"loss must be one of {', '.join(_CLASSIFIER_LOSSES)}, got {self.loss!r}")
        if self._softmax():
            return "softmax"
        if len(self.classes_) > 2:
            raise ValueError(f"loss '{self.loss}' takes two classes, y has {len(self.classes_)} "
                             "(use loss='softmax' or 'auto')")
        return "logistic" if self.loss == "auto" else self.loss

    def _outputs(self):
        return len(self.classes_) if self._softmax() else 1

    def _set_targets(self, y, classes):
        check_classification_targets(y)
        self.classes_ = np.unique(y if classes is None else np.asarray(classes))
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes in the data, "
                             f"but the data contains only one class: {self.classes_[0]!r}")

    def _check_classes(self, classes):
        if classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
            raise ValueError(f"classes {classes!r} differ from the first partial_fit's {self.classes_!r}")

    def _targets(self, y):
        check_classification_targets(y)
        index = np.searchsorted(self.classes_, y)
        index = np.minimum(index, len(self.classes_) - 1)
        if not np.all(self.classes_[index] == y):
            raise ValueError(f"y has labels not in classes_ {self.classes_!r}")
        if self._outputs() > 1:
            return index.astype(np.float64)
        return np.where(index == 1, 1.0, -1.0)

    def _model_labels(self):
        if self._learner_loss() == "squared":  # least squares on ±1: the model's labels are ±1
            return None
        try:
            return [float(c) for c in self.classes_]
        except (TypeError, ValueError):
            raise ValueError(f"save_model: a model file holds numeric labels, classes_ are {self.classes_!r}") from None

    def _set_weights(self, W, bias_row):
        if W.shape[0] == 2 and len(self.classes_) == 2:  # binary softmax: the margin of class 1
            W, bias_row = W[1:] - W[:1], bias_row[1:] - bias_row[:1]
        self.coef_, self.intercept_ = W, np.asarray(bias_row, dtype=np.float64)

    def fit(self, X, y):
        """Resets, then max_iter passes over the rows in order (collective)."""
        return self._fit(X, y)

    def partial_fit(self, X, y, classes=None):
        """One online step per row (collective). classes: every label of the stream (the first call;
        default: y's labels)."""
        return self._partial_fit(X, y, classes)

    def decision_function(self, X):
        """Scores: (n,) for two classes (the margin of classes_[1]), (n, K) for more (collective)."""
        scores = self._scores(X)
        if scores.ndim == 2 and len(self.classes_) == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        scores = self.decision_function(X)
        index = scores.argmax(axis=1) if scores.ndim == 2 else (scores > 0).astype(int)
        return self.classes_[index]

    def _has_proba(self):
        return self.loss in ("auto", "logistic", "softmax")

    @available_if(_has_proba)
    def predict_proba(self, X):
        """Class probabilities under the logistic or softmax loss: (n, K) (collective)."""
        scores = self._scores(X)
        if scores.ndim == 1:
            p = 0.5 * (1.0 + np.tanh(0.5 * scores))  # 1/(1 + e^{-s}), without overflow
            return np.column_stack([1.0 - p, p])
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    @available_if(_has_proba)
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class SketchedRegressor(RegressorMixin, _SketchedEstimator):
    """A linear regressor trained online by an adasketch learner (loss: squared or absolute).
    coef_: (d,); intercept_: a float.

    Hyperparameters (the library's table, with its defaults):
"""

    __init__ = _make_init(2)

    def _learner_loss(self):
        if self.loss not in _REGRESSOR_LOSSES:
            raise ValueError(f"loss must be one of {', '.join(_REGRESSOR_LOSSES)}, got {self.loss!r}")
        return self.loss

    def _set_targets(self, y, classes):
        pass

    def _targets(self, y):
        return np.asarray(check_array(y, ensure_2d=False, dtype=np.float64), dtype=np.float64)

    def _set_weights(self, W, bias_row):
        self.coef_, self.intercept_ = W[0].copy(), float(bias_row[0])

    def fit(self, X, y):
        """Resets, then max_iter passes over the rows in order (collective)."""
        return self._fit(X, y)

    def partial_fit(self, X, y):
        """One online step per row (collective)."""
        return self._partial_fit(X, y)

    def predict(self, X):
        """The scores wᵀx + intercept_ (collective). (No decision_function: scikit-learn's regressors
        have none.)"""
        return self._scores(X)


for _cls in (SketchedClassifier, SketchedRegressor):
    _cls.__doc__ += _parameter_doc()
