#!/usr/bin/env bash
# `npm test`: every test this machine can run, real components included.
# Uses the endpoints in the environment when all are set (CI, your own services); otherwise
# starts the local components with infra/up.sh (Kafka, Apicurio, S3Proxy, Redis) and uses those.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

bash infra/chromium/ensure.sh >/dev/null
bash infra/prometheus/ensure.sh >/dev/null
bash infra/pdf-tools/ensure.sh >/dev/null
if [[ -z "${KAFKA_BROKERS:-}" || -z "${REDIS_URL:-}" || -z "${S3_ENDPOINT:-}" || -z "${SCHEMA_REGISTRY_URL:-}" ]]; then
  bash infra/up.sh >/dev/null
  # shellcheck disable=SC1091
  source .infra/env
fi
export PRESSROOM_ALLOW_PRIVATE_WEBHOOKS=true
exec npx vitest run "$@"
