#!/usr/bin/env python3
"""Fails on a broken relative link in README.md and docs/*.md: a missing file, a path outside the
repository, or an #anchor that names no heading of the target page (GitHub's heading slugs).
No network: http(s) and mailto links are not followed.

Usage: check_doc_links.py REPO_ROOT [FILE.md ...]   (default files: README.md, docs/*.md)
       check_doc_links.py --self-test
"""
import os
import re
import sys
import tempfile

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with inline code spans removed."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        marker = re.match(r"^\s*(```|~~~)", line)
        if marker:
            fence = None if fence == marker.group(1) else (fence or marker.group(1))
            continue
        if fence is None:
            yield number, re.sub(r"(`+)(?:(?!\1).)+\1", "", line)


def slug(heading):
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation removed, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    with open(path, encoding="utf-8") as f:
        text = f.read()
    fence = None
    for line in text.split("\n"):
        marker = re.match(r"^\s*(```|~~~)", line)
        if marker:
            fence = None if fence == marker.group(1) else (fence or marker.group(1))
            continue
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line) if fence is None else None
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def check(root, files):
    root = os.path.realpath(root)
    problems = []
    for name in files:
        path = os.path.join(root, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, line in prose_lines(text):
            for match in LINK.finditer(line):
                target = match.group(1)
                if EXTERNAL.match(target):
                    continue
                file_part, _, anchor = target.partition("#")
                where = f"{name}:{number}: {target}"
                resolved = os.path.realpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if os.path.commonpath([root, resolved]) != root:
                    problems.append(f"{where}: outside the repository")
                elif not os.path.exists(resolved):
                    problems.append(f"{where}: no such file")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    problems.append(f"{where}: no heading with anchor #{anchor}")
    return problems


def self_test():
    """The checker on a page with known good and broken links: exactly the broken ones are reported."""
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "docs"))
        with open(os.path.join(tmp, "docs", "a.md"), "w", encoding="utf-8") as f:
            f.write("# A page\n\n## `adasketch train`\n\n## Data: the formats\n\n## Data: the formats\n"
                    "\n```\n## not a heading\n```\n")
        with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as f:
            f.write("# Top\n\n"
                    "[ok](docs/a.md) [ok](docs/a.md#adasketch-train) [ok](docs/a.md#data-the-formats-1)\n"
                    "[ok](#top) [ok](docs) [web](https://example.org/x.md) `[code](missing.md)`\n"
                    "[bad](docs/b.md) [bad](docs/a.md#not-a-heading) [bad](#nowhere)\n"
                    "[bad](../outside.md) [ok](docs/a.md \"title\")\n"
                    "```\n[code](missing.md)\n```\n")
        got = check(tmp, ["README.md", "docs/a.md"])
    expected = ["README.md:5: docs/b.md: no such file",
                "README.md:5: docs/a.md#not-a-heading: no heading with anchor #not-a-heading",
                "README.md:5: #nowhere: no heading with anchor #nowhere",
                "README.md:6: ../outside.md: outside the repository"]
    if got != expected:
        print("self-test failed: reported\n  " + "\n  ".join(got) + "\nexpected\n  " + "\n  ".join(expected))
        return 1
    print("self-test passed")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    files = argv[2:] or ["README.md"] + sorted(
        os.path.join("docs", n) for n in os.listdir(os.path.join(root, "docs")) if n.endswith(".md"))
    problems = check(root, files)
    for p in problems:
        print(p)
    print(f"{len(files)} pages, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
