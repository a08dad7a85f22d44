#!/usr/bin/env bash
# Starts the four backing services for Pressroom's tests, without Docker, IN PARALLEL:
#   Kafka 4.1.1 (KRaft, 127.0.0.1:19092), Apicurio Registry 3.3 (ccompat API on :18081),
#   S3Proxy 4.0 (:19000) and a private redis-server (:16379).
# Downloads come from Maven Central (cached in ~/.m2 and .infra/). Each service is reused when it
# already answers. Then writes .infra/env (export lines) and prints it. On failure prints the failing
# service's log tail and exits non-zero. FRESH=1 gives Kafka a wiped data dir.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
HERE="$INFRA_ROOT/infra"
mkdir -p "$INFRA_STATE/logs"

t0=$SECONDS
declare -A PIDS=()
for svc in kafka registry s3 redis; do
  # each service's own *-up.sh does fetch + start + readiness wait (with its own deadline);
  # output is prefixed so the interleaved lines stay readable, and kept in .infra/logs/<svc>-up.log
  (
    set -o pipefail
    "$HERE/$svc-up.sh" 2>&1 | tee "$INFRA_STATE/logs/$svc-up.log" | sed -u "s/^/[$svc] /"
  ) &
  PIDS[$svc]=$!
done

failed=()
for svc in kafka registry s3 redis; do
  if ! wait "${PIDS[$svc]}"; then failed+=("$svc"); fi
done
if ((${#failed[@]})); then
  log "up: FAILED: ${failed[*]} (after $((SECONDS - t0))s). Logs: $INFRA_STATE/{kafka/logs,apicurio,s3proxy,redis}/"
  exit 1
fi

cat >"$INFRA_STATE/env.tmp" <<ENV
export KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT
export REDIS_URL=redis://127.0.0.1:$REDIS_PORT
export S3_ENDPOINT=http://127.0.0.1:$S3_PORT
export S3_ACCESS_KEY_ID=$S3_ACCESS_KEY_ID
export S3_SECRET_ACCESS_KEY=$S3_SECRET_ACCESS_KEY
export S3_REGION=us-east-1
export SCHEMA_REGISTRY_URL=http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7
ENV
mv -f "$INFRA_STATE/env.tmp" "$INFRA_STATE/env"
log "up: all services ready in $((SECONDS - t0))s; wrote $INFRA_STATE/env (source it)"
cat "$INFRA_STATE/env"
