#!/usr/bin/env bash
# Makes sure the PDF tools (POST /v1/tools/*) have their programs: qpdf (merge, split, repair,
# structure checks) and Ghostscript (compress: image downsampling). Installs them from Debian
# when missing; waits for a dpkg lock held by another apt run (up to 300 s). Prints their paths.
set -euo pipefail

PKGS=(qpdf ghostscript)
if ! command -v qpdf >/dev/null || ! command -v gs >/dev/null; then
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "pdf-tools/ensure.sh: not root and no sudo; please install: ${PKGS[*]}" >&2
      exit 1
    fi
    SUDO=(sudo -n)
  fi
  APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q --no-install-recommends)
  echo "pdf-tools/ensure.sh: installing ${PKGS[*]} from Debian" >&2
  if ! "${APT[@]}" install "${PKGS[@]}" >&2; then
    echo "pdf-tools/ensure.sh: install failed, running apt-get update and retrying" >&2
    "${APT[@]}" update >&2
    "${APT[@]}" install "${PKGS[@]}" >&2
  fi
fi
command -v qpdf
command -v gs
