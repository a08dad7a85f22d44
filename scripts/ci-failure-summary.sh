#!/usr/bin/env bash
# ci-failure-summary.sh LOG_DIR PHASE... : what went wrong in each failed CI phase, for the END of
# `.ci/run`'s output (CI's record keeps only the tail; a failure 700 s into the run is otherwise cut
# off). LOG_DIR holds one <phase>.log per phase that logged its output. For each PHASE named (the
# failed ones, in order): the first lines of every failed test file and unhandled error (vitest's
# ` FAIL ` blocks) when the log has any, else the last lines of the log. Prints nothing when no
# named phase has a log.
set -uo pipefail
dir=$1
shift
max_lines=${CI_SUMMARY_LINES:-120}
tail_lines=${CI_SUMMARY_TAIL:-25}
for phase in "$@"; do
  log="$dir/$phase.log"
  [[ -s $log ]] || continue
  clean=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  failed=$(printf '%s\n' "$clean" | awk '/^ *FAIL |Unhandled (Error|Rejection)/{n=6} n>0{print; n--}' | head -n "$max_lines")
  if [[ -n $failed ]]; then
    printf '\n=== [ci] %s failed: failed tests (first lines of each)\n%s\n' "$phase" "$failed"
  else
    printf '\n=== [ci] %s failed: last %s lines of its output\n' "$phase" "$tail_lines"
    printf '%s\n' "$clean" | tail -n "$tail_lines"
  fi
done
exit 0
