#!/usr/bin/env bash
# Set up, build, and run the main job on the embedded a9a data (32,561 × 123) with 2 MPI ranks:
# the FD and RFD sketches at ℓ = 10 and their exact relative spectral errors.
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
bash "$here/jobs/setup.sh" "$here/build"
for method in fd rfd; do
  launch 2 "$ADASKETCH_BIN" sketch --method "$method" --ell 10 \
    --data "$here/tests/data/a9a.gz"
done
