"""The derived files of the defaults benchmark (jobs/auto_table.py, jobs/defaults_grid.py): w8a and
mushrooms split in file order (every fifth line tests: both files come in runs of one label), and
USPS binary (the file's digits 1-5 -1, 6-10 +1). Each file is written once into `work`."""
import gzip
import os


def split_every_fifth(data_dir, work, name):
    """(train, test) of tests/data/NAME.gz: lines i % 5 == 4 test, the others train."""
    base = os.path.join(work, name)
    if not os.path.exists(base + ".test"):
        with gzip.open(os.path.join(data_dir, name + ".gz"), "rt") as f:
            lines = f.readlines()
        for part, keep in (("train", lambda i: i % 5 != 4), ("test", lambda i: i % 5 == 4)):
            with open(base + "." + part, "w") as f:
                f.writelines(line for i, line in enumerate(lines) if keep(i))
    return base + ".train", base + ".test"


def usps_binary(data_dir, work):
    """(train, test) of USPS binary: labels 1..5 -> -1, 6..10 -> +1."""
    out = []
    for src, dst in (("usps_esl.gz", "uspsbin.train"), ("usps_esl.t.gz", "uspsbin.test")):
        path = os.path.join(work, dst)
        if not os.path.exists(path):
            with gzip.open(os.path.join(data_dir, src), "rt") as f, open(path, "w") as g:
                for line in f:
                    label, rest = line.split(None, 1)
                    g.write(("-1 " if float(label) <= 5 else "+1 ") + rest)
        out.append(path)
    return tuple(out)
