#!/usr/bin/env bash
# Stops the Redis started by infra/redis-up.sh (by its saved PID only; SIGTERM = shutdown without saving).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
stop_pidfile redis "$INFRA_STATE/redis/redis.pid" ":$REDIS_PORT" 10
