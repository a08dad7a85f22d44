#!/usr/bin/env bash
# Stops the Apicurio Registry started by infra/registry-up.sh (by its saved PID only).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RDIR="$INFRA_STATE/apicurio"
stop_pidfile registry "$RDIR/registry.pid" "$RDIR/dist/quarkus-run.jar" 30
