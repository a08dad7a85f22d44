# shellcheck shell=bash disable=SC2034
# Shared helpers for the infra/*-up.sh / *-down.sh scripts. Source it, don't run it.
#
# State (downloads, data, logs, PID files) lives in $INFRA_STATE (default: <repo>/.infra, git-ignored).

INFRA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
INFRA_STATE="${INFRA_STATE:-$INFRA_ROOT/.infra}"
JAVA="${JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
MVN="${MVN:-mvn}"

# Ports / endpoints (kept in one place; .infra/env is written from these).
# KAFKA_PORT / KAFKA_CONTROLLER_PORT may be set by a fault test that runs a private broker (see kafka-up.sh).
KAFKA_PORT=${KAFKA_PORT:-19092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-19093}
REGISTRY_PORT=18081
REGISTRY_MGMT_PORT=18082
S3_PORT=19000
REDIS_PORT=16379
S3_ACCESS_KEY_ID=test-access-key
S3_SECRET_ACCESS_KEY=test-secret-key

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# port_open PORT [HOST]: true if a TCP connect succeeds within 1 s.
port_open() {
  timeout 1 bash -c "exec 3<>/dev/tcp/${2:-127.0.0.1}/$1" 2>/dev/null
}

# pid_running PIDFILE MARKER: true if PIDFILE names a live process whose command line contains MARKER
# (guards against a stale PID file whose PID was reused by an unrelated process).
pid_running() {
  local pidfile=$1 marker=$2 pid
  [[ -s $pidfile ]] || return 1
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker"
}

# stop_pidfile NAME PIDFILE MARKER [GRACE_SECONDS]: SIGTERM, wait, then SIGKILL. Only touches the saved PID.
stop_pidfile() {
  local name=$1 pidfile=$2 marker=$3 grace=${4:-30} pid i
  if ! pid_running "$pidfile" "$marker"; then
    [[ -e $pidfile ]] && log "$name: not running (removing stale $(basename "$pidfile"))"
    rm -f "$pidfile"
    return 0
  fi
  pid=$(<"$pidfile")
  log "$name: stopping pid $pid (SIGTERM, up to ${grace}s)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 5; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name: still alive after ${grace}s, SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$pidfile"
  log "$name: stopped"
}

# fetch_maven NAME POM OUTDIR GOAL [MVN ARGS...]: resolve artifacts from Maven Central into OUTDIR.
# Skips Maven entirely when OUTDIR was filled from the same pom before (stamp = sha256 of the pom),
# and wipes OUTDIR when the pom changed so old jars never linger on a classpath.
fetch_maven() {
  local name=$1 pom=$2 outdir=$3 goal=$4
  shift 4
  local stamp="$outdir.stamp" want
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [[ -d $outdir && -f $stamp && "$(<"$stamp")" == "$want" ]]; then
    return 0
  fi
  log "$name: fetching from Maven Central ($(basename "$(dirname "$pom")")/pom.xml, $goal)"
  rm -rf "$outdir" "$stamp" "$(dirname "$outdir")/mvn-markers" "$(dirname "$outdir")/mvn-target"
  mkdir -p "$(dirname "$outdir")"
  local t0=$SECONDS mlog
  mlog="$(dirname "$outdir")/mvn.log"
  if ! "$MVN" -B -q -f "$pom" "$@" "$goal" >"$mlog" 2>&1; then
    tail -n 40 "$mlog" >&2
    die "$name: mvn $goal failed (full log: $mlog)"
  fi
  echo "$want" >"$stamp"
  log "$name: fetched in $((SECONDS - t0))s ($(du -sh "$outdir" | cut -f1))"
}

# wait_until NAME DEADLINE_SECONDS PIDFILE LOGFILE CHECK_CMD...: poll CHECK_CMD until it succeeds.
# Fails early (with the log tail) if the process behind PIDFILE dies; fails at the deadline.
# (Liveness is a plain kill -0 here: right after start_daemon the PID may still show the forking
# shell's command line, and a PID cannot be reused while we wait on a process we just started.)
wait_until() {
  local name=$1 deadline=$2 pidfile=$3 logfile=$4
  shift 4
  local t0=$SECONDS
  until "$@"; do
    if [[ -n $pidfile ]] && ! kill -0 "$(cat "$pidfile" 2>/dev/null || echo 0)" 2>/dev/null; then
      sleep 0.5 # let the log catch up
      log "$name: process exited during start-up; last lines of $logfile:"
      tail -n 60 "$logfile" >&2 2>/dev/null || true
      rm -f "$pidfile"
      return 1
    fi
    if ((SECONDS - t0 >= deadline)); then
      log "$name: not ready after ${deadline}s; last lines of $logfile:"
      tail -n 60 "$logfile" >&2 2>/dev/null || true
      return 1
    fi
    sleep 0.5
  done
}

# start_daemon PIDFILE LOGFILE CMD...: start CMD detached (own session, no stdin), record its PID.
start_daemon() {
  local pidfile=$1 logfile=$2
  shift 2
  mkdir -p "$(dirname "$logfile")" "$(dirname "$pidfile")"
  (exec setsid nohup "$@" >"$logfile" 2>&1 </dev/null) &
  echo $! >"$pidfile"
}

# java_major JAVA_BIN: prints the feature version (17, 21, 25, ...) of a java binary.
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n1
}

# find_java MIN: prints a java binary whose version is >= MIN ($APICURIO_JAVA, $JAVA, then /usr/lib/jvm/*).
find_java() {
  local min=$1 j v
  for j in ${APICURIO_JAVA:-} "$(command -v "$JAVA" 2>/dev/null || true)" /usr/lib/jvm/*/bin/java; do
    [[ -n $j && -x $j ]] || continue
    v="$(java_major "$j")"
    [[ $v =~ ^[0-9]+$ ]] && ((v >= min)) && { echo "$j"; return 0; }
  done
  return 1
}
