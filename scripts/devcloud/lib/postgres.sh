# shellcheck shell=bash
# PostgreSQL for Glance's database, so that glance-api can run several workers. With sqlite, a write in one worker
# while a copy task starts in another gives "database is locked" and import locks stuck for 60 min (keystone.md
# section 12; seen again here: 20 such errors and 5 of 100 copies lost in one 50-image prewarm with workers = 2).
# Keystone and Placement stay on sqlite: they run one single-threaded process each. Needs common.sh.
#
# PostgreSQL refuses to run as root, and its user must be able to reach its data dir, which the state dir (e.g. under
# /root) may not allow: the cluster lives in PG_DIR under /var/tmp, named after the state dir, with a symlink
# <state dir>/postgres pointing at it. Only TCP on 127.0.0.1 (no unix socket: its path length is limited), password
# auth. Durability is off (fsync, full_page_writes): it is a throwaway test database.

# The prefix that runs a command as the user owning the cluster (the postgres user when we are root). setpriv execs,
# so the PID start_daemon records is the postmaster's own.
AS_PG_CMD=()
((EUID != 0)) || AS_PG_CMD=(setpriv --reuid=postgres --regid=postgres --clear-groups --)
as_pg() { "${AS_PG_CMD[@]}" "$@"; }

# The cluster's own files, wiped by up and by down --purge.
postgres_reset_dir() {
  rm -rf "$PG_DIR" "$DEVCLOUD_DIR/postgres"
  mkdir -p "$PG_DIR"
  chmod 700 "$PG_DIR"
  ((EUID != 0)) || chown postgres:postgres "$PG_DIR"
  ln -s "$PG_DIR" "$DEVCLOUD_DIR/postgres"
}

postgres_bootstrap() {
  [[ -x $PG_BIN/postgres ]] || die "no PostgreSQL server under /usr/lib/postgresql (Debian package postgresql)"
  local pwfile=$PG_DIR/superuser.pw
  echo "== initdb $PG_DIR/data"
  postgres_reset_dir
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  ((EUID != 0)) || chown postgres:postgres "$pwfile"
  as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --pwfile="$pwfile" --auth=scram-sha-256 --no-sync \
    --encoding=UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1 || {
    cat "$PG_DIR/initdb.log" >&2
    return 1
  }
  rm -f "$pwfile"
  postgres_start
  echo "== create role and database glance"
  PGPASSWORD=$POSTGRES_PASSWORD "$PG_BIN/psql" -q -v ON_ERROR_STOP=1 -h "$HOST" -p "$POSTGRES_PORT" -U postgres \
    -d postgres -v pw="$GLANCE_DB_PASSWORD" <<'SQL'
CREATE ROLE glance LOGIN PASSWORD :'pw';
CREATE DATABASE glance OWNER glance;
SQL
  echo "== postgres ready"
}

# Start the server on the existing cluster and wait until it accepts connections. After a crash (SIGKILL) it
# replays its WAL; a postmaster.pid naming a dead process does not stop it.
postgres_start() {
  local i
  [[ -d $PG_DIR/data ]] || {
    echo "no PostgreSQL cluster at $PG_DIR/data (Glance's database is gone): scripts/devcloud/down --purge, then up" >&2
    return 1
  }
  echo "== start postgres on $HOST:$POSTGRES_PORT"
  start_daemon postgres "$PG_DIR/postgres.out" "${AS_PG_CMD[@]}" "$PG_BIN/postgres" -D "$PG_DIR/data" \
    -c listen_addresses="$HOST" -p "$POSTGRES_PORT" -c unix_socket_directories= -c fsync=off \
    -c synchronous_commit=off -c full_page_writes=off -c max_connections=100 -c shared_buffers=32MB
  for ((i = 0; i < 150; i++)); do
    "$PG_BIN/pg_isready" -q -t 1 -h "$HOST" -p "$POSTGRES_PORT" && break
    pid_alive "$(read_pid postgres)" || {
      cat "$PG_DIR/postgres.out" >&2
      return 1
    }
    sleep 0.1
  done
  "$PG_BIN/pg_isready" -q -h "$HOST" -p "$POSTGRES_PORT" || {
    echo "postgres did not accept connections within 15 s" >&2
    return 1
  }
}

# Restart job of up: stop a running but unhealthy server (fast shutdown), start it on the kept data.
postgres_restart() {
  stop_service postgres 100 INT
  postgres_start
  echo "== postgres ready"
}

# Glance's SQLAlchemy URL.
glance_db_url() { echo "postgresql+psycopg2://glance:$GLANCE_DB_PASSWORD@$HOST:$POSTGRES_PORT/glance"; }
