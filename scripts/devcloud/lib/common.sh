# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file
# Shared by up, down, status and smoke: paths, ports, logging, process handling, health checks.
# Sourced, never run. Facts behind the choices: /work/shared/reference/{ceph-rbd,keystone,glance-multistore}.md.

DEVCLOUD_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEVCLOUD_SCRIPT_DIR=$(cd "$DEVCLOUD_LIB_DIR/.." && pwd)
DEVCLOUD_REPO_ROOT=$(cd "$DEVCLOUD_SCRIPT_DIR/../.." && pwd)

# The OpenStack and Ceph python libraries belong to Debian's interpreter; a pyenv python3 may come first on PATH.
PY=/usr/bin/python3
# A PYTHONPATH/PYTHONHOME meant for that other interpreter would leak into the Debian daemons.
unset PYTHONPATH PYTHONHOME
HOST=127.0.0.1

DEVCLOUD_DIR=${FERRY_DEVCLOUD_DIR:-$DEVCLOUD_REPO_ROOT/.devcloud}
case $DEVCLOUD_DIR in
  /*) ;;
  *) DEVCLOUD_DIR=$PWD/$DEVCLOUD_DIR ;;
esac
DEVCLOUD_DIR=${DEVCLOUD_DIR%/}
PID_DIR=$DEVCLOUD_DIR/pids
LOG_DIR=$DEVCLOUD_DIR/log
MARKER=$DEVCLOUD_DIR/.ferry-devcloud
# Written as the last step of a successful first start: its presence means the state dir holds a complete dev cloud
# that `up` restarts in place (keeping data and fsids) instead of creating anew. It records the layout version and
# the ports the state was created with (the Keystone catalog and the configs name them).
LAYOUT_FILE=$DEVCLOUD_DIR/layout
LAYOUT_VERSION=2

# Every default lies below Linux's ephemeral range (ip_local_port_range, 32768-60999 by default), where any outgoing
# connection may hold a port: a Ceph mon once failed to bind 36790 on a fresh start that way ("Address already in
# use"). Ceph's ranges were 36789 and 36889 before; a state dir keeps the ports it was created with (below).
DEFAULT_PORTS=(KEYSTONE_PORT=15000 GLANCE_PORT=19393 PLACEMENT_PORT=18779 POSTGRES_PORT=15432 CEPH_A_PORT=16789 CEPH_B_PORT=16889)
# An existing state dir names its ports in LAYOUT_FILE (the Keystone catalog, the configs and Ceph's monmaps hold
# them): they replace the defaults, so an older dev cloud starts again as it was. FERRY_DEVCLOUD_*_PORT still wins.
recorded_port() {
  [[ -f $LAYOUT_FILE ]] || return 1
  local key=$1 line
  line=$(sed -n 2p "$LAYOUT_FILE")
  [[ " $line " =~ \ $key=([0-9]+)\  ]] && echo "${BASH_REMATCH[1]}"
}
for default in "${DEFAULT_PORTS[@]}"; do
  name=${default%%=*}
  env_name=FERRY_DEVCLOUD_$name
  key=$(case $name in CEPH_A_PORT) echo ceph-a ;; CEPH_B_PORT) echo ceph-b ;; *) name_lower=${name%_PORT}; echo "${name_lower,,}" ;; esac)
  printf -v "$name" '%s' "${!env_name:-$(recorded_port "$key" || echo "${default#*=}")}"
done
unset default name env_name key name_lower

KEYSTONE_URL=http://$HOST:$KEYSTONE_PORT/v3
GLANCE_URL=http://$HOST:$GLANCE_PORT
PLACEMENT_URL=http://$HOST:$PLACEMENT_PORT

# Dev-only credentials on loopback; overridable so a shared machine can use its own.
ADMIN_PASSWORD=${FERRY_DEVCLOUD_ADMIN_PASSWORD:-ferry-admin-pass}
DEMO_PASSWORD=${FERRY_DEVCLOUD_DEMO_PASSWORD:-ferry-demo-pass}
GLANCE_PASSWORD=${FERRY_DEVCLOUD_GLANCE_PASSWORD:-ferry-glance-pass}
PLACEMENT_PASSWORD=${FERRY_DEVCLOUD_PLACEMENT_PASSWORD:-ferry-placement-pass}
# ferry's own non-admin identity (role ferry; docs/security.md)
FERRY_PASSWORD=${FERRY_DEVCLOUD_FERRY_PASSWORD:-ferry-ferry-pass}
# the tenants' members (projects tenant-a and tenant-b, role member: docs/devcloud.md)
TENANT_PASSWORD=${FERRY_DEVCLOUD_TENANT_PASSWORD:-ferry-tenant-pass}
POSTGRES_PASSWORD=${FERRY_DEVCLOUD_POSTGRES_PASSWORD:-ferry-postgres-pass}
GLANCE_DB_PASSWORD=${FERRY_DEVCLOUD_GLANCE_DB_PASSWORD:-ferry-glance-db-pass}
# Glance's PostgreSQL cluster lives outside the state dir (postgres.sh says why); its name follows the state dir.
# The newest PostgreSQL's bin/, or nothing: on a fresh machine /usr/lib/postgresql appears only once ensure_packages
# has installed postgresql (find fails on it before, which under up's pipefail ended up at this line, silently).
find_pg_bin() { { find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null || true; } | sort -V | tail -n 1; }
PG_BIN=$(find_pg_bin)
PG_DIR=/var/tmp/ferry-devcloud-pg.$(printf '%s' "$DEVCLOUD_DIR" | cksum | cut -d' ' -f1)
# Serialises up runs on one state dir (outside it: a first start deletes the state dir).
UP_LOCK=/var/tmp/ferry-devcloud-up.$(printf '%s' "$DEVCLOUD_DIR" | cksum | cut -d' ' -f1).lock

# Stop order matters for Ceph: an OSD stopped after its mon waits ~5 s trying to report its shutdown.
SERVICES=(keystone glance postgres placement ceph-site-a-osd ceph-site-b-osd ceph-site-a-mon ceph-site-b-mon)

DEVCLOUD_PACKAGES=(glance-api glance-common python3-glance python3-glance-store python3-rados python3-rbd librbd1
  ceph-mon ceph-osd ceph-base ceph-common keystone python3-keystone python3-keystonemiddleware
  python3-keystoneclient placement-api placement-common python3-placement python3-os-traits curl sqlite3
  postgresql python3-psycopg2 util-linux python3-openstackclient python3-nova)

DEVCLOUD_T0=${EPOCHREALTIME/[.,]/}

elapsed() {
  local now=${EPOCHREALTIME/[.,]/}
  printf '%d.%01d' $(((now - DEVCLOUD_T0) / 1000000)) $((((now - DEVCLOUD_T0) / 100000) % 10))
}

log() { printf '[devcloud %5ss] %s\n' "$(elapsed)" "$*"; }
warn() { printf 'devcloud: warning: %s\n' "$*" >&2; }
die() {
  printf 'devcloud: %s\n' "$*" >&2
  exit 1
}

ceph_port() { if [[ $1 == site-a ]]; then echo "$CEPH_A_PORT"; else echo "$CEPH_B_PORT"; fi; }
ceph_dir() { echo "$DEVCLOUD_DIR/ceph/$1"; }
ceph_conf() { echo "$DEVCLOUD_DIR/ceph/$1/ceph.conf"; }
# The fsid generated on a cluster's first creation, kept for every later start.
ceph_fsid_file() { echo "$DEVCLOUD_DIR/ceph/$1/fsid"; }

validate_ports() {
  local name value
  for name in KEYSTONE_PORT GLANCE_PORT PLACEMENT_PORT POSTGRES_PORT CEPH_A_PORT CEPH_B_PORT; do
    value=${!name}
    if ! [[ $value =~ ^[0-9]+$ ]] || ((value < 1024 || value > 65436)); then
      die "FERRY_DEVCLOUD_$name must be a port number between 1024 and 65436, got '$value'"
    fi
  done
  # Each cluster owns [port, port+99]: mon v2, mon v1 (+1) and the OSD bind range (+10..+99).
  ((CEPH_A_PORT + 99 < CEPH_B_PORT || CEPH_B_PORT + 99 < CEPH_A_PORT)) ||
    die "Ceph ports $CEPH_A_PORT and $CEPH_B_PORT are closer than 100 apart; each cluster uses port..port+99"
  for name in KEYSTONE_PORT GLANCE_PORT PLACEMENT_PORT POSTGRES_PORT; do
    value=${!name}
    if ((value >= CEPH_A_PORT && value <= CEPH_A_PORT + 99)) || ((value >= CEPH_B_PORT && value <= CEPH_B_PORT + 99)); then
      die "FERRY_DEVCLOUD_$name=$value falls inside a Ceph port range ($CEPH_A_PORT+0..99, $CEPH_B_PORT+0..99)"
    fi
  done
  [[ $(printf '%s\n' "$KEYSTONE_PORT" "$GLANCE_PORT" "$PLACEMENT_PORT" "$POSTGRES_PORT" | sort -u | wc -l) == 4 ]] ||
    die "Keystone, Glance, Placement and PostgreSQL need four different ports"
}

# A port inside the ephemeral range (a state dir made with the old Ceph defaults, or a FERRY_DEVCLOUD_*_PORT there) is
# reserved (net.ipv4.ip_local_reserved_ports, added to what is there), so that no outgoing connection takes it before
# the service binds it. Needs root, as up does; the reservation lasts until reboot.
reserve_ephemeral_ports() {
  local low high ranges=() name value reserved wanted
  read -r low high </proc/sys/net/ipv4/ip_local_port_range || return 0
  for name in KEYSTONE_PORT GLANCE_PORT PLACEMENT_PORT POSTGRES_PORT; do
    value=${!name}
    ((value >= low && value <= high)) && ranges+=("$value")
  done
  for value in "$CEPH_A_PORT" "$CEPH_B_PORT"; do
    ((value + 99 >= low && value <= high)) && ranges+=("$value-$((value + 99))")
  done
  ((${#ranges[@]} > 0)) || return 0
  reserved=$(cat /proc/sys/net/ipv4/ip_local_reserved_ports 2>/dev/null || true)
  wanted=$(IFS=,; echo "${ranges[*]}")
  { echo "${reserved:+$reserved,}$wanted" >/proc/sys/net/ipv4/ip_local_reserved_ports; } 2>/dev/null ||
    die "ports $wanted lie in the ephemeral range $low-$high, where an outgoing connection may hold them, and they could
not be reserved (net.ipv4.ip_local_reserved_ports needs root); pick ports below $low with FERRY_DEVCLOUD_*_PORT"
  log "reserved ports $wanted (inside the ephemeral range $low-$high) with net.ipv4.ip_local_reserved_ports"
}

service_port() {
  case $1 in
    keystone) echo "$KEYSTONE_PORT" ;;
    glance) echo "$GLANCE_PORT" ;;
    placement) echo "$PLACEMENT_PORT" ;;
    postgres) echo "$POSTGRES_PORT" ;;
    ceph-site-a-mon) echo "$CEPH_A_PORT" ;;
    ceph-site-b-mon) echo "$CEPH_B_PORT" ;;
    ceph-site-a-osd) echo "$((CEPH_A_PORT + 10))-$((CEPH_A_PORT + 99))" ;;
    ceph-site-b-osd) echo "$((CEPH_B_PORT + 10))-$((CEPH_B_PORT + 99))" ;;
  esac
}

service_log() {
  case $1 in
    keystone) echo "$DEVCLOUD_DIR/keystone/keystone.log" ;;
    glance) echo "$DEVCLOUD_DIR/glance/glance-api.log" ;;
    placement) echo "$DEVCLOUD_DIR/placement/placement.log" ;;
    postgres) echo "$PG_DIR/postgres.out" ;;
    ceph-*-mon) echo "$(ceph_dir "$(site_of "$1")")/log/mon.$(site_of "$1").log" ;;
    ceph-*-osd) echo "$(ceph_dir "$(site_of "$1")")/log/osd.0.log" ;;
  esac
}

site_of() {
  local s=${1#ceph-}
  echo "${s%-*}"
}

# ---- processes ------------------------------------------------------------------------------------------------

read_pid() {
  local file=$PID_DIR/$1.pid pid
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  echo "$pid"
}

# A zombie or a vanished process is gone; only a live process can hold a port or data.
pid_alive() {
  local stat rest
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  rest=${stat##*) }
  [[ ${rest%% *} != Z ]]
}

pid_cmdline() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null; }

# Every process we start names a path inside the state dir (or PostgreSQL's PG_DIR) on its command line: that is how
# a recycled PID is told apart from ours.
pid_ours() {
  local cmd
  cmd=$(pid_cmdline "$1") || return 1
  [[ $cmd == *"$DEVCLOUD_DIR/"* || $cmd == *"$PG_DIR/"* ]]
}

# Live members of process group $1 (the daemons run in their own session, so the group is theirs alone).
group_members() {
  local pg=$1 f line rest state pgrp _ppid
  for f in /proc/[0-9]*/stat; do
    { read -r line <"$f"; } 2>/dev/null || continue
    rest=${line##*) }
    read -r state _ppid pgrp _ <<<"$rest"
    if [[ $pgrp == "$pg" && $state != Z ]]; then
      f=${f#/proc/}
      echo "${f%/stat}"
    fi
  done
}

group_ours() {
  local pid
  for pid in $(group_members "$1"); do
    pid_ours "$pid" && return 0
  done
  return 1
}

# Stop one recorded service: TERM to its process group, bounded wait, then KILL. Never touches a PID whose command
# line does not name our state dir.
# PostgreSQL is stopped with INT (its "fast" shutdown); TERM would wait for every client to disconnect.
stop_service() {
  local name=$1 grace_ds=${2:-100} signal=${3:-TERM} pid i
  pid=$(read_pid "$name") || {
    rm -f "$PID_DIR/$name.pid"
    return 0
  }
  if [[ -z $(group_members "$pid") ]]; then
    rm -f "$PID_DIR/$name.pid"
    return 0
  fi
  if ! group_ours "$pid"; then
    warn "$name: PID $pid is not a devcloud process any more ($(pid_cmdline "$pid" | cut -c1-80)); leaving it alone"
    rm -f "$PID_DIR/$name.pid"
    return 0
  fi
  kill "-$signal" -- "-$pid" 2>/dev/null || true
  # a stopped (SIGSTOP) process acts on the signal only once continued
  kill -CONT -- "-$pid" 2>/dev/null || true
  for ((i = 0; i < grace_ds; i++)); do
    [[ -z $(group_members "$pid") ]] && break
    sleep 0.1
  done
  if [[ -n $(group_members "$pid") ]]; then
    warn "$name (PID $pid) still running $((grace_ds / 10)) s after SIG$signal; sending SIGKILL"
    kill -KILL -- "-$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      [[ -z $(group_members "$pid") ]] && break
      sleep 0.1
    done
    [[ -z $(group_members "$pid") ]] || {
      warn "$name (PID $pid) survived SIGKILL"
      return 1
    }
  fi
  rm -f "$PID_DIR/$name.pid"
}

# Stop everything recorded in the state dir. Each cluster stops OSD first, then mon (an OSD whose mon is gone waits
# ~5 s trying to report its shutdown); Glance before its PostgreSQL; the clusters and the API services stop in parallel.
stop_all() {
  local rc=0 pid pids=()
  [[ -d $PID_DIR ]] || return 0
  stop_service keystone &
  pids+=($!)
  (stop_service glance && stop_service postgres 100 INT) &
  pids+=($!)
  stop_service placement &
  pids+=($!)
  (stop_service ceph-site-a-osd && stop_service ceph-site-a-mon) &
  pids+=($!)
  (stop_service ceph-site-b-osd && stop_service ceph-site-b-mon) &
  pids+=($!)
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  return "$rc"
}

# Start a daemon in its own session; the child writes its own PID before exec, so the pidfile names the daemon
# itself even where setsid has to fork (keystone.md section 12).
start_daemon() {
  local name=$1 out=$2 i
  shift 2
  mkdir -p "$PID_DIR"
  rm -f "$PID_DIR/$name.pid"
  # shellcheck disable=SC2016 # $$ and $@ belong to the inner sh
  # 9>&-: the daemon must not inherit up's lock (UP_LOCK), or it would hold it for its whole life
  setsid sh -c 'echo $$ > "$0"; exec "$@"' "$PID_DIR/$name.pid" "$@" </dev/null >"$out" 2>&1 9>&- &
  for ((i = 0; i < 100; i++)); do
    [[ -s $PID_DIR/$name.pid ]] && return 0
    sleep 0.02
  done
  echo "no pidfile for $name after 2 s" >&2
  return 1
}

# ---- health -------------------------------------------------------------------------------------------------------

http_code() {
  curl -s -o /dev/null -w '%{http_code}' --connect-timeout 2 --max-time "${2:-3}" "$1" 2>/dev/null || true
}

port_open() { timeout 1 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null; }

# Cluster check as client.glance: needs the mon, the OSD and cephx to work.
ceph_cluster_healthy() {
  timeout 8 rbd -c "$(ceph_conf "$1")" --id glance ls images >/dev/null 2>&1
}

# service_healthy NAME: 0 when the recorded process is alive, ours, and answers.
service_healthy() {
  local name=$1 pid
  pid=$(read_pid "$name") || return 1
  pid_alive "$pid" && pid_ours "$pid" || return 1
  case $name in
    keystone) [[ $(http_code "$KEYSTONE_URL") == 200 ]] ;;
    glance) [[ $(http_code "$GLANCE_URL/healthcheck") == 200 ]] ;;
    placement) [[ $(http_code "$PLACEMENT_URL/") == 200 ]] ;;
    postgres) postgres_healthy ;;
    ceph-*-mon) port_open "$(ceph_port "$(site_of "$name")")" ;;
    # without its mon rbd would only time out (8 s)
    ceph-*-osd) port_open "$(ceph_port "$(site_of "$name")")" && ceph_cluster_healthy "$(site_of "$name")" ;;
  esac
}

# service_state NAME: one word, a tab, and the reason: "up", "down<TAB>pid 1234 not running",
# "unhealthy<TAB>pid 1234 runs but GET /healthcheck does not answer 200".
service_state() {
  local name=$1 pid
  if ! pid=$(read_pid "$name"); then
    printf 'down\tno PID recorded\n'
    return
  fi
  if ! pid_alive "$pid"; then
    printf 'down\tpid %s not running\n' "$pid"
    return
  fi
  if ! pid_ours "$pid"; then
    printf 'down\tpid %s is not a devcloud process any more\n' "$pid"
    return
  fi
  # Without its mon an OSD cannot answer; say so without waiting for the rbd check to time out.
  if [[ $name == ceph-*-osd ]] && ! port_open "$(ceph_port "$(site_of "$name")")"; then
    printf 'unhealthy\tpid %s runs but its mon (ceph-%s-mon) does not accept connections\n' "$pid" "$(site_of "$name")"
    return
  fi
  if service_healthy "$name"; then
    printf 'up\n'
    return
  fi
  printf 'unhealthy\tpid %s runs but %s\n' "$pid" "$(health_check_text "$name")"
}

health_check_text() {
  case $1 in
    keystone) echo "GET $KEYSTONE_URL does not answer 200" ;;
    glance) echo "GET $GLANCE_URL/healthcheck does not answer 200" ;;
    placement) echo "GET $PLACEMENT_URL/ does not answer 200" ;;
    postgres) echo "pg_isready on $HOST:$POSTGRES_PORT fails" ;;
    ceph-*-mon) echo "port $(ceph_port "$(site_of "$1")") does not accept connections" ;;
    ceph-*-osd) echo "'rbd --id glance ls images' on $(site_of "$1") fails (needs its mon too)" ;;
  esac
}

# The ports a state dir was created with, as recorded in LAYOUT_FILE.
ports_line() {
  echo "ports keystone=$KEYSTONE_PORT glance=$GLANCE_PORT placement=$PLACEMENT_PORT postgres=$POSTGRES_PORT ceph-a=$CEPH_A_PORT ceph-b=$CEPH_B_PORT"
}

postgres_healthy() { [[ -n $PG_BIN ]] && "$PG_BIN/pg_isready" -q -t 2 -h "$HOST" -p "$POSTGRES_PORT"; }

# restart_unless_recovers NAME SECONDS CMD...: a service that runs but failed its health check (a glance-api whose
# workers are all busy in a slow librbd call, a keystone on a loaded machine) gets SECONDS to answer again before CMD
# restarts it, so that a blip does not kill the work in flight. A service that is not running is started at once.
restart_unless_recovers() {
  local name=$1 seconds=$2 pid deadline
  shift 2
  if pid=$(read_pid "$name") && pid_alive "$pid" && pid_ours "$pid"; then
    deadline=$((SECONDS + seconds))
    while ((SECONDS < deadline)); do
      if service_healthy "$name"; then
        echo "== $name answers again (pid $pid kept)"
        return 0
      fi
      sleep 1
    done
    echo "== $name runs (pid $pid) but still does not answer after $seconds s: restarting it"
  fi
  "$@"
}

# wait_http SERVICE URL SECONDS: bounded wait for a 200, failing early if the daemon died.
wait_http() {
  local name=$1 url=$2 seconds=$3 pid deadline
  deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do
    [[ $(http_code "$url" 2) == 200 ]] && return 0
    pid=$(read_pid "$name") || true
    if [[ -z $pid ]] || ! pid_alive "$pid"; then
      echo "$name exited before answering $url" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "$name did not answer 200 on $url within $seconds s" >&2
  return 1
}

rss_kb() {
  local pid kb total=0
  for pid in "$@"; do
    kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) || kb=0
    total=$((total + ${kb:-0}))
  done
  echo "$total"
}

# All live PIDs of all recorded services.
all_service_pids() {
  local name pid
  for name in "${SERVICES[@]}"; do
    pid=$(read_pid "$name") || continue
    group_members "$pid"
  done
}

json_str() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

# ---- packages -----------------------------------------------------------------------------------------------------

# Installs whatever Debian package is missing. Works as root or with passwordless sudo; says so otherwise.
# Services are never started by this script's install: where no policy-rc.d forbids it, Debian starts its own
# keystone (port 5000) and glance-api (9292), which do not collide with the devcloud ports.
ensure_packages() {
  local p missing=() sudo=() installed
  # one dpkg-query for all packages (one per package cost ≈ 1 s of a no-op up on a loaded machine)
  installed=" $(dpkg-query -W -f='${Package} ${Status}\n' "${DEVCLOUD_PACKAGES[@]}" 2>/dev/null |
    awk '$NF == "installed" && $(NF-1) == "ok" {print $1}' | tr '\n' ' ' || true)"
  for p in "${DEVCLOUD_PACKAGES[@]}"; do
    [[ $installed == *" $p "* ]] || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  if ((EUID != 0)); then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      die "missing Debian packages: ${missing[*]}
installing them needs root or passwordless sudo; run as root:
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
    fi
  fi
  log "installing ${#missing[@]} missing packages: ${missing[*]}"
  # Lock timeout: another apt run (e.g. a provisioning script) may still hold the dpkg lock.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q update >/dev/null ||
    die "apt-get update failed"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q install -y \
    --no-install-recommends "${missing[@]}" || die "apt-get install failed for: ${missing[*]}"
  PG_BIN=$(find_pg_bin)
}

# The comment block at the top of a script is its help text.
print_usage() {
  awk 'NR > 1 && /^#/ && !/^# shellcheck/ { sub(/^# ?/, ""); print; next } NR > 1 && !/^#/ { exit }' "$1"
}
