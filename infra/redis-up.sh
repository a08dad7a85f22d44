#!/usr/bin/env bash
# Private Redis (Debian's redis-server) on 127.0.0.1:16379, no persistence; files under .infra/redis.
# Idempotent: reuses a Redis that already answers PING on that port.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DDIR="$INFRA_STATE/redis"
PIDFILE="$DDIR/redis.pid"
LOGFILE="$DDIR/redis.log"
DEADLINE="${REDIS_START_TIMEOUT:-30}"
MARKER=":$REDIS_PORT"   # redis-server shows "redis-server 127.0.0.1:16379" as its command line

redis_ready() { [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]; }

if redis_ready; then
  if pid_running "$PIDFILE" "$MARKER"; then
    log "redis: already running (pid $(<"$PIDFILE")), reusing"
  else
    log "redis: something not started by these scripts answers on 127.0.0.1:$REDIS_PORT, reusing it"
  fi
  echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  exit 0
fi

command -v redis-server >/dev/null || die "redis: redis-server not found (apt-get install -y redis-server)"
port_open "$REDIS_PORT" && die "redis: port $REDIS_PORT is taken by something that does not answer PING"
if ! pid_running "$PIDFILE" "$MARKER"; then
  rm -f "$PIDFILE"
  mkdir -p "$DDIR"
  log "redis: starting redis-server"
  # --daemonize makes redis write its own (daemon) PID to --pidfile.
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$DDIR" --daemonize yes --pidfile "$PIDFILE" --logfile "$LOGFILE" </dev/null >/dev/null
fi

t0=$SECONDS
wait_until redis "$DEADLINE" "" "$LOGFILE" redis_ready
log "redis: ready on 127.0.0.1:$REDIS_PORT (pid $(cat "$PIDFILE" 2>/dev/null || echo '?'), waited $((SECONDS - t0))s)"
echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
