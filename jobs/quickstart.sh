#!/usr/bin/env bash
# Set up, build, and run the main job on the embedded a9a data (32,561 × 123) with 2 MPI ranks:
# the FD and RFD sketches at ℓ = 10 and their exact relative spectral errors.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/jobs/setup.sh" "$here/build"
source "$here/jobs/mpi_env.sh"
for method in fd rfd; do
  mpirun -np 2 --oversubscribe "$here/build/drivers/adasketch" sketch --method "$method" --ell 10 \
    --data "$here/tests/data/a9a.gz"
done
