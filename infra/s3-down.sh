#!/usr/bin/env bash
# Stops the S3Proxy started by infra/s3-up.sh (by its saved PID only).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SDIR="$INFRA_STATE/s3proxy"
stop_pidfile s3 "$SDIR/s3proxy.pid" "$SDIR/s3proxy.conf" 20
