#!/usr/bin/env bash
# Apicurio Registry 3.x (Quarkus fast-jar from Maven Central, infra/apicurio/pom.xml) with in-memory H2
# storage. Confluent-compatible API: http://127.0.0.1:18081/apis/ccompat/v7 (management on 127.0.0.1:18082).
# Idempotent: reuses a registry that already answers. Contents are lost when it stops.
# Apicurio 3.3.x is compiled for Java 21 (class file 65): the JVM is $APICURIO_JAVA, else the first
# java >= 21 among $JAVA and /usr/lib/jvm/*/bin/java (this machine kind ships Temurin 25 there).
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RDIR="$INFRA_STATE/apicurio"
PIDFILE="$RDIR/registry.pid"
LOGFILE="$RDIR/registry.log"
DEADLINE="${REGISTRY_START_TIMEOUT:-150}"
URL="http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7"
JAR="$RDIR/dist/quarkus-run.jar"
MARKER="$JAR"

registry_ready() { curl -sf -o /dev/null --max-time 2 "$URL/subjects"; }

if pid_running "$PIDFILE" "$MARKER"; then
  if registry_ready; then
    log "registry: already running (pid $(<"$PIDFILE")), reusing"
    echo "SCHEMA_REGISTRY_URL=$URL"
    exit 0
  fi
  log "registry: our registry (pid $(<"$PIDFILE")) is starting, waiting"
elif registry_ready; then
  log "registry: something not started by these scripts answers on $URL, reusing it"
  echo "SCHEMA_REGISTRY_URL=$URL"
  exit 0
else
  port_open "$REGISTRY_PORT" && die "registry: port $REGISTRY_PORT is taken by something that is not a schema registry"
  rm -f "$PIDFILE"
  fetch_maven registry "$INFRA_ROOT/infra/apicurio/pom.xml" "$RDIR/dist" dependency:unpack \
    -Dapicurio.dir="$RDIR/dist"
  [[ -f $JAR ]] || die "registry: $JAR missing after unpack (archive layout changed?)"
  RJAVA="$(find_java 21)" || die "registry: Apicurio Registry 3.3 needs Java >= 21; none found \
(checked \$APICURIO_JAVA, $JAVA, /usr/lib/jvm/*/bin/java). Install one or set APICURIO_JAVA=/path/to/java"
  [[ -f $LOGFILE ]] && mv -f "$LOGFILE" "$LOGFILE.prev"
  log "registry: starting Apicurio Registry ($RJAVA)"
  # ccompat ids: Apicurio's default (legacy-id-mode off) hands out content ids, which is what Confluent SR
  # does too (one id per distinct schema, shared across subjects); POST .../versions ids round-trip
  # through GET /schemas/ids/<id>. Management interface (health, metrics) moved off 0.0.0.0:9000.
  start_daemon "$PIDFILE" "$LOGFILE" \
    "$RJAVA" -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$REGISTRY_MGMT_PORT" \
    -Dquarkus.http.access-log.enabled=false \
    -jar "$JAR"
fi

t0=$SECONDS
wait_until registry "$DEADLINE" "$PIDFILE" "$LOGFILE" registry_ready
log "registry: ready at $URL (pid $(<"$PIDFILE"), waited $((SECONDS - t0))s)"
echo "SCHEMA_REGISTRY_URL=$URL"
