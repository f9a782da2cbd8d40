#!/usr/bin/env bash
# Runs the hostile input corpus (manifest.txt, format described there) against `adasketch`.
#
#   run_hostile.sh ADASKETCH MPIEXEC NP
#
# First generates the inputs that are awkward to keep as files (gzip, dense binary, model and
# checkpoint files, long lines, a pipe) into a scratch directory, then runs every case at NP ranks, a few at a time,
# each under `timeout 60` (a timeout is a failure: "hang") with the address space of every process
# limited to 2 GB (ADASKETCH_HOSTILE_VMEM_KB), so that a case which asks for more memory fails fast
# instead of exhausting the machine. Under AddressSanitizer (ASAN_OPTIONS set, as the sanitizer build's
# tests are), which reserves terabytes of shadow address space, a 1 GB cap on any one allocation
# (max_allocation_size_mb) takes the place of the address-space limit, and the cases that expect "not
# enough memory" are skipped: ASan's operator new aborts instead of throwing std::bad_alloc (the
# normal build runs them).
# HOSTILE_CASES=REGEX runs only the cases whose ID matches.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../cli/launcher_noise.sh"

adasketch=$1 mpiexec=$2 np=$3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work=$(mktemp -d "${TMPDIR:-/tmp}/adasketch-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
gen=$work/gen out=$work/out
mkdir -p "$gen" "$out"
export OPENBLAS_NUM_THREADS=1
# Open MPI's mpirun waits 1 s (and more under load) before it kills the ranks left when one exits
# non-zero; every rank of an all-ranks error exits right after MPI_Finalize, after rank 0 printed.
export OMPI_MCA_odls_base_sigkill_timeout=0
mpi_flags=(--oversubscribe --quiet)
[ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
vmem_kb=${ADASKETCH_HOSTILE_VMEM_KB:-2097152}
if [ -n "${ASAN_OPTIONS:-}" ]; then
  export ASAN_OPTIONS="$ASAN_OPTIONS:allocator_may_return_null=1:max_allocation_size_mb=1024"
  vmem_kb=unlimited
fi

# --- generated inputs ----------------------------------------------------------------------------

# u64 V: 8 bytes, little-endian.
u64() {
  local i
  for i in 0 1 2 3 4 5 6 7; do printf "\\$(printf '%03o' $((($1 >> (8 * i)) & 255)))"; done
}
# f64 NAME: a few doubles, little-endian.
f64() {
  case $1 in
    0) printf '\0\0\0\0\0\0\0\0' ;;
    1) printf '\0\0\0\0\0\0\xf0\x3f' ;;
    -1) printf '\0\0\0\0\0\0\xf0\xbf' ;;
    2) printf '\0\0\0\0\0\0\0\x40' ;;
    3) printf '\0\0\0\0\0\0\x08\x40' ;;
    nan) printf '\0\0\0\0\0\0\xf8\x7f' ;;
    inf) printf '\0\0\0\0\0\0\xf0\x7f' ;;
  esac
}
# put64 FILE OFFSET V: overwrites 8 bytes of FILE with V, little-endian.
put64() { u64 "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# get64 FILE OFFSET: the little-endian uint64 at OFFSET (as bash's signed 64-bit integer).
get64() { od -An -td8 -j "$2" -N 8 "$1" | tr -d ' '; }
# fnv1a FILE FROM TO [H]: 64-bit FNV-1a of bytes [FROM, TO), continued from the hash H if given
# (bash's arithmetic wraps modulo 2^64).
fnv1a() {
  local h=${4:-$((0xcbf29ce484222325))} b
  for b in $(od -An -v -tu1 -j "$2" -N $(($3 - $2)) "$1"); do h=$(((h ^ b) * 0x100000001b3)); done
  echo "$h"
}
# splitmix64 Z (logical right shifts written as arithmetic shifts and a mask).
splitmix64() {
  local z=$(($1 + 0x9e3779b97f4a7c15))
  z=$(((z ^ ((z >> 30) & 0x3ffffffff)) * 0xbf58476d1ce4e5b9))
  z=$(((z ^ ((z >> 27) & 0x1fffffffff)) * 0x94d049bb133111eb))
  echo $((z ^ ((z >> 31) & 0x1ffffffff)))
}
# reseal_checkpoint FILE [FIELD]: recomputes, by the formulas of docs/formats.md, the checksum of the one-word
# field number FIELD (if given), then the field table's and the header's, so that the readers get
# past them to the checks behind (a crafted file, not an accident).
reseal_checkpoint() {
  local f=$1 n row table
  n=$(get64 "$f" 200)
  table=$(checkpoint_table "$f")
  if [ -n "${2:-}" ]; then
    row=$((table + 80 * $2))
    put64 "$f" $((row + 64)) $(splitmix64 $(($(get64 "$f" $(get64 "$f" $((row + 56)))) ^ $(splitmix64 0))))
  fi
  put64 "$f" 216 "$(fnv1a "$f" "$table" $((table + 80 * n)))"
  put64 "$f" 504 "$(fnv1a "$f" 0 504)"
}
# checkpoint_table FILE: where a checkpoint's field table starts: after the 512-byte header and the
# spec block (S bytes of text, uint64 at 192; L label values, uint64 at 184; its checksum).
checkpoint_table() { echo $((512 + $(get64 "$1" 192) + 8 * $(get64 "$1" 184) + 8)); }
# reseal_model FILE: recomputes a model file's weights checksum, over the n = d·K words of W, and its
# header checksum, over bytes 0–119 then the L label values and the 16-byte trailer after W
# (docs/formats.md).
reseal_model() {
  local f=$1 sum=0 e n tail
  n=$(($(get64 "$f" 16) * $(get64 "$f" 24)))
  tail=$((128 + 8 * n))
  for ((e = 0; e < n; e++)); do sum=$((sum + $(splitmix64 $(($(get64 "$f" $((128 + 8 * e))) ^ $(splitmix64 "$e")))))); done
  put64 "$f" 112 "$sum"
  put64 "$f" 120 "$(fnv1a "$f" "$tail" $((tail + 8 * $(get64 "$f" 96) + 16)) "$(fnv1a "$f" 0 120)")"
}
# dense MAGIC N D VALUES...: a dense binary file on stdout.
dense() {
  local magic=$1 n=$2 d=$3 v
  shift 3
  printf '%s' "$magic"
  u64 "$n"
  u64 "$d"
  for v in "$@"; do f64 "$v"; done
}
# flip FILE OFFSET: inverts the bits of one byte.
flip() {
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

generate() {
  local g=$gen ok=$here/libsvm/ok.svm size
  # gzip
  gzip -9nc "$ok" >"$g/gz_ok.gz"
  size=$(wc -c <"$g/gz_ok.gz")
  head -c $((size / 2)) "$g/gz_ok.gz" >"$g/gz_cut.gz"
  head -c 10 "$g/gz_ok.gz" >"$g/gz_header_only.gz"
  cp "$g/gz_ok.gz" "$g/gz_bad_crc.gz" && flip "$g/gz_bad_crc.gz" $((size - 8))
  cat "$g/gz_ok.gz" "$g/gz_ok.gz" >"$g/gz_concat.gz"
  { cat "$g/gz_ok.gz"; printf 'trailing garbage\n'; } >"$g/gz_trailing_garbage.gz"
  printf '\x1f\x8bnot deflate data at all\n' >"$g/gz_not_deflate.gz"
  gzip -9nc </dev/null >"$g/gz_empty.gz"
  gzip -9nc "$here/libsvm/label_word.svm" >"$g/gz_bad_text.gz"
  # dense binary: 3 rows of (label, x1, x2), and broken variants
  dense ADSKDNS1 3 2 1 1 2 -1 2 1 1 3 0 >"$g/dense_ok.bin"
  { cat "$g/dense_ok.bin"; printf 'x'; } >"$g/dense_extra_byte.bin"
  dense ADSKDNS1 2 2 1 1 2 >"$g/dense_truncated.bin"
  head -c 12 "$g/dense_ok.bin" >"$g/dense_short_header.bin"
  dense ADSKDNS2 3 2 1 1 2 -1 2 1 1 3 0 >"$g/dense_bad_magic.bin"
  dense ADSKDNS1 3 0 1 1 2 -1 2 1 1 3 0 >"$g/dense_d0.bin"
  dense ADSKDNS1 0 2 1 1 2 -1 2 1 1 3 0 >"$g/dense_n0.bin"
  dense ADSKDNS1 9223372036854775807 2 1 1 2 -1 2 1 1 3 0 >"$g/dense_n_huge.bin"
  dense ADSKDNS1 1 4611686018427387904 1 1 2 -1 2 1 1 3 0 >"$g/dense_d_huge.bin"
  dense ADSKDNS1 2 2 1 1 2 1 nan 1 >"$g/dense_nan.bin"
  dense ADSKDNS1 2 2 inf 1 2 1 1 1 >"$g/dense_inf_label.bin"
  # long lines: 200,000 pairs on one line (2 MB), and one 1 MB token
  awk 'BEGIN { printf "+1"; for (i = 1; i <= 200000; i++) printf " %d:1", i; printf "\n-1 1:1\n" }' >"$g/long_line.svm"
  { printf '+1 1:'; head -c 1048576 /dev/zero | tr '\0' x; printf '\n'; } >"$g/long_token.svm"
  # large files (4.2 MB, 6,000 lines of 100 features): several 1 MiB chunks, so that ranks other than 0
  # parse the bad lines; line 5501 bad (chunk 3), or lines 2001 and 3801 (chunks 1 and 2)
  big() {
    awk -v bad="$1" 'BEGIN { for (i = 1; i <= 6000; i++) {
      if (i == 5501 && bad == 1) { print "oops 1:1"; continue }
      if (i == 2001 && bad == 2) { print "1 2:1 1:1"; continue }
      if (i == 3801 && bad == 2) { print "oops 1:1"; continue }
      printf "%s", (i % 2 ? "+1" : "-1"); for (j = 1; j <= 100; j++) printf " %d:%d.%d", j, (i * j) % 7, j % 10; printf "\n" } }'
  }
  big 0 >"$g/big_ok.svm"
  big 1 >"$g/big_bad_late.svm"
  # Softmax K is the number of distinct labels: 65536 of them, and d = 2^48.
  awk 'BEGIN { for (k = 0; k < 65536; k++) print k " 1:1"; print "0 281474976710656:1" }' >"$g/softmax_dk_wrap.svm"
  gzip -6nc "$g/big_bad_late.svm" >"$g/big_bad_late.gz"
  big 2 >"$g/big_two_errors.svm"
  # a gzip bomb: 24 members of 64 MB of 'x' (3 MB compressed), one 1.5 GB line beyond the memory limit
  head -c 67108864 /dev/zero | tr '\0' x | gzip -9n >"$work/x.gz"
  for size in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do cat "$work/x.gz"; done >"$g/gz_bomb.gz"
  mkfifo "$g/fifo.svm"
  cp "$ok" "$g/ok_copy.svm" && ln -s ok_copy.svm "$g/ok_link.svm"
  # models, trained at 1 rank: d = 4 logistic, softmax K = 3, RFD-SON squared; then broken copies
  local train=(timeout 60 "$mpiexec" -n 1 "${mpi_flags[@]}" "$adasketch" train)
  "${train[@]}" --algo ada-diag --data "$ok" --model "$g/model.bin" >/dev/null &&
    "${train[@]}" --algo ada-diag --loss softmax --data "$here/libsvm/multiclass.svm" --model "$g/softmax.model" >/dev/null &&
    "${train[@]}" --algo rfd-son --loss squared --data "$ok" --model "$g/rfdson.model" >/dev/null ||
    { echo "FAIL: could not train the models the model cases start from"; return 1; }
  head -c 152 "$g/model.bin" >"$g/model_truncated"
  head -c 100 "$g/model.bin" >"$g/model_short_header"
  { cat "$g/model.bin"; u64 0; } >"$g/model_extra_bytes"
  cp "$g/model.bin" "$g/model_flip_weight" && flip "$g/model_flip_weight" 139
  cp "$g/model.bin" "$g/model_flip_header" && flip "$g/model_flip_header" 12  # the label map code
  cp "$g/model.bin" "$g/model_bad_magic" && flip "$g/model_bad_magic" 3
  : >"$g/model_empty"
  cp "$g/model.bin" "$g/model_nan_weight" && f64 nan | dd of="$g/model_nan_weight" bs=1 seek=$((128 + 8 * 2)) conv=notrunc status=none &&
    reseal_model "$g/model_nan_weight"
  # checkpoints, written at 1 rank: ada-fd with ℓ = 2 (field 13 of its table is fd.filled, after the base's seven), a
  # softmax one, one of a 2-pass run; then broken copies
  "${train[@]}" --algo ada-fd --ell 2 --data "$ok" --checkpoint "$g/ckpt" >/dev/null &&
    "${train[@]}" --algo ada-fd --ell 2 --loss softmax --data "$here/libsvm/multiclass.svm" --checkpoint "$g/ckpt_softmax" >/dev/null &&
    "${train[@]}" --algo ada-diag --passes 2 --data "$ok" --checkpoint "$g/ckpt_2passes" >/dev/null ||
    { echo "FAIL: could not write the checkpoints the checkpoint cases start from"; return 1; }
  size=$(wc -c <"$g/ckpt")
  head -c $((size - 100)) "$g/ckpt" >"$g/ckpt_truncated"
  head -c 300 "$g/ckpt" >"$g/ckpt_short_header"
  { cat "$g/ckpt"; u64 0; } >"$g/ckpt_extra_bytes"
  cp "$g/ckpt" "$g/ckpt_flip_header" && flip "$g/ckpt_flip_header" 17
  cp "$g/ckpt" "$g/ckpt_flip_table" && flip "$g/ckpt_flip_table" $(($(checkpoint_table "$g/ckpt") + 40))
  cp "$g/ckpt" "$g/ckpt_flip_spec" && flip "$g/ckpt_flip_spec" 517
  cp "$g/ckpt" "$g/ckpt_flip_data" && flip "$g/ckpt_flip_data" $((size - 3))
  cp "$g/ckpt" "$g/ckpt_bad_magic" && flip "$g/ckpt_bad_magic" 5
  : >"$g/ckpt_empty"
  cp "$g/ckpt" "$g/ckpt_version4" && printf '\004' | dd of="$g/ckpt_version4" bs=1 seek=8 conv=notrunc status=none &&
    reseal_checkpoint "$g/ckpt_version4"
  cp "$g/ckpt" "$g/ckpt_version6" && printf '\006' | dd of="$g/ckpt_version6" bs=1 seek=8 conv=notrunc status=none &&
    reseal_checkpoint "$g/ckpt_version6"
  cp "$g/ckpt" "$g/ckpt_huge_d" && put64 "$g/ckpt_huge_d" 16 1000000000000 && reseal_checkpoint "$g/ckpt_huge_d"
  cp "$g/ckpt" "$g/ckpt_bad_algo" && printf 'ada-xx' | dd of="$g/ckpt_bad_algo" bs=1 seek=32 conv=notrunc status=none &&
    reseal_checkpoint "$g/ckpt_bad_algo"
  cp "$g/ckpt" "$g/ckpt_filled_99" && put64 "$g/ckpt_filled_99" "$(get64 "$g/ckpt" $(($(checkpoint_table "$g/ckpt") + 80 * 13 + 56)))" 99 &&
    reseal_checkpoint "$g/ckpt_filled_99" 13
  cp "$g/ckpt" "$g/ckpt_mistakes" && put64 "$g/ckpt_mistakes" 128 5 && reseal_checkpoint "$g/ckpt_mistakes"
}

# --- cases ---------------------------------------------------------------------------------------

# json_value FILE KEY: the value of the member KEY, written one per line as `  "KEY": value,`
json_value() {
  awk -v key="\"$2\":" '$1 == key { v = $2; sub(/,$/, "", v); print v; exit }' "$1"
}

trim() {
  local s=$1
  s=${s#"${s%%[![:space:]]*}"}
  printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# run_case ID EXPECT ARGS: prints "ok ..." or "FAIL: ...".
run_case() {
  local id=$1 expect=$2 args_text=$3 word
  local -a args=()
  read -ra words <<<"$args_text"
  for word in "${words[@]}"; do
    word=${word//\{H\}/$here}
    word=${word//\{G\}/$gen}
    word=${word//\{T\}/$out}
    args+=("$word")
  done
  local o=$out/$id.np$np report=$out/$id.np$np.json
  [[ $expect == accept* ]] && args+=(--report "$report")
  (ulimit -v "$vmem_kb" && exec timeout 60 "$mpiexec" -n "$np" "${mpi_flags[@]}" "$adasketch" "${args[@]}") \
    >"$o.stdout" 2>"$o.stderr"
  local rc=$? what="$id (np=$np)"
  drop_launcher_noise "$o.stderr"
  if [ "$rc" = 124 ]; then
    echo "FAIL: $what: timed out after 60 s (hang)"
    return
  fi
  if [ "$rc" -gt 128 ] || grep -qE 'Segmentation|core dumped|Sanitizer|runtime error:|Process received signal|Abort' "$o.stdout" "$o.stderr"; then
    echo "FAIL: $what: crashed (exit $rc):"
    head -n 5 "$o.stderr" | sed 's/^/    | /'
    return
  fi
  local lines first
  lines=$(wc -l <"$o.stderr")
  first=$(head -n 1 "$o.stderr")
  if [[ $expect == accept* ]]; then
    local checks=${expect#accept} check key value got
    checks=${checks%%:*}
    if [ "$rc" != 0 ] || [ -s "$o.stderr" ]; then
      echo "FAIL: $what: expected to be accepted, got exit $rc: $(head -c 300 "$o.stderr")"
      return
    fi
    for check in $checks; do
      key=${check%%=*} value=${check#*=}
      got=$(json_value "$report" "$key")
      if [ "$got" != "$value" ]; then
        echo "FAIL: $what: report says $key = $got, expected $value"
        return
      fi
    done
    echo "ok   $what: accepted ($checks)"
    return
  fi
  if [[ $expect == warn* ]]; then
    local warning=${expect#warn }
    if [ "$rc" != 0 ] || [ "$lines" != 1 ] || [[ $first != "adasketch: warning: "*"$warning"* ]]; then
      echo "FAIL: $what: expected exit 0 and one warning containing '$warning', got exit $rc: $(head -c 300 "$o.stderr")"
    else
      echo "ok   $what: [0] ${first#adasketch: }"
    fi
    return
  fi
  local code needle
  read -r _ code needle <<<"$expect"
  if [ "$rc" != "$code" ]; then
    echo "FAIL: $what: exit $rc, expected $code; stderr: $(head -c 300 "$o.stderr")"
  elif [ "$lines" != 1 ]; then
    echo "FAIL: $what: $lines lines on stderr, expected 1:"
    sed 's/^/    | /' "$o.stderr"
  elif [[ $first != "adasketch: error: "* ]]; then
    echo "FAIL: $what: stderr does not start with 'adasketch: error: ': $first"
  elif [[ $first != *"$needle"* ]]; then
    echo "FAIL: $what: stderr does not contain '$needle': $first"
  else
    echo "ok   $what: [$rc] ${first#adasketch: error: }"
  fi
}

generate || exit 1
jobs_max=${ADASKETCH_CLI_TEST_JOBS:-4}
count=0
while IFS= read -r line; do
  [[ -z ${line//[[:space:]]/} || $line == \#* ]] && continue
  IFS='|' read -r id expect args <<<"$line"
  id=$(trim "$id") expect=$(trim "$expect") args=$(trim "$args")
  if [ -z "$id" ] || [ -z "$expect" ] || [ -z "$args" ]; then
    echo "FAIL: malformed manifest line: $line"
    echo "FAIL" >"$out/manifest.result"
    continue
  fi
  [[ -n ${HOSTILE_CASES:-} && ! $id =~ $HOSTILE_CASES ]] && continue
  if [ "$vmem_kb" = unlimited ] && [[ $expect == *"not enough memory"* ]]; then
    echo "skip $id (np=$np): expects std::bad_alloc, which ASan's operator new does not throw"
    continue
  fi
  count=$((count + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  run_case "$id" "$expect" "$args" </dev/null >"$out/$(printf %04d "$count").result" &
done <"$here/manifest.txt"
wait

failures=0
for f in "$out"/*.result; do
  [ -e "$f" ] || continue
  cat "$f"
  failures=$((failures + $(grep -c '^FAIL' "$f")))
done
# The cases that name an input as an output must have left it alone.
if [[ -z ${HOSTILE_CASES:-} ]] && ! cmp -s "$here/libsvm/ok.svm" "$gen/ok_copy.svm"; then
  echo "FAIL: an input named as an output was modified"
  failures=$((failures + 1))
fi
echo "$count cases at np=$np, $failures failure(s)"
[ "$failures" = 0 ]
