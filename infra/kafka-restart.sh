#!/usr/bin/env bash
# Fault-test helper: stop the broker (SIGTERM, wait; SIGKILL after the grace period) and start it again
# on the SAME data dir (no reformat). Topics, offsets and committed data survive.
set -euo pipefail
HERE="$(dirname "${BASH_SOURCE[0]}")"
"$HERE/kafka-down.sh"
FRESH=0 exec "$HERE/kafka-up.sh"
