# shellcheck shell=bash
# Keystone 22 on sqlite behind the wsgiref keystone-wsgi-public (keystone.md sections 3-4).
# Run as a job of `up`: keystone_bootstrap creates it, keystone_restart starts it again on its kept state.
# Needs common.sh.

keystone_write_conf() {
  local k=$DEVCLOUD_DIR/keystone
  mkdir -p "$k/etc"
  mkdir -m 700 "$k/fernet-keys" "$k/credential-keys"
  # oslo.config has no inline comments: comments stay on their own lines.
  cat >"$k/etc/keystone.conf" <<EOF
[DEFAULT]
log_file = $k/keystone.log

[database]
connection = sqlite:///$k/keystone.sqlite

[token]
provider = fernet
expiration = 3600

[fernet_tokens]
key_repository = $k/fernet-keys

[fernet_receipts]
key_repository = $k/fernet-keys

[credential]
key_repository = $k/credential-keys

[identity]
# bcrypt minimum: password auth 10-13 ms instead of 0.2 s
password_hash_rounds = 4

[cache]
# without a cache one token validation runs ~500 SQL statements (0.8 s)
enabled = true
backend = dogpile.cache.memory
EOF
}

keystone_bootstrap() {
  local k=$DEVCLOUD_DIR/keystone p1 p2
  local KM=(/usr/bin/keystone-manage --config-file "$k/etc/keystone.conf")
  keystone_write_conf

  # The key setups need no database: run them next to db_sync. keystone-manage ends with a harmless eventlet
  # traceback on stderr; exit codes are what count.
  echo "== fernet_setup, credential_setup, db_sync"
  timeout 120 "${KM[@]}" fernet_setup --keystone-user "$(id -un)" --keystone-group "$(id -gn)" &
  p1=$!
  timeout 120 "${KM[@]}" credential_setup --keystone-user "$(id -un)" --keystone-group "$(id -gn)" &
  p2=$!
  timeout 120 "${KM[@]}" db_sync
  wait "$p1"
  wait "$p2"
  [[ -f $k/fernet-keys/0 && -f $k/credential-keys/0 ]] || {
    echo "fernet or credential keys missing"
    return 1
  }

  echo "== bootstrap"
  OS_BOOTSTRAP_PASSWORD=$ADMIN_PASSWORD timeout 120 "${KM[@]}" bootstrap \
    --bootstrap-username admin --bootstrap-project-name admin --bootstrap-role-name admin \
    --bootstrap-service-name keystone --bootstrap-region-id RegionOne \
    --bootstrap-public-url "$KEYSTONE_URL"

  keystone_start
}

keystone_start() {
  local k=$DEVCLOUD_DIR/keystone
  echo "== start keystone-wsgi-public"
  start_daemon keystone "$k/wsgi.out" /usr/bin/keystone-wsgi-public --host "$HOST" --port "$KEYSTONE_PORT" \
    -- --config-file "$k/etc/keystone.conf"
  wait_http keystone "$KEYSTONE_URL" 60
  echo "== keystone ready"
}

# Restart job of up: the database, keys, users and application credentials are kept; no registration needed.
keystone_restart() {
  stop_service keystone 50
  keystone_start
}
