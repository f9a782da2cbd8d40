#!/usr/bin/env python3
"""A real-text binary data set: hashed Debian package descriptions (is the package a library?).

    /usr/bin/python3 jobs/text_hashed.py [--out DIR] [--lists DIR] [--mirror URL] [--suite bookworm]
                                         [--bits 24] [--seed 1] [--fraction 0.8]

Source. The English descriptions of the binary packages of Debian's `SUITE/main` (amd64): the
synopsis and long description of each package (`Description-en` of the suite's
`main/i18n/Translation-en`, joined on `Description-md5` to the `main/binary-amd64/Packages` index,
which gives the package's `Section`). Any Debian 12 machine with access to its Debian mirror
reproduces it: without --lists, the script runs `apt-get update` with a private sources list
(`deb MIRROR SUITE main`), private lists and cache directories under DIR/apt and the English
translations switched on (Debian's Docker images switch them off in
/etc/apt/apt.conf.d/docker-no-languages), so the machine's own apt state is not touched; it needs root (apt-get update) or --lists pointing at a directory already holding
both index files (apt's `*_Packages*` and `*_Translation-en*`, any compression apt reads). The
index files change only at the suite's point releases: the script prints the Release file's
version and date and the SHA-256 of both decompressed indexes and of the two LIBSVM texts; a run
on the same point release gives the same files byte for byte (checked: a fresh download and a rerun
gave identical .gz files).

Label. +1 when the package's Section is one of the library sections -- libs, libdevel, oldlibs
(C/C++ and other shared libraries and their development files) and the sections of language
modules: python, perl, ruby, php, java, javascript, golang, rust, haskell, ocaml, lisp, gnu-r,
cli-mono, introspection -- and -1 for every other section (applications, tools, data, fonts,
documentation, ...). "Is this package something programs link or import, or something people use?"
The task is not trivial: `-doc`, `-data` and tool packages reuse their library's text, and many
language modules read like applications.

Snapshot of the first run (bookworm 12.15, Release file dated Sat, 11 Jul 2026 10:16:37 UTC,
fetched 2026-11-27; Packages SHA-256 515e692f2c4121c6..., Translation-en 62f59c3cdca9786e...):
63,440 packages, 2,351 duplicate descriptions dropped (561 of them with the other label), 61,089
documents of 64.4 words on average; 35,136 (57.5%) +1 and 25,953 (42.5%) -1; 48,871 training and
12,218 test rows; 103.4 non-zeros per row; 901,467 distinct unigrams and bigrams on 877,772 distinct
hashed indices (764,053 in the training rows); SHA-256 of the LIBSVM text (gzip -dc) of train
a9a2fc4c050966aa..., of test 8b1ae4fa2a4ca6b4.... LIBLINEAR -s 2 (C = 1) gets 92.90% test accuracy.

Documents. A package whose description text is identical to one already kept (same
`Description-md5`: e.g. the transitional or per-flavour packages that share one text) is dropped,
the first in the Packages file's order (by name) kept, so no test row is a verbatim copy of a
training row. Near-copies (a library and its -dev package: the same text and another last
paragraph) stay, as in any real corpus.

Features. Lowercase the text, take the words as the maximal runs of [a-z0-9] (everything else,
Debian's " ." paragraph lines included, separates words), and form every unigram "w" and every
bigram "w1 w2" (one space) of adjacent words. Each feature string s is hashed by
h = int.from_bytes(blake2b(s.encode("utf-8"), digest_size=8).digest(), "little") (64 bits, no key:
the same in any language with BLAKE2b); its index is 1 + (h mod 2^BITS) (LIBSVM's 1-based indices,
d = 2^BITS = 16,777,216) and its sign +1 when bit 63 of h is 0, else -1 (signed feature hashing,
Weinberger et al. 2009). A row's value at an index is the signed sum of the counts of the strings
hashed there (a collision inside a row may cancel to 0: that entry is dropped); each row is then
scaled to unit L2 norm (a row with no words is x = 0).

Order and split. The rows are ordered by the SHA-256 digest of "SEED:PACKAGE" (as
jobs/a9a_split.py orders a9a: reproducible in any language, independent of library versions); the
first floor(FRACTION * n) rows, in that order, are the training file DIR/train.svm.gz, the rest the
test file DIR/test.svm.gz. LIBSVM lines `+1 i:v i:v ...` (labels +1/-1, indices strictly ascending,
values with 9 significant digits), gzip. Train with `--dim 16777216` (docs/formats.md: a test file
with fewer features than its training d, and d itself, are given by --dim).

Outputs (never in the repository: --out inside it is refused): DIR/train.svm.gz, DIR/test.svm.gz
(gzip with no name or time in the header), DIR/stats.json (the numbers printed: the snapshot, rows,
mean non-zeros per row, distinct features, class balance, checksums), DIR/apt/ (the downloaded
indexes). Standard library only (and apt-get, apt-helper).
"""
import argparse
import glob
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LIBRARY_SECTIONS = frozenset((
    "libs", "libdevel", "oldlibs",
    "python", "perl", "ruby", "php", "java", "javascript", "golang", "rust", "haskell", "ocaml",
    "lisp", "gnu-r", "cli-mono", "introspection",
))
WORD = re.compile(r"[a-z0-9]+")
APT_HELPER = "/usr/lib/apt/apt-helper"


def machine_mirror():
    """The first archive URI of the machine's apt sources (deb822 .sources files, then sources.list)."""
    import glob
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for line in open(path, encoding="utf-8"):
            if line.startswith("URIs:"):
                return line.split()[1]
    for path in ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list")):
        if os.path.exists(path):
            for line in open(path, encoding="utf-8"):
                words = line.split()
                if len(words) >= 3 and words[0] == "deb":
                    return words[2] if words[1].startswith("[") else words[1]
    raise SystemExit("text_hashed.py: no apt source found on this machine: give --mirror URL")


def fetch(apt_dir, mirror, suite):
    """apt-get update of `deb MIRROR SUITE main` with English translations, into apt_dir only."""
    lists = os.path.join(apt_dir, "lists")
    os.makedirs(os.path.join(lists, "partial"), exist_ok=True)
    os.makedirs(os.path.join(apt_dir, "cache", "archives", "partial"), exist_ok=True)
    os.makedirs(os.path.join(apt_dir, "sources.list.d"), exist_ok=True)
    with open(os.path.join(apt_dir, "sources.list"), "w") as f:
        f.write("deb %s %s main\n" % (mirror, suite))
    options = {
        "Dir::Etc::SourceList": os.path.join(apt_dir, "sources.list"),
        "Dir::Etc::SourceParts": os.path.join(apt_dir, "sources.list.d"),
        "Dir::State::Lists": lists,
        "Dir::Cache": os.path.join(apt_dir, "cache"),
        "Dir::Cache::pkgcache": "",
        "Dir::Cache::srcpkgcache": "",
        "APT::Architecture": "amd64",
        "APT::Architectures": "amd64",
        "Acquire::Languages": "en",
        "Acquire::Languages::": "en",
        "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled": "false",
        "Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled": "false",
    }
    command = ["apt-get", "-q", "update"]
    for key, value in options.items():
        command += ["-o", "%s=%s" % (key, value)]
    subprocess.run(command, check=True, stdout=sys.stderr)
    return lists


def index_text(lists, pattern):
    paths = sorted(p for p in glob.glob(os.path.join(lists, pattern)) if not p.endswith(".diff"))
    if len(paths) != 1:
        sys.exit("text_hashed.py: expected one %s in %s, found %d" % (pattern, lists, len(paths)))
    # apt-helper cat-file decompresses whatever apt stored (lz4, gz, xz, plain).
    return subprocess.run([APT_HELPER, "cat-file", paths[0]], check=True,
                          stdout=subprocess.PIPE).stdout


def records(data):
    """Debian control stanzas: dicts of field -> value (continuation lines kept, with their \n)."""
    for block in data.decode("utf-8", "replace").split("\n\n"):
        record, key = {}, None
        for line in block.split("\n"):
            if not line:
                continue
            if line[0] in " \t":
                record[key] += "\n" + line
            else:
                key, _, value = line.partition(":")
                record[key] = value.strip()
        if record:
            yield record


def release_info(lists):
    paths = glob.glob(os.path.join(lists, "*_InRelease")) + glob.glob(os.path.join(lists, "*_Release"))
    info = {}
    if paths:
        with open(paths[0], "rb") as f:
            for line in f.read().decode("utf-8", "replace").split("\n"):
                key, _, value = line.partition(":")
                if key in ("Origin", "Suite", "Codename", "Version", "Date") and key not in info:
                    info[key] = value.strip()
    return info


_hash_cache = {}
MASK = (1 << 24) - 1  # set from --bits in main()


def feature(s):
    """(1-based index, sign) of feature string s: BLAKE2b-64 of its UTF-8 bytes (see the docstring)."""
    hit = _hash_cache.get(s)
    if hit is None:
        h = int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little")
        hit = _hash_cache[s] = (1 + (h & MASK), -1.0 if h >> 63 else 1.0)
    return hit


def row(text):
    words = WORD.findall(text.lower())
    strings = words + [a + " " + b for a, b in zip(words, words[1:])]
    x = {}
    for s in strings:
        index, sign = feature(s)
        x[index] = x.get(index, 0.0) + sign
    x = {i: v for i, v in x.items() if v != 0.0}
    norm = sum(v * v for v in x.values()) ** 0.5
    return sorted((i, v / norm) for i, v in x.items())


def write(path, rows):
    """LIBSVM text, gzip without a name or time in its header (the same input, the same bytes)."""
    digest = hashlib.sha256()
    with open(path + ".tmp", "wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=raw, mtime=0) as f:
        for label, x in rows:
            line = ("+1" if label > 0 else "-1") + "".join(" %d:%.9g" % (i, v) for i, v in x) + "\n"
            data = line.encode("ascii")
            digest.update(data)
            f.write(data)
    os.replace(path + ".tmp", path)
    return digest.hexdigest()


def balance(rows):
    pos = sum(1 for label, _ in rows if label > 0)
    return {"rows": len(rows), "positive": pos, "negative": len(rows) - pos,
            "positive_fraction": round(pos / len(rows), 4) if rows else None,
            "mean_nonzeros": round(sum(len(x) for _, x in rows) / len(rows), 2) if rows else None,
            "distinct_features": len({i for _, x in rows for i, _ in x})}


def main():
    global MASK
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="/tmp/text_hashed", help="output directory (default /tmp/text_hashed)")
    p.add_argument("--lists", help="a directory holding the Packages and Translation-en indexes (no download)")
    p.add_argument("--mirror", help="the Debian mirror (default: the first of this machine's own apt sources)")
    p.add_argument("--suite", default="bookworm")
    p.add_argument("--bits", type=int, default=24, help="d = 2^BITS features (default 24)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fraction", type=float, default=0.8, help="training fraction (default 0.8)")
    args = p.parse_args()
    if not 0.0 < args.fraction < 1.0:
        p.error("--fraction must be in (0, 1)")
    if not 1 <= args.bits <= 62:
        p.error("--bits must be in 1..62")
    out = os.path.abspath(args.out)
    if out == HERE or out.startswith(HERE + os.sep):
        p.error("--out %s is inside the repository: write the data elsewhere" % out)
    MASK = (1 << args.bits) - 1
    os.makedirs(out, exist_ok=True)
    lists = args.lists or fetch(os.path.join(out, "apt"), args.mirror or machine_mirror(), args.suite)

    packages_raw = index_text(lists, "*_main_binary-amd64_Packages*")
    translation_raw = index_text(lists, "*_main_i18n_Translation-en*")
    descriptions = {r["Description-md5"]: r["Description-en"]
                    for r in records(translation_raw) if "Description-md5" in r}
    docs, seen, missing, duplicates, conflicts = [], {}, 0, 0, 0
    sections = {}
    n_packages = 0
    for r in records(packages_raw):
        n_packages += 1
        md5 = r.get("Description-md5")
        text = descriptions.get(md5)
        if text is None:
            missing += 1
            continue
        section = r.get("Section", "").split("/")[-1]
        label = 1 if section in LIBRARY_SECTIONS else -1
        if md5 in seen:
            duplicates += 1
            conflicts += seen[md5] != label
            continue
        seen[md5] = label
        sections[section] = sections.get(section, 0) + 1
        docs.append((r["Package"], label, text))

    order = sorted(docs, key=lambda d: hashlib.sha256(("%d:%s" % (args.seed, d[0])).encode()).digest())
    rows = [(label, row(text)) for _, label, text in order]
    cut = int(args.fraction * len(rows))
    train, test = rows[:cut], rows[cut:]
    text_sha256 = {"train": write(os.path.join(out, "train.svm.gz"), train),
                   "test": write(os.path.join(out, "test.svm.gz"), test)}

    stats = {
        "source": "Debian %s/main amd64 package descriptions (Packages + Translation-en)" % args.suite,
        "release": release_info(lists),
        "sha256": {"Packages": hashlib.sha256(packages_raw).hexdigest(),
                   "Translation-en": hashlib.sha256(translation_raw).hexdigest()},
        "label": "+1: Section in {%s}; -1: any other section" % ", ".join(sorted(LIBRARY_SECTIONS)),
        "packages": n_packages, "without_description": missing,
        "duplicate_descriptions_dropped": duplicates, "duplicates_with_other_label": conflicts,
        "documents": len(docs), "dim": 1 << args.bits, "seed": args.seed, "fraction": args.fraction,
        "words_per_document": round(sum(len(WORD.findall(t.lower())) for _, _, t in docs) / len(docs), 1),
        "distinct_ngrams": len(_hash_cache),
        "all": balance(rows), "train": balance(train), "test": balance(test),
        "sections": dict(sorted(sections.items(), key=lambda kv: -kv[1])),
        "files": {"train": os.path.join(out, "train.svm.gz"), "test": os.path.join(out, "test.svm.gz")},
        "text_sha256": text_sha256,
    }
    with open(os.path.join(out, "stats.json"), "w") as f:
        json.dump(stats, f, indent=1)
        f.write("\n")

    rel = stats["release"]
    print("source     %s, Release %s %s (%s), Date %s" % (stats["source"], rel.get("Origin", "?"),
          rel.get("Codename", "?"), rel.get("Version", "?"), rel.get("Date", "?")))
    print("sha256     Packages %s, Translation-en %s" % (stats["sha256"]["Packages"][:16],
                                                          stats["sha256"]["Translation-en"][:16]))
    print("label      %s" % stats["label"])
    print("documents  %d packages, %d without an English description, %d duplicate descriptions dropped "
          "(%d of them with the other label): %d documents, %.1f words each on average"
          % (n_packages, missing, duplicates, conflicts, len(docs), stats["words_per_document"]))
    print("features   d = 2^%d = %d; %d distinct unigrams and bigrams, %d distinct hashed indices"
          % (args.bits, 1 << args.bits, stats["distinct_ngrams"], stats["all"]["distinct_features"]))
    for name in ("all", "train", "test"):
        b = stats[name]
        print("%-10s %d rows, %.2f non-zeros per row, %d distinct features, +1 %d (%.1f%%), -1 %d (%.1f%%)"
              % (name, b["rows"], b["mean_nonzeros"], b["distinct_features"], b["positive"],
                 100 * b["positive_fraction"], b["negative"], 100 * (1 - b["positive_fraction"])))
    print("files      %s, %s, %s" % (stats["files"]["train"], stats["files"]["test"],
                                     os.path.join(out, "stats.json")))
    print("sha256     of the LIBSVM text: train %s, test %s" % (text_sha256["train"][:16], text_sha256["test"][:16]))


if __name__ == "__main__":
    main()
