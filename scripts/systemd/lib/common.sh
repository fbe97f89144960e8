# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file
# Shared by scripts/systemd/{up,down,ctl}: where the private systemd keeps its state, how to reach it.
# Sourced, never run.

SYSTEMD_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SYSTEMD_REPO_ROOT=$(cd "$SYSTEMD_LIB_DIR/../../.." && pwd)

DEVCLOUD_DIR=${FERRY_DEVCLOUD_DIR:-$SYSTEMD_REPO_ROOT/.devcloud}
case $DEVCLOUD_DIR in
  /*) ;;
  *) DEVCLOUD_DIR=$PWD/$DEVCLOUD_DIR ;;
esac
DEVCLOUD_DIR=${DEVCLOUD_DIR%/}
# Everything of the private systemd: pid files, its log, the agent's drop-in, environment, nova.conf and Ceph copies.
# FERRY_SYSTEMD_STATE_DIR: another private systemd beside that one (scripts/systemd/up-clean's throw-away root).
STATE_DIR=${FERRY_SYSTEMD_STATE_DIR:-$DEVCLOUD_DIR/systemd}
# Host PID of `unshare` (parent of the namespace) and of the namespace's PID 1 (/lib/systemd/systemd).
UNSHARE_PID_FILE=$STATE_DIR/unshare.pid
INIT_PID_FILE=$STATE_DIR/init.pid
CGROUP_FILE=$STATE_DIR/cgroup
# Output of boot.sh (errors before systemd runs). systemd itself logs to its journal: scripts/systemd/ctl journalctl.
LOG_FILE=$STATE_DIR/systemd.log

SYSTEMD_BIN=/lib/systemd/systemd

log() { printf '[systemd] %s\n' "$*"; }
die() {
  printf 'scripts/systemd: %s\n' "$*" >&2
  exit 1
}

# The host's cgroup2 mount: /sys/fs/cgroup on a unified host, /sys/fs/cgroup/unified on a hybrid one.
host_cgroup2() {
  local path
  for path in /sys/fs/cgroup /sys/fs/cgroup/unified; do
    if [[ $(stat -f -c %T "$path" 2>/dev/null) == cgroup2fs ]]; then
      echo "$path"
      return 0
    fi
  done
  return 1
}

# Why this machine cannot run the private systemd (one line), or nothing when it can.
cannot_run_reason() {
  if [[ $(id -u) != 0 ]]; then
    echo 'not root (namespaces, mounts and a cgroup are needed)'
  elif [[ ! -x $SYSTEMD_BIN ]]; then
    echo "no $SYSTEMD_BIN (install the Debian package systemd)"
  elif ! command -v unshare >/dev/null || ! command -v nsenter >/dev/null || ! command -v setpriv >/dev/null; then
    echo 'no unshare/nsenter/setpriv (install util-linux)'
  elif ! host_cgroup2 >/dev/null; then
    echo 'no cgroup2 hierarchy mounted (systemd needs /sys/fs/cgroup or /sys/fs/cgroup/unified as cgroup2)'
  elif ! unshare --pid --fork --mount --uts --ipc --cgroup --mount-proc true 2>/dev/null; then
    echo 'cannot create pid/mount/uts/ipc/cgroup namespaces (unshare failed: no CAP_SYS_ADMIN, or a seccomp filter)'
  fi
}

# Host PID of the running private systemd, or failure.
init_pid() {
  local pid
  [[ -f $INIT_PID_FILE ]] || return 1
  pid=$(<"$INIT_PID_FILE")
  [[ -n $pid && -d /proc/$pid ]] || return 1
  # The PID must still be our systemd, not a recycled number.
  [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$(readlink -f "$SYSTEMD_BIN")" ]] || return 1
  echo "$pid"
}

# Run a command inside the private systemd's namespaces (its /run, /etc/systemd/system, PID namespace).
in_ns() {
  local pid
  pid=$(init_pid) || die "the private systemd is not running (scripts/systemd/up)"
  # --wd: keep the caller's directory (the namespace shares the host's /work, /tmp, ...), so relative paths work.
  nsenter --target "$pid" --mount --uts --ipc --pid --cgroup --wd="$PWD" -- "$@"
}

# Boot the private systemd (or keep the running one) and wait until it has finished booting. With
# FERRY_SYSTEMD_OVERLAY_DIR set, boot.sh first lays throw-away overlays on /etc, /usr and /var (scripts/systemd/up-clean).
boot_private_systemd() {
  local pid cgroot cgroup unshare_pid child state
  if pid=$(init_pid); then
    log "private systemd already running (PID $pid)"
  else
    cgroot=$(host_cgroup2)
    cgroup=$cgroot/ferry-systemd.$(printf '%s' "$STATE_DIR" | cksum | cut -d' ' -f1)
    mkdir -p "$cgroup"
    echo "$cgroup" >"$CGROUP_FILE"
    : >"$LOG_FILE"
    # The subshell joins the fresh cgroup first, so that the cgroup namespace `unshare` creates is rooted there.
    (
      echo "$BASHPID" >"$cgroup/cgroup.procs"
      exec setsid unshare --pid --fork --mount --uts --ipc --cgroup --mount-proc --propagation private \
        "$SYSTEMD_LIB_DIR/boot.sh" </dev/null >>"$LOG_FILE" 2>&1
    ) &
    echo $! >"$UNSHARE_PID_FILE"
    unshare_pid=$!
    # The namespace's PID 1 is unshare's only child; it becomes systemd once boot.sh has exec'ed it.
    for _ in $(seq 1 100); do
      child=$(tr -d ' ' 2>/dev/null <"/proc/$unshare_pid/task/$unshare_pid/children") || true
      if [[ -n $child && $(readlink "/proc/$child/exe" 2>/dev/null) == "$(readlink -f "$SYSTEMD_BIN")" ]]; then
        echo "$child" >"$INIT_PID_FILE"
        break
      fi
      [[ -d /proc/$unshare_pid ]] || { cat "$LOG_FILE" >&2; die "the namespace ended before systemd started (log above)"; }
      sleep 0.1
    done
    pid=$(init_pid) || { cat "$LOG_FILE" >&2; die "systemd did not start within 10 s (log: $LOG_FILE)"; }
    log "private systemd started (host PID $pid, unshare PID $unshare_pid, log $LOG_FILE)"
  fi

  # Wait for the boot to settle (bounded).
  state=''
  for _ in $(seq 1 100); do
    state=$(in_ns systemctl is-system-running 2>/dev/null) || true
    [[ $state == running || $state == degraded ]] && break
    sleep 0.2
  done
  [[ $state == running || $state == degraded ]] || { tail -n 40 "$LOG_FILE" >&2; die "systemd did not finish booting (state '$state', log $LOG_FILE)"; }
  log "system state: $state"
}
