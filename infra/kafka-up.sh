#!/usr/bin/env bash
# Single-node KRaft Kafka broker on 127.0.0.1:19092 (controller 127.0.0.1:19093), no Docker.
# Jars come from Maven Central (infra/kafka/pom.xml) and are cached in ~/.m2 and .infra/kafka/libs.
# Idempotent: reuses a broker that is already up. Formats storage only when the data dir is not
# formatted yet (FRESH=1 wipes the data dir first, restarting our own broker if it is running).
#
# A private broker (fault tests that stop or kill it, never the shared one):
#   KAFKA_PORT=29092 KAFKA_CONTROLLER_PORT=29093 KAFKA_DIR=/tmp/my-kafka infra/kafka-up.sh
#   KAFKA_DIR=/tmp/my-kafka infra/kafka-down.sh
# KAFKA_DIR holds its data, logs and PID file; the jars stay shared (KAFKA_LIBS, default the
# shared state dir's). KAFKA_HEAP caps its heap (default 768m).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KDIR="${KAFKA_DIR:-$INFRA_STATE/kafka}"
LIBS="${KAFKA_LIBS:-$INFRA_STATE/kafka/libs}"
PIDFILE="$KDIR/kafka.pid"
PROPS="$KDIR/server.properties"
DEADLINE="${KAFKA_START_TIMEOUT:-150}"
MARKER="$PROPS"   # our broker's command line contains this absolute path

kafka_ready() { grep -q "Kafka Server started" "$KDIR/logs/server.log" 2>/dev/null && port_open "$KAFKA_PORT"; }

if [[ ${FRESH:-0} == 1 ]] && pid_running "$PIDFILE" "$MARKER"; then
  log "kafka: FRESH=1, restarting our broker on a wiped data dir"
  stop_pidfile kafka "$PIDFILE" "$MARKER" 60
fi

if pid_running "$PIDFILE" "$MARKER"; then
  if kafka_ready; then
    log "kafka: already running (pid $(<"$PIDFILE")), reusing"
    echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
    exit 0
  fi
  log "kafka: our broker (pid $(<"$PIDFILE")) is starting, waiting"
elif port_open "$KAFKA_PORT"; then
  log "kafka: something not started by these scripts answers on 127.0.0.1:$KAFKA_PORT, reusing it"
  echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
  exit 0
else
  rm -f "$PIDFILE"
  mkdir -p "$KDIR/logs"
  fetch_maven kafka "$INFRA_ROOT/infra/kafka/pom.xml" "$LIBS" dependency:copy-dependencies \
    -Dlibs.dir="$LIBS"
  CP="$LIBS/*"

  if [[ ${FRESH:-0} == 1 ]]; then
    log "kafka: FRESH=1, wiping $KDIR/data"
    rm -rf "$KDIR/data"
  fi

  cat >"$PROPS" <<PROPS
# Written by infra/kafka-up.sh; edits are overwritten.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KDIR/data

num.network.threads=2
num.io.threads=2
num.partitions=1
num.recovery.threads.per.data.dir=1
auto.create.topics.enable=true
delete.topic.enable=true

offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# tests may use short consumer session timeouts
group.min.session.timeout.ms=1000

log.cleaner.dedupe.buffer.size=33554432
PROPS

  LOG_OPTS=(-Dkafka.logs.dir="$KDIR/logs" -Dlog4j2.configurationFile="$INFRA_ROOT/infra/kafka/log4j2.xml")

  if [[ ! -f $KDIR/data/meta.properties ]]; then
    # Cluster id = base64url of 16 random bytes (what `kafka-storage.sh random-uuid` prints), passed
    # as --cluster-id=<id>: one in 64 starts with '-', which `-t <id>` would read as an option;
    # made here to save a JVM start. Static quorum (controller.quorum.voters), so no --standalone.
    CLUSTER_ID="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
    log "kafka: formatting $KDIR/data (cluster id $CLUSTER_ID)"
    "$JAVA" -Xmx256m -XX:TieredStopAtLevel=1 "${LOG_OPTS[@]}" -cp "$CP" kafka.tools.StorageTool \
      format --cluster-id="$CLUSTER_ID" -c "$PROPS" >"$KDIR/logs/format.log" 2>&1 \
      || { cat "$KDIR/logs/format.log" >&2; die "kafka: storage format failed"; }
  else
    log "kafka: reusing formatted data dir $KDIR/data"
  fi

  # keep the previous run's log for post-mortems, and so a stale "Kafka Server started" can't fool us
  [[ -f $KDIR/logs/server.log ]] && mv -f "$KDIR/logs/server.log" "$KDIR/logs/server.log.prev"
  log "kafka: starting broker"
  start_daemon "$PIDFILE" "$KDIR/logs/stdout.log" \
    "$JAVA" -Xms256m -Xmx"${KAFKA_HEAP:-768m}" -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 \
    -Djava.awt.headless=true "${LOG_OPTS[@]}" -cp "$CP" kafka.Kafka "$PROPS"
fi

t0=$SECONDS
wait_until kafka "$DEADLINE" "$PIDFILE" "$KDIR/logs/server.log" kafka_ready \
  || { log "kafka: last lines of $KDIR/logs/stdout.log:"; tail -n 30 "$KDIR/logs/stdout.log" >&2 2>/dev/null || true; exit 1; }
log "kafka: ready on 127.0.0.1:$KAFKA_PORT (pid $(<"$PIDFILE"), waited $((SECONDS - t0))s)"
echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT"
