#!/usr/bin/env bash
# PID 1 of the private namespaces `scripts/systemd/up` creates (pid, mount, uts, ipc, cgroup; the network is the
# host's, so the agent reaches the dev cloud on 127.0.0.1). Prepares what a container manager would, then execs the
# real /lib/systemd/systemd as PID 1. Every mount below is private to this mount namespace (unshare --propagation
# private): the host sees none of them.
set -euo pipefail

# Units the minimal system needs, copied verbatim from the systemd package (without their .wants/ directories, which
# would pull in udev, tmpfiles, sysctl, getty, ... and the host's enabled services such as the system Ceph, Glance,
# Keystone and PostgreSQL).
VENDOR_UNITS=(
  sysinit.target basic.target sockets.target paths.target timers.target slices.target local-fs.target
  local-fs-pre.target swap.target network.target network-pre.target network-online.target multi-user.target
  shutdown.target umount.target final.target exit.target systemd-exit.service
  halt.target systemd-halt.service poweroff.target systemd-poweroff.service
  systemd-journald.service systemd-journald.socket
)

# A throw-away root for package tests (scripts/systemd/up-clean): /etc, /usr and /var as overlays on the host's, their
# changes kept in FERRY_SYSTEMD_OVERLAY_DIR. dpkg, apt, useradd and systemd-sysusers write there; the host's own
# /etc, /usr and /var never change (the overlays exist in this mount namespace only).
if [[ -n ${FERRY_SYSTEMD_OVERLAY_DIR:-} ]]; then
  for dir in etc usr var; do
    mkdir -p "$FERRY_SYSTEMD_OVERLAY_DIR/upper/$dir" "$FERRY_SYSTEMD_OVERLAY_DIR/work/$dir"
    mount -t overlay "overlay-$dir" \
      -o "lowerdir=/$dir,upperdir=$FERRY_SYSTEMD_OVERLAY_DIR/upper/$dir,workdir=$FERRY_SYSTEMD_OVERLAY_DIR/work/$dir" "/$dir"
  done
fi

# /proc/sys and /sys read-only: systemd detects a container and leaves the (host-global) kernel settings alone.
mount --bind /proc/sys /proc/sys
mount -o remount,bind,ro /proc/sys
mount -o remount,bind,ro /sys
# cgroup2 rooted at the cgroup `up` made for us (cgroup namespace): systemd manages only that subtree. On a unified host
# (Debian 12's default) /sys/fs/cgroup is already the host's cgroup2 mount, and the kernel refuses the same filesystem
# mounted again on it ("cgroup2 already mounted", EBUSY): that mount goes first, in this mount namespace only. A
# hybrid host has a tmpfs there (its v1 hierarchies), which the new mount covers.
if [[ $(stat -f -c %T /sys/fs/cgroup) == cgroup2fs ]]; then umount -R -l /sys/fs/cgroup; fi
mount -t cgroup2 -o nosuid,nodev,noexec cgroup2 /sys/fs/cgroup

# A private /run (systemd's sockets, the agent's RuntimeDirectory /run/ferry) and a private /dev with the usual nodes
# (the host's /dev is not ours to add /dev/log or anything else to).
mount -t tmpfs -o mode=0755,nosuid,nodev,size=64m tmpfs /run
mount -t tmpfs -o mode=0755,nosuid,size=4m tmpfs /dev
mknod -m 0666 /dev/null c 1 3
mknod -m 0666 /dev/zero c 1 5
mknod -m 0666 /dev/full c 1 7
mknod -m 0666 /dev/random c 1 8
mknod -m 0666 /dev/urandom c 1 9
mknod -m 0666 /dev/tty c 5 0
mkdir -m 0755 /dev/pts
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts
ln -s pts/ptmx /dev/ptmx
mkdir -m 1777 /dev/shm
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr

# Unit directories: only the vendor units above and the target below; no generators (they would read the host's
# fstab, gettys, SysV scripts); an empty /etc/systemd/system for the operator's files (scripts/systemd/up installs
# ferry-agent.service there).
staging=/run/ferry-vendor-units
mkdir -p "$staging"
for unit in "${VENDOR_UNITS[@]}"; do cp /usr/lib/systemd/system/"$unit" "$staging/"; done
mount -t tmpfs -o mode=0755 tmpfs /usr/lib/systemd/system
cp "$staging"/* /usr/lib/systemd/system/
rm -rf "$staging"
cat >/usr/lib/systemd/system/ferry-devcloud.target <<'UNIT'
[Unit]
Description=ferry dev cloud: the minimal system ferry-agent.service runs in (scripts/systemd)
Requires=basic.target
Wants=systemd-journald.socket systemd-journald.service
After=basic.target systemd-journald.socket
AllowIsolate=yes
UNIT
mount -t tmpfs -o mode=0755 tmpfs /usr/lib/systemd/system-generators
mount -t tmpfs -o mode=0755 tmpfs /etc/systemd/system

# Shared propagation inside this namespace, as a booted host has it (systemd makes / shared, but not in a container,
# where the container manager is expected to): systemd mounts a unit's credentials (LoadCredential=) in a child mount
# namespace and moves them to /run/credentials/UNIT, which reaches this namespace only through a shared mount; without
# it the unit finds an empty directory it cannot read. The host is not a peer: `unshare --propagation private` cut
# every mount off from it first.
mount --make-rshared /

# Capabilities a container does not get (as systemd-nspawn drops them): no network configuration (systemd would
# otherwise bring up the host's loopback itself), no clock, no kernel modules, no raw I/O, no syslog/MAC control.
exec setpriv --bounding-set -net_admin,-sys_module,-sys_time,-sys_rawio,-wake_alarm,-block_suspend,-syslog,-mac_admin,-mac_override \
  env -i container=ferry-devcloud PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  /lib/systemd/systemd --unit=ferry-devcloud.target --log-target=journal --log-level=info --show-status=no
