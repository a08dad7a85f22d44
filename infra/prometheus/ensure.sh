#!/usr/bin/env bash
# Makes sure Debian's `prometheus` package (prometheus and promtool) is installed and prints the
# directory holding both binaries. The metrics e2e test (test/e2e/distributed-prometheus.e2e.spec.ts)
# starts its own Prometheus from it and runs `promtool check metrics`, `check rules`, `test rules` and
# `check config` on infra/prometheus/. Waits for a dpkg lock held by another apt run.
# Only the binaries are used: the package's own service (if the package starts one) is not needed.
set -euo pipefail

have() { command -v prometheus >/dev/null && command -v promtool >/dev/null; }

if ! have; then
  SUDO=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "prometheus/ensure.sh: not root and no sudo; please install: prometheus" >&2; exit 1; }
    SUDO=(sudo -n)
  fi
  APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q --no-install-recommends)
  echo "prometheus/ensure.sh: installing prometheus from Debian" >&2
  # policy-rc.d 101: the package must not start (or enable) a system Prometheus on :9090 here.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${SUDO[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${SUDO[@]}" chmod +x /usr/sbin/policy-rc.d
    trap '"${SUDO[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  if ! "${APT[@]}" install prometheus >&2; then
    echo "prometheus/ensure.sh: install failed, running apt-get update and retrying" >&2
    "${APT[@]}" update >&2
    "${APT[@]}" install prometheus >&2
  fi
  have || { echo "prometheus/ensure.sh: no prometheus/promtool after install" >&2; exit 1; }
fi
dirname "$(command -v prometheus)"
