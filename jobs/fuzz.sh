#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (ASan + UBSan) in build-fuzz/ and runs each
# for FUZZ_SECONDS (default 600) on its corpus tests/fuzz/corpus/<target>/, one target at a time at
# low priority, then minimizes the corpus (-merge=1) in place. An empty corpus is first seeded with
# small valid and invalid inputs. Crashes are left as build-fuzz/artifacts/<target>/crash-*.
# Usage: [FUZZ_SECONDS=N] [FUZZ_TARGETS="libsvm_line data_file model_file checkpoint_file"] bash jobs/fuzz.sh
set -euo pipefail
jobs_dir=$(dirname "${BASH_SOURCE[0]}")  # sbatch runs a copy: then the submitted script's (jobs/lib/env.sh)
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=$(dirname "$(scontrol show job "${SLURM_JOB_ID:-none}" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p')")
[ -f "$jobs_dir/lib/env.sh" ] ||
  jobs_dir=${ADASKETCH_REPO:?jobs/lib/env.sh not found next to this script: set it to the adasketch repository}/jobs
source "$jobs_dir/lib/env.sh"
here=$ADASKETCH_REPO
build="$here/build-fuzz"
seconds="${FUZZ_SECONDS:-600}"
targets=(${FUZZ_TARGETS:-libsvm_line data_file model_file checkpoint_file})

command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (apt-get install clang)" >&2; exit 1; }
CC=clang CXX=clang++ cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DADASKETCH_BUILD_TESTS=OFF \
  -DADASKETCH_FUZZ=ON >/dev/null
cmake --build "$build" -j 2 --target "${targets[@]/#/fuzz_}"

# The MPI targets run without leak checks: Open MPI's allocations at MPI_Init are never freed and
# its plugins are unloaded at MPI_Finalize, which leaves their stacks unreadable to suppressions.
leaks() { [ "$1" = libsvm_line ] && echo 1 || echo 0; }
# Inputs up to 4 KB; checkpoints of the seeds' small learners are 2–5 KB.
max_len() { [ "$1" = checkpoint_file ] && echo 8192 || echo 4096; }
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TMPDIR="${TMPDIR:-/tmp}"

# seed TARGET: writes a few inputs (byte 0 is the target's mode byte) into an empty corpus.
seed() {
  local dir=$1/$2 work
  work=$(mktemp -d)
  case $2 in
    libsvm_line)
      local i=0 line
      while IFS= read -r line; do
        for mode in '\000' '\217' '\032'; do printf "$mode%s" "$line" >"$dir/seed$((i++))"; done
      done <<'LINES'
+1 1:0.5 3:2
-1	2:1e-3   # tail comment
2 1:-4 2:1e-400 3:.25 7:+8
1 qid:3 1:1
0 1:1e400 2:nan
3 2:1 2:1 1:0x1p3
LINES
      ;;
    data_file)
      printf '\000+1 1:0.5 3:2 \r\n\r\n# comment\n-1\t2:1e-3\n0\n2 1:-4 2:1e-400 3:.25' >"$dir/text"
      printf '\001+1 1:1\n-1 2:1\n' >"$dir/gzip-of-text"
      printf '\002\xef\xbb\xbf+1 1:1\n-1 2:1 5:1' >"$dir/dim-and-bom"
      { printf '\000'; printf '+1 1:1\n-1 2:1\n' | gzip -9n; } >"$dir/gzip-file"
      { printf '\004ADSKDNS1\002\0\0\0\0\0\0\0\002\0\0\0\0\0\0\0'
        printf '\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\xf0\x3f\0\0\0\0\0\0\0\x40'
        printf '\0\0\0\0\0\0\xf0\xbf\0\0\0\0\0\0\0\x40\0\0\0\0\0\0\xf0\x3f'; } >"$dir/dense"
      ;;
    model_file)
      local adasketch="$ADASKETCH_BIN"
      [ -x "$adasketch" ] || { echo "fuzz: seeding model_file needs $adasketch (bash jobs/setup.sh)" >&2; exit 1; }
      printf '+1 1:1 3:2\n-1 2:1\n' >"$work/bin.svm"
      printf '1 1:1\n3 2:1\n2 3:-1\n' >"$work/multi.svm"
      "$adasketch" train --algo ada-diag --data "$work/bin.svm" --model "$work/bin.model" >/dev/null
      "$adasketch" train --algo ada-fd --loss softmax --data "$work/multi.svm" --model "$work/multi.model" >/dev/null
      "$adasketch" train --algo rfd-son --loss squared --data "$work/bin.svm" --model "$work/reg.model" >/dev/null
      local m
      for m in bin multi reg; do
        { printf '\000'; cat "$work/$m.model"; } >"$dir/$m"
        { printf '\003'; cat "$work/$m.model"; } >"$dir/$m-fix-checksums"
      done
      ;;
    checkpoint_file)
      local adasketch="$ADASKETCH_BIN" a
      [ -x "$adasketch" ] || { echo "fuzz: seeding checkpoint_file needs $adasketch (bash jobs/setup.sh)" >&2; exit 1; }
      printf '+1 1:1 3:2\n-1 2:1\n+1 1:-1 2:0.5\n' >"$work/bin.svm"
      printf '1 1:1\n3 2:1\n2 3:-1\n' >"$work/multi.svm"
      # one learner of each state layout, ℓ = 2 so that FD shrinks within the three examples
      for a in ada-diag ada-diag-da ada-fd ada-fd-da fast-ada-fd ada-gp ada-dp fd-son fast-fd-son rp-son oja-son \
               rfd-son fast-rfd-son; do
        "$adasketch" train --algo "$a" --ell 2 --data "$work/bin.svm" --checkpoint "$work/$a.ckpt" >/dev/null
      done
      "$adasketch" train --algo ada-fd --ell 2 --loss softmax --data "$work/multi.svm" --checkpoint "$work/softmax.ckpt" >/dev/null
      "$adasketch" train --algo rfd-son --ell 2 --loss squared --data "$work/bin.svm" --checkpoint "$work/squared.ckpt" >/dev/null
      for m in "$work"/*.ckpt; do
        a=$(basename "$m" .ckpt)
        { printf '\000'; cat "$m"; } >"$dir/$a"
        { printf '\007'; cat "$m"; } >"$dir/$a-fix-checksums"
      done
      ;;
  esac
  rm -rf "$work"
}

status=0
for t in "${targets[@]}"; do
  corpus="$here/tests/fuzz/corpus/$t"
  artifacts="$build/artifacts/$t"
  mkdir -p "$corpus" "$artifacts"
  [ -n "$(ls -A "$corpus")" ] || seed "$here/tests/fuzz/corpus" "$t"
  echo "fuzz: $t for $seconds s ($(ls "$corpus" | wc -l) corpus files)"
  rm -rf "$build/new-$t" && mkdir -p "$build/new-$t"
  ASAN_OPTIONS="detect_leaks=$(leaks "$t")" nice -n 10 "$build/tests/fuzz/fuzz_$t" "$build/new-$t" "$corpus" \
    -max_total_time="$seconds" -max_len="$(max_len "$t")" -timeout=30 -rss_limit_mb=4096 -detect_leaks="$(leaks "$t")" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 >"$build/fuzz-$t.log" 2>&1 || status=1
  grep -E "^(==|SUMMARY|stat::|Done)|ERROR|invariant" "$build/fuzz-$t.log" | tail -n 12
  # Minimize: the old corpus and what this run found, merged into the smallest covering set.
  rm -rf "$build/merged-$t" && mkdir -p "$build/merged-$t"
  ASAN_OPTIONS="detect_leaks=$(leaks "$t")" nice -n 10 "$build/tests/fuzz/fuzz_$t" -merge=1 -detect_leaks="$(leaks "$t")" "$build/merged-$t" "$corpus" "$build/new-$t" 2>&1 | tail -n 2
  rm -rf "$corpus" && mv "$build/merged-$t" "$corpus" && rm -rf "$build/new-$t"
  echo "fuzz: $t corpus now $(ls "$corpus" | wc -l) files, $(du -sk "$corpus" | cut -f1) KB"
done
[ "$status" = 0 ] || echo "fuzz: a target failed: see build-fuzz/fuzz-<target>.log and build-fuzz/artifacts/" >&2
exit "$status"
