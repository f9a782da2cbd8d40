#!/usr/bin/env bash
# Set up, build, and run the whole test suite (every MPI test at 1, 2 and 3 ranks), as many tests at a
# time as there are cores (each test declares its ranks as PROCESSORS, so a 3-rank test runs alone).
# Then the sanitizer round: the unit tests (label `unit`: the library's and the drivers' GoogleTest
# binaries and the fuzz corpus replays) built again with AddressSanitizer and
# UndefinedBehaviorSanitizer (-DADASKETCH_SANITIZE=ON, in build-sanitize) and run once more, on
# Debian's reference BLAS and LAPACK (libblas3, liblapack3) instead of OpenBLAS: OpenBLAS's assembly
# kernels are not instrumented, and its SSE2 dsymv_L kernel (the one OpenBLAS 0.3.21 picks on CPUs it
# does not know) reads up to 24 bytes past y, which faults when ASan's allocator puts the buffer at
# the end of a mapping (docs/testing.md). ADASKETCH_TEST_SANITIZE=0 skips that round. Extra arguments
# go to ctest (e.g. -R cli_).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
# One node: Open MPI's ob1 transport (shared memory), named, so that each of the suite's thousands of
# mpiexec starts skips probing libfabric and UCX (0.17 s instead of 0.37 s per start, measured here).
export OMPI_MCA_pml=ob1
bash "$here/jobs/setup.sh" "$here/build"
(cd "$here/build" && ctest --output-on-failure --timeout 600 -j "$(nproc)" "$@")
if [ "${ADASKETCH_TEST_SANITIZE:-1}" != 0 ]; then
  echo "== the unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, on the reference BLAS and LAPACK"
  ADASKETCH_BUILD_TARGET=adasketch_unit_tests bash "$here/jobs/setup.sh" "$here/build-sanitize" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DADASKETCH_SANITIZE=ON -DBLA_VENDOR=Generic
  multiarch=$(gcc -print-multiarch)
  reference="/usr/lib/$multiarch/blas:/usr/lib/$multiarch/lapack"
  LD_LIBRARY_PATH="$reference" ldd "$here/build-sanitize/tests/test_sketch" >"$here/build-sanitize/ldd.txt"
  grep -E 'blas|lapack' "$here/build-sanitize/ldd.txt"
  ! grep -q openblas "$here/build-sanitize/ldd.txt" || { echo "test.sh: the sanitizer round still loads OpenBLAS"; exit 1; }
  (cd "$here/build-sanitize" && LD_LIBRARY_PATH="$reference${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
     ctest --output-on-failure --timeout 900 -j "$(nproc)" -L unit "$@")
fi
