# shellcheck shell=bash
# One single-node Ceph 16 cluster: 1 mon + 1 bluestore OSD on a sparse file, cephx, no mgr (ceph-rbd.md sections 4-5).
# Run as a job of `up`: ceph_bootstrap SITE FSID creates it; ceph_mon_restart / ceph_osd_restart SITE start an
# existing one again, keeping its data and fsid. Needs common.sh.

ceph_write_conf() {
  local site=$1 fsid=$2 dir port
  dir=$(ceph_dir "$site")
  port=$(ceph_port "$site")
  # $name and $id below are Ceph metavariables and must stay literal.
  cat >"$dir/ceph.conf" <<EOF
[global]
fsid = $fsid
mon_host = [v2:$HOST:$port,v1:$HOST:$((port + 1))]
public_network = $HOST/32
ms_bind_ipv4 = true
ms_bind_ipv6 = false
ms_bind_port_min = $((port + 10))
ms_bind_port_max = $((port + 99))
auth_cluster_required = cephx
auth_service_required = cephx
auth_client_required = cephx
auth_allow_insecure_global_id_reclaim = false
mon_warn_on_insecure_global_id_reclaim_allowed = false
mon_warn_on_insecure_global_id_reclaim = false
run_dir = $dir/run
admin_socket = $dir/run/\$name.asok
pid_file = $dir/run/\$name.pid
log_file = $dir/log/\$name.log
keyring = $dir/ceph.\$name.keyring
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_allow_pool_delete = true
mon_warn_on_pool_no_redundancy = false
mon_max_pg_per_osd = 1000
mon_data_avail_warn = 1
mon_data_avail_crit = 0
# map changes every 50 ms instead of 1 s: rbd pool init takes 0.2 s instead of 3 s
paxos_propose_interval = 0.05

[mon]
mon_data = $dir/mon.\$id
# no mgr on purpose: silence MGR_DOWN
mon_mgr_mkfs_grace = 31536000
keyring = $dir/mon.\$id/keyring

[osd]
osd_data = $dir/osd.\$id
# bluestore on a sparse file in the state dir: the data survives an OSD restart or crash (memstore lost every RBD
# image, leaving Glance locations that point at nothing). The file (osd.0/block, the default path) takes disk space
# only as data is written.
osd_objectstore = bluestore
bluestore_block_size = 10737418240
bluestore_block_create = true
bluestore_block_db_create = false
bluestore_block_wal_create = false
# a small fixed cache instead of autotuning towards osd_memory_target (4 GiB by default)
bluestore_cache_autotune = false
bluestore_cache_size = 67108864

[client]
# librados waits forever by default: an OSD outage would hang glance-api
rados_osd_op_timeout = 30
rados_mon_op_timeout = 30
client_mount_timeout = 30

[mgr]
mgr_data = $dir/mgr.\$id
EOF
}

# The pools of a site. site-b also holds images-c, the pool of Glance's third rbd store site-c (glance.sh): a second
# pool in one cluster is what makes the target pool differ from the source's in the direct transfer's tests.
ceph_pools() { if [[ $1 == site-b ]]; then echo images vms images-c; else echo images vms; fi; }

# client.glance and client.nova may use every pool of the site (nova clones from any images pool of its cluster).
ceph_osd_caps() {
  local pool caps=''
  for pool in $(ceph_pools "$1"); do caps+="${caps:+, }profile rbd pool=$pool"; done
  echo "$caps"
}

# ferry's own cephx users (docs/security.md, "cephx per role"), with the same caps an operator gives them:
#   client.ferry           a compute node's agent (the Glance copy path): reads its cluster's images pools (the
#                          leftover look after a failed copy, ferry stores' pool probe); the fsid needs only the mon.
#   client.ferry-transfer  the direct RBD transfer: writes the pools of the stores it copies into (site-b: images for
#                          store site-b, images-c for site-c), reads the source's (site-a: images).
#   client.ferry-evict     ferry evict and sync's budgets: writes the stores' pools (the fence is image metadata),
#                          reads every pool, because a copy's clones (nova's disks in vms) are listed from every pool.
ceph_image_pools() { local pool; for pool in $(ceph_pools "$1"); do [[ $pool == vms ]] || echo "$pool"; done; }
ceph_transfer_target_pools() { if [[ $1 == site-b ]]; then echo images images-c; fi; }

ceph_ferry_osd_caps() {
  local site=$1 user=$2 pool caps='' profile
  if [[ $user == ferry-evict ]]; then
    for pool in $(ceph_image_pools "$site"); do caps+="profile rbd pool=$pool, "; done
    echo "${caps}profile rbd-read-only"
    return
  fi
  for pool in $(ceph_image_pools "$site"); do
    profile=rbd-read-only
    [[ $user == ferry-transfer && " $(ceph_transfer_target_pools "$site") " == *" $pool "* ]] && profile=rbd
    caps+="${caps:+, }profile $profile pool=$pool"
  done
  echo "$caps"
}

# Creates (or gives the current caps to) client.ferry, client.ferry-transfer and client.ferry-evict and writes their keyrings, readable
# by their owner only. Idempotent; needs the mon.
ceph_ensure_ferry_users() {
  local site=$1 conf dir user
  conf=$(ceph_conf "$site")
  dir=$(ceph_dir "$site")
  for user in ferry ferry-transfer ferry-evict; do
    timeout 30 ceph -c "$conf" auth get-or-create "client.$user" >/dev/null
    timeout 30 ceph -c "$conf" auth caps "client.$user" mon 'profile rbd' osd "$(ceph_ferry_osd_caps "$site" "$user")"
    (
      umask 077
      timeout 30 ceph -c "$conf" auth get "client.$user" -o "$dir/ceph.client.$user.keyring.tmp"
    )
    mv "$dir/ceph.client.$user.keyring.tmp" "$dir/ceph.client.$user.keyring"
  done
}

# Whether the cluster's state dir has ferry's keyrings (a cluster made before they were added has not).
ceph_layout_current() {
  local dir user
  dir=$(ceph_dir "$1")
  for user in ferry ferry-transfer ferry-evict; do [[ -s $dir/ceph.client.$user.keyring ]] || return 1; done
}

# Upgrade in place, for a cluster made before a pool was added to ceph_pools or before ferry's users: create the
# missing pools with the same settings (8 PGs, rbd application), give glance and nova the current caps, create
# ferry's users. Idempotent; needs the mon and OSD.
ceph_ensure_layout() {
  local site=$1 conf pool user
  conf=$(ceph_conf "$site")
  for pool in $(ceph_pools "$site"); do
    timeout 30 ceph -c "$conf" osd pool ls | grep -qx "$pool" && continue
    echo "== pool $pool on $site (added since this cluster was made)"
    timeout 30 ceph -c "$conf" osd pool create "$pool" 8 8
    timeout 60 rbd -c "$conf" pool init "$pool"
  done
  for user in glance nova; do
    timeout 30 ceph -c "$conf" auth caps "client.$user" mon 'profile rbd' osd "$(ceph_osd_caps "$site")" mgr 'profile rbd'
  done
  for pool in $(ceph_pools "$site"); do
    [[ $pool == vms ]] || timeout 30 rbd -c "$conf" --id glance ls "$pool" >/dev/null
  done
  ceph_ensure_ferry_users "$site"
  for pool in $(ceph_image_pools "$site"); do timeout 30 rbd -c "$conf" --id ferry ls "$pool" >/dev/null; done
  echo "== pools of $site: $(ceph_pools "$site"); ferry's users: client.ferry, client.ferry-transfer, client.ferry-evict"
}

ceph_bootstrap() {
  local site=$1 fsid=$2 dir conf port i osd_uuid key id pool
  dir=$(ceph_dir "$site")
  conf=$(ceph_conf "$site")
  port=$(ceph_port "$site")
  local C=(-c "$conf")
  mkdir -p "$dir"/{run,log,"mon.$site",osd.0}
  ceph_write_conf "$site" "$fsid"

  echo "== keys and monmap"
  ceph-authtool --create-keyring "$dir/bootstrap.keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool --create-keyring "$dir/ceph.client.admin.keyring" --gen-key -n client.admin \
    --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
  ceph-authtool "$dir/bootstrap.keyring" --import-keyring "$dir/ceph.client.admin.keyring" >/dev/null
  monmaptool --create --fsid "$fsid" --addv "$site" "[v2:$HOST:$port,v1:$HOST:$((port + 1))]" "$dir/monmap" >/dev/null
  timeout 60 ceph-mon "${C[@]}" --mkfs -i "$site" --monmap "$dir/monmap" --keyring "$dir/bootstrap.keyring"

  echo "== start mon"
  ceph_mon_start "$site"

  echo "== create and start osd.0"
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  key=$(ceph-authtool --gen-print-key)
  printf '{"cephx_secret": "%s"}\n' "$key" >"$dir/osd-secret.json"
  id=$(timeout 30 ceph "${C[@]}" osd new "$osd_uuid" -i "$dir/osd-secret.json")
  rm -f "$dir/osd-secret.json"
  [[ $id == 0 ]] || {
    echo "expected osd id 0, got '$id'"
    return 1
  }
  ceph-authtool --create-keyring "$dir/ceph.osd.0.keyring" --name osd.0 --add-key "$key" >/dev/null
  timeout 60 ceph-osd "${C[@]}" -i 0 --mkfs --osd-uuid "$osd_uuid"
  start_daemon "ceph-$site-osd" "$dir/log/osd.out" ceph-osd "${C[@]}" -i 0 -f

  # Pools and users need only the mon, so they are made while the OSD boots.
  echo "== pools and users"
  for pool in $(ceph_pools "$site"); do
    timeout 30 ceph "${C[@]}" osd pool create "$pool" 8 8
  done
  timeout 30 ceph "${C[@]}" auth get-or-create client.glance mon 'profile rbd' \
    osd "$(ceph_osd_caps "$site")" mgr 'profile rbd' >"$dir/ceph.client.glance.keyring"
  timeout 30 ceph "${C[@]}" auth get-or-create client.nova mon 'profile rbd' \
    osd "$(ceph_osd_caps "$site")" mgr 'profile rbd' >"$dir/ceph.client.nova.keyring"
  ceph_ensure_ferry_users "$site"

  # rbd pool init = application enable + rbd_info write; it blocks until the PGs are active (= OSD up).
  echo "== rbd pool init"
  local inits=()
  for pool in $(ceph_pools "$site"); do
    timeout 60 rbd "${C[@]}" pool init "$pool" &
    inits+=("$!")
  done
  for i in "${inits[@]}"; do wait "$i"; done
  for pool in $(ceph_pools "$site"); do
    [[ $pool == vms ]] || timeout 30 rbd "${C[@]}" --id glance ls "$pool"
  done
  timeout 30 rbd "${C[@]}" --id nova ls vms
  for pool in $(ceph_image_pools "$site"); do timeout 30 rbd "${C[@]}" --id ferry ls "$pool"; done
  [[ $(timeout 30 ceph "${C[@]}" fsid) == "$fsid" ]]
  printf '%s\n' "$fsid" >"$(ceph_fsid_file "$site")"
  echo "== ceph $site ready (fsid $fsid)"
}

# Start the mon of an existing (or just created) cluster and wait until it answers.
ceph_mon_start() {
  local site=$1 dir conf deadline
  dir=$(ceph_dir "$site")
  conf=$(ceph_conf "$site")
  start_daemon "ceph-$site-mon" "$dir/log/mon.out" ceph-mon -c "$conf" -i "$site" -f
  deadline=$((SECONDS + 30))
  until timeout 10 ceph -c "$conf" --connect-timeout 5 mon stat >/dev/null 2>&1; do
    pid_alive "$(read_pid "ceph-$site-mon")" || {
      echo "ceph-mon of $site exited; see $dir/log/mon.$site.log"
      return 1
    }
    ((SECONDS < deadline)) || {
      echo "mon did not answer within 30 s"
      return 1
    }
    sleep 0.2
  done
}

# The fsid recorded at creation must still be the cluster's: a restart never makes a new cluster.
ceph_check_fsid() {
  local site=$1 want got
  want=$(<"$(ceph_fsid_file "$site")")
  got=$(timeout 30 ceph -c "$(ceph_conf "$site")" fsid) || return 1
  [[ $got == "$want" ]] || {
    echo "ceph $site answers with fsid $got, but the state dir recorded $want"
    return 1
  }
}

# Restart jobs of up. A process that runs but is unhealthy is stopped first (SIGTERM, then SIGKILL).
ceph_mon_restart() {
  local site=$1
  stop_service "ceph-$site-mon" 50
  echo "== start mon of $site"
  ceph_mon_start "$site"
  ceph_check_fsid "$site"
  echo "== mon of $site ready"
}

# Restart job of up for an OSD that is not healthy. One that still runs may only have lost its mon (restarted just
# before): give it 15 s to answer again before restarting it.
ceph_osd_ensure() {
  local site=$1 pid deadline
  if pid=$(read_pid "ceph-$site-osd") && pid_alive "$pid" && pid_ours "$pid"; then
    deadline=$((SECONDS + 15))
    while ((SECONDS < deadline)); do
      ceph_cluster_healthy "$site" && {
        echo "== osd.0 of $site answers again (pid $pid kept)"
        return 0
      }
      sleep 0.5
    done
    echo "== osd.0 of $site runs (pid $pid) but does not answer: restarting it"
  fi
  ceph_osd_restart "$site"
}

# The OSD answers once the mon has marked it up again; rbd ls as client.glance proves mon, OSD and cephx.
ceph_osd_restart() {
  local site=$1 dir conf deadline
  dir=$(ceph_dir "$site")
  conf=$(ceph_conf "$site")
  stop_service "ceph-$site-osd" 50
  # The mon still has the crashed OSD as up at its old address until told otherwise; a client that gets that map
  # waits on the dead address (the first rbd ls took 8 s). Marking it down first lets the boot be seen at once.
  timeout 10 ceph -c "$conf" osd down 0 >/dev/null 2>&1 || true
  echo "== start osd.0 of $site"
  start_daemon "ceph-$site-osd" "$dir/log/osd.out" ceph-osd -c "$conf" -i 0 -f
  # Bounded by the clock: one rbd ls may itself take up to 8 s.
  deadline=$((SECONDS + 60))
  until ceph_cluster_healthy "$site"; do
    pid_alive "$(read_pid "ceph-$site-osd")" || {
      echo "ceph-osd of $site exited; see $dir/log/osd.0.log"
      return 1
    }
    ((SECONDS < deadline)) || {
      echo "rbd ls images on $site did not work within 60 s of the OSD start (see $dir/log/osd.0.log)"
      grep -q '^osd_objectstore = memstore' "$conf" &&
        echo "this cluster was made by an older up with a memstore OSD, which comes back empty after a crash and hangs every op; reset with scripts/devcloud/down --purge, then up"
      return 1
    }
    sleep 0.5
  done
  ceph_check_fsid "$site"
  echo "== osd.0 of $site ready"
}
