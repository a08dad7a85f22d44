#!/usr/bin/env bash
# Start smoke of the embedded profile with whichever `node` is first on PATH (CI runs it on Node 20
# after the full suite ran on Node 22): `npm start` listens, /readyz answers, one HTML render comes
# back as a PDF, and SIGTERM stops it cleanly. A private data dir and port; nothing shared is touched.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

DATA="$(mktemp -d "${TMPDIR:-/tmp}/pressroom-smoke.XXXXXX")"
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
KEY="prk_smoke_$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
LOG="$DATA/service.log"
BASE="http://127.0.0.1:$PORT"
PID=""
cleanup() {
  [[ -n $PID ]] && kill -TERM -- "-$PID" 2>/dev/null || true
  # The app's children may still be closing files for a moment after npm exited.
  rm -rf "$DATA" 2>/dev/null || { sleep 2; rm -rf "$DATA"; }
}
trap cleanup EXIT

echo "start-smoke: $(node --version), port $PORT"
# Its own process group (set -m), so the cleanup reaches tsx, the app and Chromium.
set -m
PORT=$PORT PRESSROOM_PROFILE=embedded PRESSROOM_DATA_DIR="$DATA/data" PRESSROOM_API_KEY="$KEY" \
  PRESSROOM_ADMIN_TOKEN="adm_smoke" PRESSROOM_LOG_LEVEL=warn npm start >"$LOG" 2>&1 &
PID=$!
set +m

for _ in $(seq 1 120); do
  curl -fsS "$BASE/readyz" >/dev/null 2>&1 && break
  kill -0 "$PID" 2>/dev/null || { cat "$LOG"; echo "start-smoke: the service exited before it was ready" >&2; exit 1; }
  sleep 0.5
done
curl -fsS "$BASE/readyz" >/dev/null || { tail -50 "$LOG"; echo "start-smoke: not ready after 60 s" >&2; exit 1; }

answer="$(curl -fsS -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d '{"html":"<p>Node smoke</p>"}' "$BASE/v1/html-to-pdf/sync")"
url="$(node -e 'console.log(JSON.parse(process.argv[1]).signedUrl)' "$answer")"
# Downloaded to a file, not piped into `head`: under pipefail, head closing the pipe early makes curl
# fail with 23 ("Failed writing body") whenever it had not finished writing — a race, not a bad PDF.
curl -fsS -o "$DATA/render.pdf" "$url" || { echo "start-smoke: the download failed: $answer" >&2; exit 1; }
[[ "$(head -c 5 "$DATA/render.pdf")" == '%PDF-' ]] || { echo "start-smoke: the render is not a PDF: $answer" >&2; exit 1; }

kill -TERM -- "-$PID"
rc=0
wait "$PID" || rc=$?
PID=""
[[ $rc == 0 || $rc == 143 ]] || { tail -50 "$LOG"; echo "start-smoke: exit status $rc after SIGTERM" >&2; exit 1; }
echo "start-smoke: ok (ready, rendered a PDF, stopped)"
