"""The first rows of a gzipped LIBSVM file (tests/data) as a scipy.sparse CSR matrix and labels."""
import gzip

import numpy as np
import scipy.sparse


def read_libsvm_gz(path, rows, dim=None):
    """(X, y): the first `rows` examples; X has `dim` columns (default: the largest index seen)."""
    labels, entries = [], []
    with gzip.open(path, "rt") as f:
        for _, text in zip(range(rows), f):
            tokens = text.split()
            labels.append(float(tokens[0]))
            entries.append([(int(j) - 1, float(v)) for j, v in (t.split(":") for t in tokens[1:])])
    dim = dim or max(j for row in entries for j, _ in row) + 1
    indptr = np.cumsum([0] + [len(r) for r in entries])
    indices = [j for r in entries for j, _ in r]
    data = [v for r in entries for _, v in r]
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(len(labels), dim)), np.array(labels)
