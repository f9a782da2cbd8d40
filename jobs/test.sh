#!/usr/bin/env bash
# Set up, build, and run the whole test suite (every MPI test at 1, 2 and 3 ranks).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/jobs/setup.sh" "$here/build"
source "$here/jobs/mpi_env.sh"
cd "$here/build"
ctest --output-on-failure --timeout 600 "$@"
