#!/usr/bin/env python3
"""The RFD paper's a9a protocol (§5.2: "We use 70% data for training and the rest for test"): a
reproducible 70/30 split of tests/data/a9a.gz (32,561 examples).

    python3 jobs/a9a_split.py [--out DIR] [--seed 1] [--fraction 0.7]

The permutation orders the examples by the SHA-256 digest of "SEED:INDEX" (INDEX the 0-based line
number in a9a), which any language reproduces and no library version changes; the first
floor(FRACTION · n) examples of it, in that order, are the training file DIR/a9a_70.svm (22,792 for
the defaults), the rest the test file DIR/a9a_30.svm (9,769). The lines are copied verbatim. Prints
the counts and each file's SHA-256. Default DIR: results/data. Standard library only.
"""
import argparse
import gzip
import hashlib
import os

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def permutation(n, seed):
    return sorted(range(n), key=lambda i: hashlib.sha256(("%d:%d" % (seed, i)).encode()).digest())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(HERE, "results", "data"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fraction", type=float, default=0.7)
    args = p.parse_args()
    if not 0.0 < args.fraction < 1.0:
        p.error("--fraction must be in (0, 1)")
    with gzip.open(os.path.join(HERE, "tests", "data", "a9a.gz"), "rt") as f:
        lines = [line if line.endswith("\n") else line + "\n" for line in f if line.strip()]
    order = permutation(len(lines), args.seed)
    cut = int(args.fraction * len(lines))
    os.makedirs(args.out, exist_ok=True)
    for name, part in (("a9a_70.svm", order[:cut]), ("a9a_30.svm", order[cut:])):
        path = os.path.join(args.out, name)
        text = "".join(lines[i] for i in part)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        print("%s: %d examples, sha256 %s" % (path, len(part), hashlib.sha256(text.encode()).hexdigest()))


if __name__ == "__main__":
    main()
