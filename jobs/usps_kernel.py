#!/usr/bin/env python3
"""CompAdaGrad paper §5 ("MNIST 4 vs 9"), built from the repository's USPS digits: dense, highly
correlated features. 400 random prototypes (200 of each class) are drawn from the training digits 4 and
9; an example's features are its Gaussian-kernel values against them, exp(-‖x − p‖² / (2 s²)), with s
the median distance between the training examples and the prototypes (the paper gives no bandwidth;
the median is the usual choice). Labels: digit 4 → +1, digit 9 → −1.

    /usr/bin/python3 jobs/usps_kernel.py [--out DIR] [--prototypes 400] [--seed 1]

writes DIR/usps49_kernel.svm and DIR/usps49_kernel.t.svm (LIBSVM, 17 significant digits) from
tests/data/usps_esl.gz and usps_esl.t.gz (labels there are digit + 1). Needs numpy (jobs/setup.sh
installs python3-numpy for /usr/bin/python3).
"""
import argparse
import gzip
import os

import numpy as np

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_libsvm(path, dim=256):
    labels, rows = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            labels.append(float(parts[0]))
            x = np.zeros(dim)
            for item in parts[1:]:
                i, v = item.split(":")
                x[int(i) - 1] = float(v)
            rows.append(x)
    return np.array(labels), np.array(rows)


def digits(labels, rows, a=4, b=9):
    keep = (labels == a + 1) | (labels == b + 1)
    return np.where(labels[keep] == a + 1, 1.0, -1.0), rows[keep]


def write_libsvm(path, y, features):
    with open(path, "w") as f:
        for label, x in zip(y, features):
            f.write("%+d " % int(label) + " ".join("%d:%.17g" % (j + 1, v) for j, v in enumerate(x) if v != 0.0) + "\n")


def squared_distances(a, b):
    return np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T, 0.0)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(HERE, "results", "data"))
    p.add_argument("--prototypes", type=int, default=400)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    y, x = digits(*read_libsvm(os.path.join(HERE, "tests", "data", "usps_esl.gz")))
    yt, xt = digits(*read_libsvm(os.path.join(HERE, "tests", "data", "usps_esl.t.gz")))
    rng = np.random.default_rng(args.seed)
    half = args.prototypes // 2
    chosen = np.concatenate([rng.choice(np.flatnonzero(y == c), half, replace=False) for c in (1.0, -1.0)])
    protos = x[chosen]
    d2 = squared_distances(x, protos)
    s2 = np.median(d2)  # s² with s the median distance
    os.makedirs(args.out, exist_ok=True)
    for name, labels, data in (("usps49_kernel.svm", y, x), ("usps49_kernel.t.svm", yt, xt)):
        write_libsvm(os.path.join(args.out, name), labels, np.exp(-squared_distances(data, protos) / (2.0 * s2)))
    print("usps 4 vs 9: %d training, %d test examples, %d kernel features, s = %.6g" % (len(y), len(yt), len(protos), np.sqrt(s2)))


if __name__ == "__main__":
    main()
