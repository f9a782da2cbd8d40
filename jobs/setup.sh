#!/usr/bin/env bash
# Installs what adasketch needs from Debian 12 packages (when missing), then configures and builds.
# Usage: bash jobs/setup.sh [build-dir [cmake options...]]    (default: build, Release)
# ADASKETCH_BUILD_TARGET=<target> builds that target only (default: all).
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
build="${1:-$here/build}"
shift $(($# > 0 ? 1 : 0))

packages=(build-essential cmake openmpi-bin libopenmpi-dev libopenblas-dev liblapacke-dev
          libblas3 liblapack3 libscalapack-openmpi-dev libgtest-dev zlib1g-dev pkgconf gfortran
          python3-dev pybind11-dev python3-mpi4py python3-numpy python3-scipy python3-sklearn python3-matplotlib
          libcli11-dev nlohmann-json3-dev libhdf5-openmpi-dev libxtensor-dev liblinear-tools
          slurm-wlm munge doxygen)
missing=()
for p in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python module is built for Debian's python3, where the packages above put mpi4py and numpy.
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3 "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${ADASKETCH_BUILD_TARGET:-all}"
