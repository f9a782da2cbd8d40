#!/usr/bin/env bash
# Set up, build, and run the whole test suite (every MPI test at 1, 2 and 3 ranks), then build it
# again with AddressSanitizer and UndefinedBehaviorSanitizer (-DADASKETCH_SANITIZE=ON, in
# build-sanitize) and run it once more, two tests at a time (each test declares its ranks as
# PROCESSORS, so a 3-rank test runs alone); ADASKETCH_TEST_SANITIZE=0 skips that round. Extra
# arguments go to ctest (e.g. -R cli_).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
bash "$here/jobs/setup.sh" "$here/build"
(cd "$here/build" && ctest --output-on-failure --timeout 600 "$@")
if [ "${ADASKETCH_TEST_SANITIZE:-1}" != 0 ]; then
  echo "== the same suite under AddressSanitizer + UndefinedBehaviorSanitizer"
  bash "$here/jobs/setup.sh" "$here/build-sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DADASKETCH_SANITIZE=ON
  (cd "$here/build-sanitize" && ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@")
fi
