#!/usr/bin/env bash
# The installed package as downstream projects use it, each consumer run at 1, 2 and 3 ranks:
#   static: the build tree's libadasketch.a installed, then a CXX-only CMake project
#           (find_package) and a pkg-config build (`pkg-config --static`);
#           Also, against the static prefix: the C program of tests/c_api built with pkg-config, the
#           Fortran program of tests/fortran as a CMake project (when the module was installed) and
#           the Python program with the installed module (when it was), each run on a small LIBSVM
#           file at 1, 2 and 3 ranks (each checks its own results);
#   shared: the library alone rebuilt from the sources with BUILD_SHARED_LIBS=ON (no drivers, no
#           tests), installed, then the same two consumers (pkg-config without --static), and a
#           check that the consumer really loads libadasketch.so.
#   README: the C++ example of README.md, built as the README says and run at 1, 2 and 3 ranks.
# Usage: run.sh <build-dir> <mpiexec> <source-dir>
set -euo pipefail
build="$1"; mpiexec="$2"; source="$3"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
sanitize="$(grep -E '^ADASKETCH_SANITIZE:' "$build/CMakeCache.txt" | cut -d= -f2-)"
cxx_flags=""  # the sanitizer round builds every consumer, and the shared library, instrumented
case "$sanitize" in ON|on|TRUE|true|1) cxx_flags="-fsanitize=address,undefined" ;; *) sanitize=OFF ;; esac

run_everywhere() {  # <what> <program> [arguments...]
  local what="$1"; shift
  for np in 1 2 3; do
    if ! out=$("$mpiexec" -n "$np" --oversubscribe --allow-run-as-root "$@" 2>&1); then
      echo "install_consumer: $what at $np ranks failed:"; echo "$out"; exit 1
    fi
    echo "$what, $np ranks: $out"
  done
}

consumers() {  # <prefix> <label> <pkg-config flags...>
  local prefix="$1" label="$2"; shift 2
  test -f "$prefix/include/adasketch/sketch/sketch.hpp"
  cmake -S "$here" -B "$work/$label-cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_FLAGS="$cxx_flags" >/dev/null
  cmake --build "$work/$label-cmake" >/dev/null
  run_everywhere "$label CMake consumer" "$work/$label-cmake/consumer"
  local pc_dir
  pc_dir="$(dirname "$(find "$prefix" -name adasketch.pc | head -1)")"
  # shellcheck disable=SC2046,SC2086
  mpicxx -std=c++20 $cxx_flags "$here/consumer.cpp" -o "$work/$label-pkgconfig" \
    $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs "$@" adasketch) -Wl,-rpath,"$prefix/lib"
  run_everywhere "$label pkg-config consumer" "$work/$label-pkgconfig"
}

# Static: the build tree as it is.
cmake --install "$build" --prefix "$work/static" >/dev/null
test -x "$work/static/bin/adasketch"
test -f "$work/static/lib/libadasketch.a"
consumers "$work/static" static --static

# The README's library example, as a reader would build it (its command line, pkg-config --static).
awk '/^```cpp$/ { keep = 1; next } /^```$/ { keep = 0 } keep' "$source/README.md" >"$work/readme.cpp"
test -s "$work/readme.cpp"
# shellcheck disable=SC2046,SC2086
mpicxx -std=c++20 $cxx_flags "$work/readme.cpp" -o "$work/readme" \
  $(PKG_CONFIG_PATH="$(dirname "$(find "$work/static" -name adasketch.pc | head -1)")" pkg-config --static --cflags --libs adasketch)
(cd "$work" && run_everywhere "README example" "$work/readme")
test -s "$work/toy.model"

# The C, Fortran and Python interfaces as installed.
"$work/static/bin/adasketch" generate --data synthetic:sparse-classification:d=200,n=300,nnz=10 --format libsvm \
  --out "$work/data.svm" >/dev/null
awk '{ printf "%s %d", $1, NF - 1; for (i = 2; i <= NF; ++i) { split($i, e, ":"); printf " %s %s", e[1], e[2] } print "" }' \
  "$work/data.svm" >"$work/data.txt"
pc_static="$(dirname "$(find "$work/static" -name adasketch.pc | head -1)")"
# shellcheck disable=SC2046,SC2086
mpicc -std=c11 $cxx_flags "$source/tests/c_api/train.c" -o "$work/train_c" \
  $(PKG_CONFIG_PATH="$pc_static" pkg-config --cflags --libs --static adasketch) -lm
run_everywhere "installed C program" "$work/train_c" "$work/data.svm" fast-rfd-son 5 "$work/c.model" "$work/c.ckpt"
if [ -f "$work/static/include/adasketch/fortran/adasketch.mod" ]; then
  cmake -S "$here/fortran" -B "$work/fortran" -DCMAKE_PREFIX_PATH="$work/static" >/dev/null
  cmake --build "$work/fortran" >/dev/null
  run_everywhere "installed Fortran program" "$work/fortran/train_fortran" "$work/data.txt" ada-fd 5 "$work/f.model" "$work/f.ckpt"
fi
site="$(find "$work/static" -path '*/adasketch/_core.cpython-*.so' -printf '%h\n' | head -1)"
[ -z "$site" ] || site="$(dirname "$site")"  # the package's parent directory
if [ -n "$site" ] && [ -n "${ADASKETCH_PYTHON:-}" ]; then
  export PYTHONPATH="$site"
  run_everywhere "installed Python module" "$ADASKETCH_PYTHON" \
    "$source/python/tests/train_python.py" "$work/data.svm" oja-son 5 "$work/p.model" "$work/p.ckpt"
  # the installed package's scikit-learn estimators: docs/python.md's examples as written
  if "$ADASKETCH_PYTHON" -c "import sklearn" 2>/dev/null; then
    run_everywhere "installed Python estimators" "$ADASKETCH_PYTHON" "$source/python/tests/run_doc_examples.py" \
      "$source/docs/python.md"
  fi
fi

# Shared: the library alone.
cmake -S "$source" -B "$work/shared-build" -DBUILD_SHARED_LIBS=ON -DADASKETCH_BUILD_DRIVERS=OFF \
  -DADASKETCH_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=Release -DADASKETCH_SANITIZE="$sanitize" >/dev/null
cmake --build "$work/shared-build" -j "$(nproc)" >/dev/null
cmake --install "$work/shared-build" --prefix "$work/shared" >/dev/null
test -f "$work/shared/lib/libadasketch.so"
consumers "$work/shared" shared
for program in "$work/shared-cmake/consumer" "$work/shared-pkgconfig"; do
  ldd "$program" >"$work/ldd.txt"  # (not piped into grep -q: with pipefail, ldd's SIGPIPE would fail the check)
  grep -q "$work/shared/lib/libadasketch.so" "$work/ldd.txt" || { echo "install_consumer: $program does not load libadasketch.so"; exit 1; }
done
echo "install_consumer: all consumers passed"
