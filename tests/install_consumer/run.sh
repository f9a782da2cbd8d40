#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, builds the consumer against it, runs it on 2 ranks.
# Usage: run.sh <build-dir> <mpiexec>
set -euo pipefail
build="$1"; mpiexec="$2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/adasketch"
test -f "$work/prefix/include/adasketch/sketch/sketch.hpp"
cmake -S "$(dirname "$0")" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$mpiexec" -n 2 --oversubscribe --allow-run-as-root "$work/build/consumer"
