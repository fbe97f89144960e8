# shellcheck shell=bash
# Shared by scripts/monitoring/ensure-* and the tests that need a Debian tool (ansible-role): print the path of a
# command, installing the Debian package that carries it when it is missing. Needs root or passwordless sudo to install; says so otherwise. The package's own daemon is not
# started where no init runs it (this machine's PID 1 is not systemd); where one does, it listens on its usual port
# (prometheus :9090, prometheus-node-exporter :9100), which no ferry port uses.
#   ensure_debian_tool NAME COMMAND PACKAGE
ensure_debian_tool() {
  local name=$1 command=$2 package=$3
  if command -v "$command" >/dev/null 2>&1; then
    command -v "$command"
    return 0
  fi
  local sudo=()
  if ((EUID != 0)); then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "$name: $command is missing and installing it needs root; run as root:" >&2
      echo "  apt-get update && apt-get install -y --no-install-recommends $package" >&2
      return 1
    fi
  fi
  echo "$name: installing Debian's $package package (for $command)" >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q update >/dev/null ||
    { echo "$name: apt-get update failed" >&2; return 1; }
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q install -y \
    --no-install-recommends "$package" >&2 || { echo "$name: apt-get install $package failed" >&2; return 1; }
  command -v "$command" || { echo "$name: $package installed but $command is not on PATH" >&2; return 1; }
}
