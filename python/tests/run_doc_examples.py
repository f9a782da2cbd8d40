"""Runs the ```python blocks of a Markdown page in order, in one namespace, as a user would paste
them (under mpirun -np P: on every rank). Fails on the first exception or failed assert.

Usage: run_doc_examples.py PAGE.md
"""
import re
import sys

page = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```python\n(.*?)^```", page, flags=re.S | re.M)
if not blocks:
    sys.exit(f"run_doc_examples: no python blocks in {sys.argv[1]}")
namespace = {"__name__": "__main__"}
for i, block in enumerate(blocks, 1):
    exec(compile(block, f"{sys.argv[1]} (python block {i})", "exec"), namespace)
print(f"run_doc_examples: {len(blocks)} blocks of {sys.argv[1]} ran")
