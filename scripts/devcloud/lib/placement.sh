# shellcheck shell=bash
# Placement 8.0.0 on sqlite behind Keystone (placement-and-traits.md section 2, keystone.md section 7.3).
# Needs common.sh.

placement_write_conf() {
  local p=$DEVCLOUD_DIR/placement
  mkdir -p "$p"
  cat >"$p/placement.conf" <<EOF
[DEFAULT]
debug = false
log_file = $p/placement.log

[api]
auth_strategy = keystone

[placement_database]
connection = sqlite:///$p/placement.sqlite
# migrations and the os-traits sync run when the app loads: no placement-manage db sync needed
sync_on_startup = true

[keystone_authtoken]
www_authenticate_uri = http://$HOST:$KEYSTONE_PORT
auth_url = http://$HOST:$KEYSTONE_PORT
auth_type = password
user_domain_name = Default
project_domain_name = Default
project_name = service
username = placement
password = $PLACEMENT_PASSWORD
interface = public
region_name = RegionOne
service_token_roles_required = true
EOF
}

placement_start() {
  placement_write_conf
  placement_start_daemon
}

# Placement reads its config only from OS_PLACEMENT_CONFIG_DIR and ignores everything after "--" (the app parses an
# empty argv). The "-- --config-dir DIR" below is therefore inert: it is there so that the command line names the
# state dir, which is how down and status recognise the process as ours.
placement_start_daemon() {
  local p=$DEVCLOUD_DIR/placement
  start_daemon placement "$p/placement.out" env OS_PLACEMENT_CONFIG_DIR="$p" \
    /usr/bin/placement-api --host "$HOST" --port "$PLACEMENT_PORT" -- --config-dir "$p"
}

# Restart job of up: the sqlite database and the config are kept (a config written now would take today's
# FERRY_DEVCLOUD_PLACEMENT_PASSWORD, which Keystone may not have).
placement_restart() {
  stop_service placement 50
  echo "== start placement-api"
  placement_start_daemon
  wait_http placement "$PLACEMENT_URL/" 60
  echo "== placement ready"
}
