#!/usr/bin/env bash
# Run one integration test (file + name filter) N times in a row against the running dev cloud and count the passes:
# a test of concurrent behaviour is trusted only after many runs.
#   scripts/repeat-integration.sh 20 test/integration/prewarm/prewarm.test.ts "two ferry processes"
# Logs: $TMPDIR/ferry-repeat-<i>.log. Exit 1 when any run failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
runs=${1:?usage: repeat-integration.sh N FILE [NAME]}
file=${2:?usage: repeat-integration.sh N FILE [NAME]}
name=${3:-}
if ! [[ $runs =~ ^[0-9]+$ ]] || ((runs == 0)); then echo "repeat-integration: N must be a positive number, got '$runs'" >&2; exit 2; fi
pass=0 fail=0
for ((i = 1; i <= runs; i++)); do
  log=${TMPDIR:-/tmp}/ferry-repeat-$i.log
  started=$SECONDS
  if FERRY_KEEP_DEVCLOUD=1 timeout 900 node scripts/run-integration.mjs "$file" ${name:+-t "$name"} >"$log" 2>&1; then
    pass=$((pass + 1)) result=pass
  else
    fail=$((fail + 1)) result="FAIL (see $log)"
  fi
  echo "run $i/$runs: $result in $((SECONDS - started)) s"
done
echo "$pass passed, $fail failed"
((fail == 0))
