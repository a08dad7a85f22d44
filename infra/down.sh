#!/usr/bin/env bash
# Stops what infra/up.sh started (only processes recorded in .infra PID files), in parallel:
# SIGTERM, wait, then SIGKILL. Kafka's data dir is kept (FRESH=1 infra/up.sh wipes it).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$INFRA_ROOT/infra"
pids=()
for svc in kafka registry s3 redis; do
  "$HERE/$svc-down.sh" &
  pids+=($!)
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
rm -f "$INFRA_STATE/env"
exit $rc
