#!/usr/bin/env bash
# Creates the unprivileged system user the renderer process (and Chromium, with its sandbox on)
# runs as when the service itself runs as root: set PRESSROOM_RENDER_USER to the name it prints.
# The user has no home, no shell and no password; it needs read access to the source tree and
# node_modules (world-readable in a normal checkout) and nothing else. Idempotent.
#   infra/renderer-user.sh [name]        default name: pressroom-render
set -euo pipefail
name="${1:-pressroom-render}"
if [[ $(id -u) -ne 0 ]]; then
  echo "renderer-user.sh: must run as root (the service is not root? then the renderer already runs unprivileged)" >&2
  exit 1
fi
if ! id -u "$name" >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group "$name"
fi
# Chromium's sandbox needs unprivileged user namespaces; say so when the kernel refuses them.
if ! setpriv --reuid="$name" --regid="$name" --clear-groups unshare --user --map-root-user true 2>/dev/null; then
  echo "renderer-user.sh: warning: $name cannot create user namespaces here; Chromium's sandbox will not start" >&2
  echo "  (enable kernel.unprivileged_userns_clone / user.max_user_namespaces, or allow them in the container's seccomp/AppArmor profile)" >&2
fi
echo "$name"
