# Sourced by run_cli_tests.sh (which defines run, fail, expect_error, $work, $data_dir): the `faults`
# mode, described in run_cli_tests.sh's header.

faults() {
  local np=$1 r kind
  local train_a9a=(train --algo fast-ada-fd --ell 10 --data "$data_dir/a9a.gz")
  local ranks=$((np - 1))
  [ "$np" -gt 1 ] && ranks="$ranks 0"
  for r in $ranks; do
    for kind in error alloc lapack; do
      [ "$r" = 0 ] && [ "$np" -gt 1 ] && [ "$kind" != error ] && continue
      local expected="adasketch: error on rank $r: "
      [ "$np" = 1 ] && expected="adasketch: error: "
      local start=$SECONDS
      ADASKETCH_TEST_FAIL_ON_RANK=$r:700:$kind ADASKETCH_ERROR_TIMEOUT=2 run "$np" "${train_a9a[@]}"
      local first
      first=$(head -n 1 "$work/run.stderr")
      if [ "$rc" = 124 ]; then
        fail "np=$np $kind on rank $r at example 700: timed out (hang)"
      elif [ "$rc" = 0 ] || [[ "$first" != "$expected"* ]]; then
        fail "np=$np $kind on rank $r at example 700: exit $rc; stderr: $(head -c 400 "$work/run.stderr")"
      else
        echo "ok   np=$np [$rc, $((SECONDS - start)) s] $first"
      fi
    done
  done
  ADASKETCH_TEST_FAIL_ON_RANK=$((np - 1)):700:nan expect_error "$np" 1 "a9a.gz:700: fast-ada-fd: step 700: the score" \
    "${train_a9a[@]}"
  [[ "$(head -n 1 "$work/run.stderr")" == *"non-finite feature value"* ]] ||
    fail "np=$np nan on rank $((np - 1)): $(head -n 1 "$work/run.stderr")"
}
