#!/usr/bin/env bash
# The main grid of the study (README.md): d = 2^16, n = 20,000, ℓ = 20, three data sets; one
# process at a time, about 10 minutes per data set on one core. Results: res_16_<zipf>.jsonl here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
CFG="pure:0:0.1,pure:0:0.01,pure:0:0.001,pure:20:0.01,pure:20:0.001,absorb:5:0.1,absorb:5:0.01,absorb:5:0.001,absorb:10:0.1,absorb:10:0.01,absorb:10:0.001,absorb:20:0.1,absorb:20:0.01,absorb:20:0.001,recycle:20:0.1:0.5,recycle:20:0.01:0.5,recycle:5:0.1:0.5"
for a in 1.1 1.5 0; do
  /usr/bin/python3 run.py --n 20000 --logd 16 --a "$a" --configs "$CFG" --ncheck 4 > "res_16_$a.jsonl"
done
/usr/bin/python3 summarize.py res_16_*.jsonl
