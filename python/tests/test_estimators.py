"""The scikit-learn estimators at one process (no mpirun, no mpi4py communicator): scikit-learn's own
check_estimator, the parameters against the hyperparameter table, the predictions against the raw
Learner's, clone, Pipeline, GridSearchCV, cross_val_score, pickle and joblib round trips that
continue partial_fit exactly, any labels, dtypes and CSR input.

Usage: test_estimators.py DATA_DIR   (tests/data: reads a slice of mushrooms.gz)
"""
import io
import inspect
import os
import pickle
import sys
import unittest
import warnings

import joblib
import numpy as np
import scipy.sparse
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

import adasketch
from adasketch import SketchedClassifier, SketchedRegressor
from libsvm_data import read_libsvm_gz  # (python/tests)

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"test_estimators: FAILED: {what}", file=sys.stderr)


def test_check_estimator():
    # scikit-learn's estimator checks, each reported; the expected failures are the _xfail_checks tag's.
    for estimator in (SketchedClassifier(), SketchedRegressor()):
        name = type(estimator).__name__
        xfail = estimator._get_tags()["_xfail_checks"]
        passed, skipped, expected = 0, [], 0
        for est, check_fn in check_estimator(estimator, generate_only=True):
            check_name = getattr(check_fn, "func", check_fn).__name__
            if check_name in xfail:
                expected += 1
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    check_fn(est)
                passed += 1
            except unittest.SkipTest as e:  # (pandas checks without pandas)
                skipped.append(f"{check_name} ({e})")
            except Exception as e:  # noqa: BLE001 (every failing check is reported)
                check(False, f"{name}: {check_name}: {type(e).__name__}: {str(e)[:300]}")
        print(f"test_estimators: check_estimator({name}): {passed} checks passed, {expected} expected failures "
              f"({', '.join(f'{k}: {v}' for k, v in sorted(xfail.items())) or 'none'}), skipped: {'; '.join(skipped) or 'none'}")
        # And scikit-learn's own entry point as a user calls it (raises on the first failure).
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_estimator(estimator)
        except Exception as e:  # noqa: BLE001
            check(False, f"check_estimator({name}): {type(e).__name__}: {str(e)[:300]}")


def test_parameters_are_the_table():
    # Every row of the table is a keyword argument with the table's default, after the estimator's own.
    rows = adasketch.hyperparameters()
    check(len(rows) >= 15 and rows[0][0] == "ell" and rows[0][1] == 10, f"the table as the module gives it: {rows[:2]}")
    for cls in (SketchedClassifier, SketchedRegressor):
        params = cls().get_params()
        for name, default, _ in rows:
            check(name in params and params[name] == default, f"{cls.__name__}.{name} = {params.get(name)!r}, table {default!r}")
        names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
        check(names[-len(rows):] == [r[0] for r in rows], f"{cls.__name__}'s parameters end with the table's rows")
        check(params["algorithm"] == adasketch._core.default_algorithm, "the library's default algorithm")
        check("ell = 10" in cls.__doc__, f"{cls.__name__}'s docstring lists the table's defaults")
    try:
        SketchedClassifier(etaa=1.0)
        check(False, "an unknown parameter was accepted")
    except TypeError:
        pass
    try:
        SketchedClassifier(ell="x").fit(np.eye(3), [0, 1, 0])
        check(False, "ell='x' was accepted")
    except ValueError as e:
        check("hyperparameter 'ell'" in str(e), f"the error says {e}")


def test_against_learner(X, y):
    # With bias 0 and labels ±1 the classifier is the raw Learner, bit for bit: scores and weights.
    for algorithm, loss in (("fast-rfd-son", "logistic"), ("ada-fd", "hinge")):
        est = SketchedClassifier(algorithm=algorithm, loss=loss, ell=5, bias=0.0, max_iter=2).fit(X, y)
        learner = adasketch.Learner(algorithm, X.shape[1], loss=loss, ell=5)
        learner.partial_fit(X, y)
        learner.partial_fit(X, y)
        check(np.array_equal(est.decision_function(X), learner.decision_function(X)), f"{algorithm}: scores differ from Learner's")
        check(np.array_equal(est.coef_[0], learner.coef_), f"{algorithm}: coef_ differs from Learner's")
        check(est.intercept_.shape == (1,) and est.intercept_[0] == 0.0, "no bias: intercept_ 0")
        check(est.n_iter_ == 2 and est.t_ == 2 * X.shape[0], f"n_iter_ {est.n_iter_}, t_ {est.t_}")
        check(np.array_equal(est.predict(X), np.where(learner.decision_function(X) > 0, 1.0, -1.0)), "predict")
    # A bias B is the feature d with value B: the Learner on [X, B] (d + 1 features).
    B = 0.5
    est = SketchedClassifier(algorithm="ada-fd", ell=5, bias=B).fit(X, y)
    learner = adasketch.Learner("ada-fd", X.shape[1] + 1, ell=5)
    XB = scipy.sparse.hstack([X, np.full((X.shape[0], 1), B)], format="csr")
    learner.partial_fit(XB, y)
    w = learner.coef_
    check(np.array_equal(est.coef_[0], w[:-1]) and est.intercept_[0] == B * w[-1], "the bias is feature d")
    scores = est.decision_function(X)
    check(np.max(np.abs(scores - (X @ est.coef_[0] + est.intercept_[0]))) <= 1e-9 * max(1, np.abs(scores).max()),
          "decision_function = X·coef_ + intercept_")
    # set_params changes the next fit, not the fitted model.
    est.set_params(bias=2.0, columns="local")
    check(np.array_equal(est.decision_function(X), scores), "set_params changed the fitted model")
    est.fit(X, y)  # (columns="local" at one process: all of them)
    learner = adasketch.Learner("ada-fd", X.shape[1] + 1, ell=5)
    learner.partial_fit(scipy.sparse.hstack([X, np.full((X.shape[0], 1), 2.0)], format="csr"), y)
    check(est.intercept_[0] == 2.0 * learner.coef_[-1], "the next fit takes set_params' bias")


def test_labels_and_inputs(X, y):
    # Any labels: strings map to ±1 in sorted order, so the scores equal those of the ±1 labels.
    names = np.where(y > 0, "poisonous", "edible")
    a = SketchedClassifier(ell=5).fit(X, names)
    b = SketchedClassifier(ell=5).fit(X, y)
    check(list(a.classes_) == ["edible", "poisonous"], f"classes_ {a.classes_}")
    check(np.array_equal(a.decision_function(X), b.decision_function(X)), "string labels score as ±1")
    check(np.array_equal(a.predict(X) == "poisonous", b.predict(X) == 1.0), "string labels predict as ±1")
    p = a.predict_proba(X)
    check(p.shape == (X.shape[0], 2) and np.allclose(p.sum(axis=1), 1.0), "predict_proba sums to 1")
    check(np.allclose(p[:, 1], 1 / (1 + np.exp(-a.decision_function(X)))), "logistic predict_proba")
    # Dense, CSR, float32: the same scores (dense rows multiply in another order: round-off).
    dense = SketchedClassifier(ell=5).fit(X.toarray().astype(np.float32), y)
    f32 = SketchedClassifier(ell=5).fit(X.astype(np.float32), y)
    check(np.array_equal(f32.decision_function(X), b.decision_function(X)), "float32 CSR (exact in float64)")
    check(np.max(np.abs(dense.decision_function(X) - b.decision_function(X))) <= 1e-8, "dense scores as CSR")
    # Softmax: three classes of any labels.
    y3 = np.array(["a", "b", "c"])[(np.arange(X.shape[0]) % 3)]
    s = SketchedClassifier(ell=5).fit(X, y3)
    check(s.coef_.shape == (3, X.shape[1]) and s.intercept_.shape == (3,), "softmax coef_ (K, d)")
    check(s.decision_function(X).shape == (X.shape[0], 3), "softmax scores (n, K)")
    q = s.predict_proba(X)
    check(np.array_equal(s.classes_[q.argmax(axis=1)], s.predict(X)), "softmax predict is the argmax")
    check(not hasattr(SketchedClassifier(loss="hinge"), "predict_proba"), "hinge has no predict_proba")
    # Regression.
    r = SketchedRegressor(algorithm="ada-fd", ell=5).fit(X, y)
    check(isinstance(r.intercept_, float) and r.coef_.shape == (X.shape[1],), "regressor coef_ (d,)")
    check(np.max(np.abs(r.predict(X) - (X @ r.coef_ + r.intercept_))) <= 1e-8, "regressor predict")


def test_ecosystem(X, y):
    est = SketchedClassifier(algorithm="fast-rfd-son", ell=5, eta=0.5)
    c = clone(est)
    check(c.get_params() == est.get_params() and c is not est, "clone")
    pipe = make_pipeline(StandardScaler(with_mean=False), SketchedClassifier(ell=5))
    pipe.fit(X, y)
    check(pipe.score(X, y) > 0.9, f"Pipeline score {pipe.score(X, y)}")
    grid = GridSearchCV(SketchedClassifier(ell=5), {"eta": [0.01, 0.1, 1.0], "ell": [2, 5]}, cv=3)
    grid.fit(X, y)
    check(grid.best_params_["eta"] in (0.01, 0.1, 1.0) and grid.best_score_ > 0.8, f"GridSearchCV {grid.best_params_}")
    scores = cross_val_score(SketchedRegressor(ell=5), X, y, cv=3)
    check(len(scores) == 3 and np.all(np.isfinite(scores)), f"cross_val_score {scores}")


def test_pickle_continues(X, y):
    # A pickled (or joblib-dumped) fitted estimator continues partial_fit exactly as the original.
    half = X.shape[0] // 2
    # (the --auto learner pickled in the middle of its race, which it decides after)
    for cls, kwargs in ((SketchedClassifier, {"algorithm": "fast-rfd-son"}), (SketchedRegressor, {"algorithm": "ada-fd"}),
                        (SketchedClassifier, {"algorithm": "ada-diag", "auto_tune": True, "auto_examples": X.shape[0]})):
        a = cls(ell=5, **kwargs).partial_fit(X[:half], y[:half])
        for name, restored in (("pickle", pickle.loads(pickle.dumps(a))), ("joblib", joblib_round_trip(a))):
            check(np.array_equal(restored.predict(X), a.predict(X)), f"{cls.__name__} {name}: predictions")
            restored.partial_fit(X[half:], y[half:])
            b = pickle.loads(pickle.dumps(a))
            b.partial_fit(X[half:], y[half:])
            check(np.array_equal(restored.coef_, b.coef_), f"{cls.__name__} {name}: continued twice alike")
        a.partial_fit(X[half:], y[half:])
        check(np.array_equal(restored.coef_, a.coef_) and restored.intercept_ == a.intercept_
              if np.isscalar(a.intercept_) else np.array_equal(restored.intercept_, a.intercept_),
              f"{cls.__name__}: the unpickled estimator continues exactly")
        check(np.array_equal(restored.predict(X), a.predict(X)), f"{cls.__name__}: continued predictions")
        check(restored.t_ == a.t_ == X.shape[0], "the step count survives pickling")
        check(restored.auto_race_ == a.auto_race_ and (a.auto_race_ is None) != bool(kwargs.get("auto_tune")),
              f"{cls.__name__}: the race survives pickling")
    unfitted = pickle.loads(pickle.dumps(SketchedClassifier(ell=3)))
    check(unfitted.get_params()["ell"] == 3 and not hasattr(unfitted, "coef_"), "an unfitted estimator pickles")


def joblib_round_trip(estimator):
    buffer = io.BytesIO()
    joblib.dump(estimator, buffer)
    buffer.seek(0)
    return joblib.load(buffer)


def main():
    X, y = read_libsvm_gz(os.path.join(sys.argv[1], "mushrooms.gz"), 600)
    y = np.where(y == 2, 1.0, -1.0)  # mushrooms labels 1 and 2
    test_parameters_are_the_table()
    test_against_learner(X, y)
    test_labels_and_inputs(X, y)
    test_ecosystem(X, y)
    test_pickle_continues(X, y)
    test_check_estimator()
    if failures:
        print(f"test_estimators: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("test_estimators: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
