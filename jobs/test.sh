#!/usr/bin/env bash
# Set up, build, and run the whole test suite (every MPI test at 1, 2 and 3 ranks), then build it
# again with AddressSanitizer and UndefinedBehaviorSanitizer (-DADASKETCH_SANITIZE=ON, in
# build-sanitize) and run it once more, two tests at a time (each test declares its ranks as
# PROCESSORS, so a 3-rank test runs alone); ADASKETCH_TEST_SANITIZE=0 skips that round. Extra
# arguments go to ctest (e.g. -R cli_).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$here/jobs/mpi_env.sh"
bash "$here/jobs/setup.sh" "$here/build"
(cd "$here/build" && ctest --output-on-failure --timeout 600 "$@")
if [ "${ADASKETCH_TEST_SANITIZE:-1}" != 0 ]; then
  echo "== the same suite under AddressSanitizer + UndefinedBehaviorSanitizer"
  bash "$here/jobs/setup.sh" "$here/build-sanitize" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DADASKETCH_SANITIZE=ON
  (cd "$here/build-sanitize" && ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@")
fi
