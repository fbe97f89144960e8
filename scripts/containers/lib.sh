# shellcheck shell=bash
# Shared by scripts/containers/*: podman as it works on this project's machines (docs/deploy/containers.md), the image
# names, the cache of base images. Source it; needs root (podman as root, mmdebstrap).
# shellcheck disable=SC2034 # the names are used by the scripts that source this file
set -euo pipefail

CONTAINERS_REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Base roots (mmdebstrap tarballs) are cached here, keyed by their package list: a warm cache builds no root.
CONTAINERS_CACHE=${FERRY_CONTAINERS_CACHE:-/var/cache/ferry-containers}
# The Debian archive this machine's apt uses (deb.debian.org by default); nothing is pulled from a container registry.
DEBIAN_MIRROR=${FERRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_SECURITY=${FERRY_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
AGENT_IMAGE=localhost/ferry-agent:bookworm
NOVA_IMAGE=localhost/ferry-nova-compute:bookworm

clog() { printf '[containers %5.1fs] %s\n' "$SECONDS" "$*" >&2; }
cdie() { printf 'scripts/containers: %s\n' "$*" >&2; exit 1; }

# podman 4.3 (Debian 12) on these machines: no CAP_SYS_RESOURCE (podman's default ulimits fail: default_ulimits = []),
# cgroup v1 controllers with a cgroup2 mount (crun refuses hybrid mode: --runtime runc).
containers_conf=$CONTAINERS_CACHE/containers.conf
pm() {
  CONTAINERS_CONF=$containers_conf podman --runtime runc "$@"
}

containers_prepare() {
  [[ $(id -u) == 0 ]] || cdie "run as root (podman as root, mmdebstrap)"
  local tool
  for tool in podman runc mmdebstrap; do
    command -v "$tool" >/dev/null || cdie "$tool is missing: apt-get install podman runc mmdebstrap"
  done
  mkdir -p "$CONTAINERS_CACHE"
  if [[ ! -f $containers_conf ]]; then
    printf '[containers]\ndefault_ulimits = []\n' >"$containers_conf"
  fi
}

# base_image NAME PACKAGES: localhost/NAME:bookworm from a minbase Debian 12 root holding PACKAGES (comma-separated),
# built by mmdebstrap from the Debian archive and imported (podman import); cached by its package list.
base_image() {
  local name=$1 packages=$2 key tarball
  key=$(printf '%s|%s|%s' "$packages" "$DEBIAN_MIRROR" "$DEBIAN_SECURITY" | sha256sum | cut -c1-12)
  tarball=$CONTAINERS_CACHE/$name-$key.tar
  if pm image exists "localhost/$name:$key"; then
    clog "base image localhost/$name:$key cached"
  else
    if [[ ! -f $tarball ]]; then
      clog "building $tarball (mmdebstrap bookworm minbase + $packages)"
      # shellcheck disable=SC2016 # the hook's $1 is mmdebstrap's (the root), expanded by the hook's own shell
      mmdebstrap --quiet --variant=minbase --include="$packages" \
        --customize-hook='chroot "$1" apt-get clean' \
        bookworm "$tarball.partial.tar" \
        "deb $DEBIAN_MIRROR bookworm main" "deb $DEBIAN_MIRROR bookworm-updates main" \
        "deb $DEBIAN_SECURITY bookworm-security main"
      mv "$tarball.partial.tar" "$tarball"
    fi
    pm import --quiet "$tarball" "localhost/$name:$key" >/dev/null
    clog "imported localhost/$name:$key from $tarball"
  fi
  pm tag "localhost/$name:$key" "localhost/$name:bookworm"
}
