#!/usr/bin/env bash
# Start a throw-away PostgreSQL cluster for the token service's tests and benchmark, and print
# one line on stdout for `eval`:
#
#   eval "$(bash scripts/ci_postgres.sh)"   # → export SVC_TEST_DATABASE_URL=postgres://…
#
# - Cluster in $SVC_PG_DIR (default ./.pg, gitignored), listening on 127.0.0.1:$SVC_PG_PORT
#   (default 55432) only, trust authentication (loopback test cluster, never production).
# - Idempotent: initialises only when the cluster does not exist, starts only when it is not
#   running, creates the database only when it is missing. Safe to call on every CI run.
# - Runs as root on a fresh Debian machine with the `postgresql` package: the server runs as
#   an unprivileged OS user ($SVC_PG_OS_USER, default `postgres`, created when missing). As a
#   non-root user the cluster simply runs as that user.
# - Everything but the export line goes to stderr. `bash scripts/ci_postgres.sh stop` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT="${SVC_PG_PORT:-55432}"
DB="${SVC_PG_DATABASE:-svc_test}"
ROLE="${SVC_PG_ROLE:-svc}"
PGDIR_REL="${SVC_PG_DIR:-.pg}"
mkdir -p "$PGDIR_REL"
PGDIR="$(cd "$PGDIR_REL" && pwd)"
DATA="$PGDIR/data"
LOG="$PGDIR/server.log"

say() { echo "ci_postgres: $*" >&2; }

bindir() {
  if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir
    return
  fi
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  say "PostgreSQL binaries not found; install them with: apt-get install -y postgresql"
  exit 1
}
BIN="$(bindir)"

# Run a command as the unprivileged cluster owner (root cannot run initdb/postgres).
if [ "$(id -u)" -eq 0 ]; then
  OSUSER="${SVC_PG_OS_USER:-postgres}"
  if ! id "$OSUSER" >/dev/null 2>&1; then
    say "creating OS user $OSUSER"
    useradd --system --home-dir "$PGDIR" --shell /usr/sbin/nologin "$OSUSER"
  fi
  chown "$OSUSER" "$PGDIR"
  [ -d "$DATA" ] && chown -R "$OSUSER" "$DATA"
  # The owner must be able to reach $PGDIR through its parents.
  as_owner() { runuser -u "$OSUSER" -- "$@"; }
  if ! as_owner test -w "$PGDIR"; then
    say "$OSUSER cannot write $PGDIR (a parent directory is not searchable); set SVC_PG_DIR"
    exit 1
  fi
else
  as_owner() { "$@"; }
fi

if [ "${1:-}" = "stop" ]; then
  if [ -f "$DATA/PG_VERSION" ]; then as_owner "$BIN/pg_ctl" -D "$DATA" -m fast stop >&2 || true; fi
  exit 0
fi

if [ ! -f "$DATA/PG_VERSION" ]; then
  say "initdb in $DATA"
  as_owner "$BIN/initdb" -D "$DATA" -A trust -U "$ROLE" --encoding=UTF8 --locale=C.UTF-8 >&2 ||
    as_owner "$BIN/initdb" -D "$DATA" -A trust -U "$ROLE" --encoding=UTF8 --locale=C >&2
fi

if ! as_owner "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  say "starting on 127.0.0.1:$PORT"
  as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $PGDIR -c max_connections=300 -c shared_buffers=128MB" \
    start >&2 || { cat "$LOG" >&2; exit 1; }
fi

for _ in $(seq 1 50); do
  "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" && break
  sleep 0.2
done
"$BIN/pg_isready" -h 127.0.0.1 -p "$PORT" >&2

PSQL=("$BIN/psql" -h 127.0.0.1 -p "$PORT" -U "$ROLE" -d postgres -v ON_ERROR_STOP=1 -qtA)
if [ "$("${PSQL[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != "1" ]; then
  say "creating database $DB"
  "${PSQL[@]}" -c "CREATE DATABASE \"$DB\"" >&2
fi

echo "export SVC_TEST_DATABASE_URL=postgres://$ROLE@127.0.0.1:$PORT/$DB"
