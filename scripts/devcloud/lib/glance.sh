# shellcheck shell=bash
# Glance 25.1.0 multistore behind Keystone (glance-multistore.md section 3, keystone.md section 7).
# glance_prepare (config + db_sync) runs as a job next to Keystone; glance_start once both Ceph clusters answer,
# because glance-api connects to every rbd store at startup. Needs common.sh.

# shellcheck disable=SC2034 # read by up
# site-c is a second pool (images-c) in site-b's cluster: a third rbd store, so that "every site at once" has more than
# one target, and a target whose pool differs from the source's (ceph.sh ceph_pools).
GLANCE_STORES=(central site-a site-b site-c broken)

# Glance's policy: the file ferry ships (packaging/glance/ferry-policy.yaml, copied on every up so that the dev cloud
# runs the current one; glance-api reads a changed file on its next request), and an empty directory where a test
# drops one of packaging/glance/opt-in/ for a while. FERRY_DEVCLOUD_GLANCE_NEW_DEFAULTS=1 runs Glance with
# [oslo_policy] enforce_new_defaults and enforce_scope on, and [DEFAULT] enforce_secure_rbac, which Zed requires to
# match enforce_new_defaults (Zed's defaults are all off), to check the policy in both modes; =0 switches back. Unset,
# a state dir keeps the mode it runs in (an up run by a test, without the variable, must not switch it); up rewrites
# glance-api.conf and restarts glance-api when it changes.
GLANCE_POLICY_SOURCE=$DEVCLOUD_REPO_ROOT/packaging/glance/ferry-policy.yaml
GLANCE_POLICY_FILE=$DEVCLOUD_DIR/glance/etc/ferry-policy.yaml
GLANCE_POLICY_DIR=$DEVCLOUD_DIR/glance/etc/policy.d
GLANCE_NEW_DEFAULTS=$(sed -n 's/^enforce_new_defaults = //p' "$DEVCLOUD_DIR/glance/etc/glance-api.conf" 2>/dev/null || true)
case ${FERRY_DEVCLOUD_GLANCE_NEW_DEFAULTS:-$GLANCE_NEW_DEFAULTS} in
  1 | true) GLANCE_NEW_DEFAULTS=true ;;
  *) GLANCE_NEW_DEFAULTS=false ;;
esac

# Copies the shipped policy file into the state dir (only when it differs: a rewrite is a reload in glance-api).
glance_install_policy() {
  mkdir -p "$GLANCE_POLICY_DIR"
  cmp -s "$GLANCE_POLICY_SOURCE" "$GLANCE_POLICY_FILE" 2>/dev/null && return 0
  install -m 0644 "$GLANCE_POLICY_SOURCE" "$GLANCE_POLICY_FILE"
}

glance_write_conf() {
  local g=$DEVCLOUD_DIR/glance fsid_a=$1 fsid_b=$2
  mkdir -p "$g"/{etc,staging,tasks,lock,stores/central}
  # The broken store: its datadir is a regular file. glance_store only checks that the path exists and is writable,
  # so the store configures and glance starts, but every write into it fails with ENOTDIR (a copy ends in
  # os_glance_failed_import=broken). Tests get a failure that needs no timing luck.
  rm -rf "$g/stores/broken"
  printf 'devcloud: this regular file makes every copy into the broken store fail (ENOTDIR)\n' >"$g/stores/broken"
  glance_install_policy
  cat >"$g/etc/glance-api.conf" <<EOF
[DEFAULT]
bind_host = $HOST
bind_port = $GLANCE_PORT
# a parent and two workers, as Glance's default (one per CPU) gives on this 2-core machine: copies run in parallel,
# and a GET is answered while another worker stages an image. Needs the PostgreSQL database (postgres.sh).
workers = 2
debug = false
use_stderr = false
log_file = $g/glance-api.log
enabled_backends = central:file, site-a:rbd, site-b:rbd, site-c:rbd, broken:file
enabled_import_methods = [glance-direct,web-download,copy-image]
show_image_direct_url = true
show_multiple_locations = true
# must equal [oslo_policy] enforce_new_defaults, or glance-api refuses to start
enforce_secure_rbac = $GLANCE_NEW_DEFAULTS

[database]
connection = $(glance_db_url)

[paste_deploy]
flavor = keystone
config_file = $g/etc/glance-api-paste.ini

[keystone_authtoken]
www_authenticate_uri = http://$HOST:$KEYSTONE_PORT
auth_url = http://$HOST:$KEYSTONE_PORT
auth_type = password
user_domain_name = Default
project_domain_name = Default
project_name = service
username = glance
password = $GLANCE_PASSWORD
# the catalog has public endpoints only; the default (internal) makes every authenticated request a 500
interface = public
region_name = RegionOne
service_token_roles_required = true
# keystonemiddleware checks an application credential's access rules only when it knows its service's type; without
# it every token of a credential with access rules is refused (ferry's are: scripts/devcloud/lib/register.py)
service_type = image

[oslo_policy]
# absolute paths: oslo.policy would otherwise also read a policy.yaml or policy.d found next to this file or in
# /etc/glance
policy_file = $GLANCE_POLICY_FILE
policy_dirs = $GLANCE_POLICY_DIR
enforce_new_defaults = $GLANCE_NEW_DEFAULTS
enforce_scope = $GLANCE_NEW_DEFAULTS

[glance_store]
default_backend = central

[central]
filesystem_store_datadir = $g/stores/central
store_description = file store central (default)

[site-a]
rbd_store_pool = images
rbd_store_ceph_conf = $(ceph_conf site-a)
rbd_store_user = glance
rbd_store_chunk_size = 8
rados_connect_timeout = 10
store_description = rbd on ceph site-a $fsid_a

[site-b]
rbd_store_pool = images
rbd_store_ceph_conf = $(ceph_conf site-b)
rbd_store_user = glance
rbd_store_chunk_size = 8
rados_connect_timeout = 10
store_description = rbd on ceph site-b $fsid_b

[site-c]
rbd_store_pool = images-c
rbd_store_ceph_conf = $(ceph_conf site-b)
rbd_store_user = glance
rbd_store_chunk_size = 8
rados_connect_timeout = 10
store_description = rbd on ceph site-b $fsid_b, pool images-c

[broken]
filesystem_store_datadir = $g/stores/broken
store_description = file store whose datadir is a regular file: every copy into it fails

[os_glance_staging_store]
filesystem_store_datadir = $g/staging

[os_glance_tasks_store]
filesystem_store_datadir = $g/tasks

[oslo_concurrency]
lock_path = $g/lock
EOF

  cat >"$g/etc/glance-api-paste.ini" <<EOF
[pipeline:glance-api-keystone]
pipeline = healthcheck versionnegotiation authtoken context rootapp

[composite:rootapp]
paste.composite_factory = glance.api:root_app_factory
/: apiversions
/v2: apiv2app

[app:apiversions]
paste.app_factory = glance.api.versions:create_resource

[app:apiv2app]
paste.app_factory = glance.api.v2.router:API.factory

[filter:healthcheck]
paste.filter_factory = oslo_middleware:Healthcheck.factory
backends = disable_by_file
disable_by_file_path = $g/healthcheck_disable

[filter:versionnegotiation]
paste.filter_factory = glance.api.middleware.version_negotiation:VersionNegotiationFilter.factory

[filter:authtoken]
paste.filter_factory = keystonemiddleware.auth_token:filter_factory
delay_auth_decision = true

[filter:context]
paste.filter_factory = glance.api.middleware.context:ContextMiddleware.factory
EOF
  # oslo.policy silently loads a policy.yaml lying next to the config file; keep none.
  rm -f "$g/etc/policy.yaml" "$g/etc/policy.json"
}

# The glance-db job of up: the database server, then Glance's config and schema.
glance_db_prepare() {
  postgres_bootstrap
  glance_prepare "$@"
}

glance_prepare() {
  local g=$DEVCLOUD_DIR/glance
  glance_write_conf "$1" "$2"
  echo "== glance-manage db_sync"
  timeout 120 /usr/bin/glance-manage --config-file "$g/etc/glance-api.conf" db_sync
  echo "== glance db ready"
}

# Whether the config names every store of GLANCE_STORES, ferry's policy file and the policy mode asked for: a state
# dir made before a store or the policy was added is upgraded in place by up (ceph_ensure_layout, glance_upgrade).
glance_conf_current() {
  local conf=$DEVCLOUD_DIR/glance/etc/glance-api.conf store
  for store in "${GLANCE_STORES[@]}"; do
    grep -q "^\[$store\]" "$conf" 2>/dev/null || return 1
  done
  grep -qx "policy_file = $GLANCE_POLICY_FILE" "$conf" && grep -qx "enforce_new_defaults = $GLANCE_NEW_DEFAULTS" "$conf" &&
    grep -qx "enforce_secure_rbac = $GLANCE_NEW_DEFAULTS" "$conf" &&
    grep -qx 'service_type = image' "$conf"
}

# Upgrade job of up, once both clusters hold the current pools: the current config, then a restart. The database, the
# file stores and every image are kept.
glance_upgrade() {
  echo "== glance-api.conf with the stores ${GLANCE_STORES[*]}, ferry's policy (enforce_new_defaults = $GLANCE_NEW_DEFAULTS)"
  glance_write_conf "$(<"$(ceph_fsid_file site-a)")" "$(<"$(ceph_fsid_file site-b)")"
  glance_restart
}

glance_start() {
  local g=$DEVCLOUD_DIR/glance
  start_daemon glance "$g/glance-api.stdout" /usr/bin/glance-api --config-file "$g/etc/glance-api.conf"
}

# Restart job of up, once PostgreSQL and both clusters answer: the config, the database and the file stores are
# kept. Only the log lines written by this start count for the store check.
glance_restart() {
  local g=$DEVCLOUD_DIR/glance offset
  stop_service glance 100
  offset=$(stat -c %s "$g/glance-api.log" 2>/dev/null || echo 0)
  echo "== start glance-api"
  glance_start
  wait_http glance "$GLANCE_URL/healthcheck" 60
  if tail -c +"$((offset + 1))" "$g/glance-api.log" 2>/dev/null | grep -q 'Failed to configure store'; then
    echo "a store failed to configure (see $g/glance-api.log)"
    return 1
  fi
  echo "== glance ready"
}
