#!/usr/bin/env bash
# Makes sure a Chromium for Playwright (executablePath) is installed, from Debian's packages, and prints
# its path. Prefers chromium-headless-shell. Waits for a dpkg lock held by another apt run (up to 300 s).
set -euo pipefail

find_browser() {
  local c
  for c in "$(command -v chromium-headless-shell 2>/dev/null || true)" /usr/bin/chromium-headless-shell \
           /usr/lib/chromium/chromium-headless-shell \
           "$(command -v chromium 2>/dev/null || true)" /usr/bin/chromium /usr/lib/chromium/chromium; do
    [[ -n $c && -x $c ]] && { echo "$c"; return 0; }
  done
  return 1
}

PKGS=(chromium chromium-headless-shell poppler-utils fonts-liberation)
browser="$(find_browser)" || browser=""
# pdftoppm (poppler-utils) is what tests use to rasterise PDFs; install the set when either is missing.
if [[ -z $browser ]] || ! command -v pdftoppm >/dev/null; then
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "ensure.sh: not root and no sudo; please install: ${PKGS[*]}" >&2
      [[ -n $browser ]] && { echo "$browser"; exit 0; }
      exit 1
    fi
    SUDO=(sudo -n)
  fi
  APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q)
  echo "ensure.sh: installing ${PKGS[*]} from Debian" >&2
  if ! "${APT[@]}" install "${PKGS[@]}" >&2; then
    echo "ensure.sh: install failed, running apt-get update and retrying" >&2
    "${APT[@]}" update >&2
    "${APT[@]}" install "${PKGS[@]}" >&2
  fi
  browser="$(find_browser)" || { echo "ensure.sh: no chromium after install" >&2; exit 1; }
fi
echo "$browser"
