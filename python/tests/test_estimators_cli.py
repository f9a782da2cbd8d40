"""The estimators against `adasketch train` on the same rows (one process): the CLI's --bias B and
label map are the estimator's bias and classes_, so coef_ and intercept_ are the CLI model's W (its
last row times B), to |Δw| ≤ 1e-9·max(1, max|w|) (the same steps on the same rows: they agree bit
for bit today, the bound leaves room for the text round trip of the values).

Usage: test_estimators_cli.py ADASKETCH_CLI DATA_DIR WORK_DIR
"""
import os
import subprocess
import sys

import numpy as np

from adasketch import SketchedClassifier, SketchedRegressor
from libsvm_data import read_libsvm_gz  # (python/tests)

failures = 0


def check(condition, what):
    global failures
    if not condition:
        failures += 1
        print(f"test_estimators_cli: FAILED: {what}", file=sys.stderr)


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for i in range(X.shape[0]):
            row = X.getrow(i)
            entries = " ".join(f"{j + 1}:{v!r}" for j, v in zip(row.indices, row.data))
            f.write(f"{y[i]:g} {entries}\n")


def cli_weights(cli, work, data, options):
    model, npy = os.path.join(work, "cli.model"), os.path.join(work, "cli.npy")
    subprocess.run([cli, "train", "--data", data, "--model", model, *options], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([cli, "export", "--format", "npy", model, npy], check=True, stdout=subprocess.DEVNULL)
    return np.load(npy)


def compare(name, cli, work, X, y, est, options):
    data = os.path.join(work, "train.svm")
    write_libsvm(data, X, y)
    W = cli_weights(cli, work, data, options + ["--dim", str(X.shape[1]), "--bias", repr(est.bias), "--algo", est.algorithm, "--ell", str(est.ell)])
    est.fit(X, y)
    W = W.reshape(X.shape[1] + 1, -1)
    coef = est.coef_.T if est.coef_.ndim == 2 else est.coef_[:, None]
    bound = 1e-9 * max(1.0, np.abs(W).max())
    check(np.abs(coef - W[:-1]).max() <= bound, f"{name}: coef_ differs from the CLI model's W by {np.abs(coef - W[:-1]).max():.3g}")
    check(np.abs(np.atleast_1d(est.intercept_) - est.bias * W[-1]).max() <= bound, f"{name}: intercept_ is not B·w_d")
    # The estimator's model file, bias and label map with it, predicts as the estimator.
    model, out = os.path.join(work, "est.model"), os.path.join(work, "est.predictions")
    est.save_model(model)
    subprocess.run([cli, "predict", "--model", model, "--data", data, "--predictions", out, "--quiet"], check=True)
    lines = [line.split() for line in open(out)]
    if isinstance(est, SketchedClassifier):
        labels = np.array([float(t[0]) for t in lines])
        check(np.array_equal(labels, est.predict(X)), f"{name}: adasketch predict on the estimator's model differs")
    else:
        values = np.array([float(t[0]) for t in lines])
        check(np.abs(values - est.predict(X)).max() <= 1e-9 * max(1.0, np.abs(values).max()),
              f"{name}: adasketch predict on the estimator's model differs")
    print(f"test_estimators_cli: {name}: coef_ and intercept_ are the CLI's (max |Δw| {np.abs(coef - W[:-1]).max():.2g})")


def main():
    cli, data_dir, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    X, y = read_libsvm_gz(os.path.join(data_dir, "mushrooms.gz"), 300, dim=112)  # labels 1 and 2
    compare("ada-fd logistic, mushrooms, B = 1", cli, work, X, y, SketchedClassifier(algorithm="ada-fd", ell=5), [])
    compare("fast-rfd-son hinge, mushrooms, B = 0.5", cli, work, X, y,
            SketchedClassifier(algorithm="fast-rfd-son", loss="hinge", ell=5, bias=0.5), ["--loss", "hinge"])
    check(set(SketchedClassifier().fit(X, y).classes_) == {1.0, 2.0}, "classes_ are the raw labels")
    U, c = read_libsvm_gz(os.path.join(data_dir, "usps_esl.gz"), 200, dim=256)
    compare("ada-fd softmax, usps, B = 1", cli, work, U, c, SketchedClassifier(algorithm="ada-fd", ell=5),
            ["--loss", "softmax"])
    compare("rfd-son squared, mushrooms, B = 2", cli, work, X, y,
            SketchedRegressor(algorithm="rfd-son", ell=5, eta=0.05, bias=2.0), ["--loss", "squared", "--eta", "0.05"])
    if failures:
        return 1
    print("test_estimators_cli: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
