#!/usr/bin/env bash
# S3Proxy (Maven Central, infra/s3proxy/pom.xml) on http://127.0.0.1:19000 with in-memory ("transient")
# storage. Verifies AWS SigV2/SigV4 signatures and presigned-URL expiry.
# Credentials: test-access-key / test-secret-key; use path-style addressing (forcePathStyle: true).
# Idempotent: reuses an S3 endpoint that already answers. Contents are lost when it stops.
set -euo pipefail
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SDIR="$INFRA_STATE/s3proxy"
PIDFILE="$SDIR/s3proxy.pid"
LOGFILE="$SDIR/s3proxy.log"
CONF="$SDIR/s3proxy.conf"
DEADLINE="${S3_START_TIMEOUT:-120}"
URL="http://127.0.0.1:$S3_PORT"
MARKER="$CONF"

# Any HTTP answer counts (an anonymous GET / gets 403 from S3Proxy); curl prints 000 when nothing answers.
s3_ready() { [[ "$(curl -s -o /dev/null --max-time 2 -w '%{http_code}' "$URL/" || true)" != 000 ]]; }

if pid_running "$PIDFILE" "$MARKER"; then
  if s3_ready; then
    log "s3: already running (pid $(<"$PIDFILE")), reusing"
    echo "S3_ENDPOINT=$URL"
    exit 0
  fi
  log "s3: our S3Proxy (pid $(<"$PIDFILE")) is starting, waiting"
elif s3_ready; then
  log "s3: something not started by these scripts answers on $URL, reusing it"
  echo "S3_ENDPOINT=$URL"
  exit 0
else
  rm -f "$PIDFILE"
  fetch_maven s3 "$INFRA_ROOT/infra/s3proxy/pom.xml" "$SDIR/libs" dependency:copy-dependencies \
    -Dlibs.dir="$SDIR/libs"
  cat >"$CONF" <<CONF
# Written by infra/s3-up.sh; edits are overwritten.
s3proxy.endpoint=$URL
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$S3_ACCESS_KEY_ID
s3proxy.credential=$S3_SECRET_ACCESS_KEY
jclouds.provider=transient
jclouds.identity=remote-identity
jclouds.credential=remote-credential
CONF
  [[ -f $LOGFILE ]] && mv -f "$LOGFILE" "$LOGFILE.prev"
  log "s3: starting S3Proxy"
  start_daemon "$PIDFILE" "$LOGFILE" \
    "$JAVA" -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    -Dlogback.configurationFile="$INFRA_ROOT/infra/s3proxy/logback.xml" \
    -cp "$SDIR/libs/*" org.gaul.s3proxy.Main --properties "$CONF"
fi

t0=$SECONDS
wait_until s3 "$DEADLINE" "$PIDFILE" "$LOGFILE" s3_ready
log "s3: ready at $URL (pid $(<"$PIDFILE"), waited $((SECONDS - t0))s)"
echo "S3_ENDPOINT=$URL"
