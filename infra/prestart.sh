#!/usr/bin/env bash
# Run by `npm start` before the service: installs what is missing from Debian's packages where it
# can (apt), and otherwise only says what is missing. It never stops the start: with CHROMIUM_PATH
# set, or on a machine without apt (Alpine, macOS, a distroless image), the service starts and
# reports a missing browser or PDF tool itself (one clear error at start, or on /readyz).
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ -n ${CHROMIUM_PATH:-} ]]; then
  [[ -x $CHROMIUM_PATH ]] || echo "prestart: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" >&2
elif command -v apt-get >/dev/null; then
  bash infra/chromium/ensure.sh >/dev/null || echo "prestart: could not install Chromium; set CHROMIUM_PATH to a Chromium binary" >&2
else
  echo "prestart: no apt-get here; install Chromium and set CHROMIUM_PATH if the service does not find it" >&2
fi

if ! command -v qpdf >/dev/null || ! command -v gs >/dev/null; then
  if command -v apt-get >/dev/null; then
    bash infra/pdf-tools/ensure.sh >/dev/null || echo "prestart: could not install qpdf and ghostscript; /v1/tools/* need them" >&2
  else
    echo "prestart: qpdf or ghostscript missing and no apt-get; /v1/tools/* need them (install them with your package manager)" >&2
  fi
fi
exit 0
