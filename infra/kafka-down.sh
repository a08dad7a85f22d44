#!/usr/bin/env bash
# Stops the Kafka broker started by infra/kafka-up.sh (by its saved PID only). Data dir is kept.
# KAFKA_DIR selects a private broker (see kafka-up.sh).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
KDIR="${KAFKA_DIR:-$INFRA_STATE/kafka}"
stop_pidfile kafka "$KDIR/kafka.pid" "$KDIR/server.properties" "${KAFKA_STOP_TIMEOUT:-60}"
