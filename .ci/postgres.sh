#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite.
#
#   pg_env=$(bash .ci/postgres.sh)   # start (or reuse) the server; under set -e a failure stops here
#   eval "$pg_env"                   # exports ARENA_TEST_POSTGRES_URL
#   bash .ci/postgres.sh stop        # stop it and delete its folder
#
# (A bare eval "$(bash .ci/postgres.sh)" would hide a failure: eval of nothing succeeds.)
#
# Meant for CI (root on a fresh Debian machine), works for a developer too:
# - installs Debian's postgresql package when no server binaries are found
#   (apt-get update once, then apt-get install -y postgresql; needs root);
# - initdb's a cluster in $ARENA_PG_DIR (default: /tmp/arena-ci-postgres) owned by
#   the postgres user (or by the caller when not root), trust authentication,
#   fsync off: the data is disposable;
# - starts it listening on a unix socket in that folder and on 127.0.0.1 at a
#   free port, creates the database arena_test;
# - prints exactly one line on stdout:
#     export ARENA_TEST_POSTGRES_URL=postgresql+psycopg://postgres@127.0.0.1:PORT/arena_test
#   Everything else goes to stderr.
# Running it again while that server is up reuses it; a dead or half-made one is
# wiped and made anew. Any failure exits non-zero with the reason (and the tail
# of the server log when the server would not start).
set -euo pipefail

PG_DIR="${ARENA_PG_DIR:-${TMPDIR:-/tmp}/arena-ci-postgres}"
DB_NAME=arena_test
SUPERUSER=postgres
MARKER=.arena-ci-postgres # only folders holding this file are ever deleted

log() { printf 'postgres.sh: %s\n' "$*" >&2; }
die() {
	log "ERROR: $*"
	exit 1
}

# The bin folder of the newest PostgreSQL installed from Debian's packages.
find_bindir() {
	local dir
	dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1)
	[[ -n $dir && -x $dir/initdb && -x $dir/pg_ctl && -x $dir/psql ]] || return 1
	printf '%s\n' "$dir"
}

# Run a server command as the cluster's owner: postgres when we are root
# (initdb and postgres refuse to run as root), else ourselves.
as_owner() {
	if [[ $EUID -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

server_is_up() {
	[[ -f $PG_DIR/port && -f $PG_DIR/data/postmaster.pid ]] || return 1
	as_owner "$BIN/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1 || return 1
	"$BIN/pg_isready" -q -h 127.0.0.1 -p "$(cat "$PG_DIR/port")" -U "$SUPERUSER" -t 5
}

wipe_dir() {
	[[ -e $PG_DIR ]] || return 0
	[[ -f $PG_DIR/$MARKER ]] || die "$PG_DIR exists but was not made by this script (no $MARKER): refusing to delete it; set ARENA_PG_DIR elsewhere"
	if [[ -f $PG_DIR/data/postmaster.pid ]] && as_owner "$BIN/pg_ctl" -D "$PG_DIR/data" status >/dev/null 2>&1; then
		as_owner "$BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w -t 15 stop >&2 || true
	fi
	rm -rf -- "$PG_DIR"
}

free_port() {
	command -v python3 >/dev/null || die "python3 is needed to pick a free port"
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

psql_admin() {
	"$BIN/psql" -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$SUPERUSER" -d postgres "$@"
}

if [[ ${1:-start} != start && ${1:-} != stop ]]; then
	die "usage: $0 [start|stop]"
fi

if ! BIN=$(find_bindir); then
	if [[ ${1:-start} == stop ]]; then exit 0; fi
	[[ $EUID -eq 0 ]] || die "no PostgreSQL server under /usr/lib/postgresql and not root: run as root, or apt-get install postgresql"
	log "no PostgreSQL server found: installing Debian's postgresql package"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update >&2 || die "apt-get update failed"
	apt-get install -y postgresql >&2 || die "apt-get install -y postgresql failed"
	BIN=$(find_bindir) || die "the postgresql package is installed but /usr/lib/postgresql/*/bin has no initdb, pg_ctl and psql"
fi
log "using $BIN ($("$BIN/postgres" --version))"

if [[ $EUID -eq 0 ]]; then
	id -u postgres >/dev/null 2>&1 || die "no 'postgres' user (Debian's postgresql-common creates it): cannot run the server as root"
fi

if [[ ${1:-start} == stop ]]; then
	wipe_dir
	log "stopped and removed $PG_DIR"
	exit 0
fi

if server_is_up; then
	PORT=$(cat "$PG_DIR/port")
	log "reusing the server already running in $PG_DIR on port $PORT"
else
	wipe_dir
	mkdir -p -- "$PG_DIR"
	touch "$PG_DIR/$MARKER"
	chmod 700 "$PG_DIR"
	if [[ $EUID -eq 0 ]]; then chown -R postgres: "$PG_DIR"; fi
	cd "$PG_DIR" # the postgres user may not be allowed into the caller's folder
	as_owner "$BIN/initdb" -D "$PG_DIR/data" -U "$SUPERUSER" --auth=trust \
		--encoding=UTF8 --no-locale --no-sync >"$PG_DIR/initdb.log" 2>&1 ||
		{
			tail -n 30 "$PG_DIR/initdb.log" >&2
			die "initdb failed (log above, full log in $PG_DIR/initdb.log)"
		}
	cat >>"$PG_DIR/data/postgresql.conf" <<EOF
# added by .ci/postgres.sh: a disposable test server
listen_addresses = '127.0.0.1'
unix_socket_directories = '$PG_DIR'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
	started=""
	for attempt in 1 2 3; do
		PORT=$(free_port)
		if as_owner "$BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
			-o "-p $PORT" start >&2; then
			started=yes
			break
		fi
		log "attempt $attempt: the server did not start on port $PORT"
	done
	if [[ -z $started ]]; then
		tail -n 30 "$PG_DIR/server.log" >&2 || true
		die "PostgreSQL would not start (log above, full log in $PG_DIR/server.log)"
	fi
	printf '%s\n' "$PORT" >"$PG_DIR/port"
	log "server started in $PG_DIR on 127.0.0.1:$PORT"
fi

exists=$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'") ||
	die "cannot connect to the server on 127.0.0.1:$PORT"
if [[ $exists != 1 ]]; then
	psql_admin -q -c "CREATE DATABASE $DB_NAME" >&2 || die "CREATE DATABASE $DB_NAME failed"
fi
"$BIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U "$SUPERUSER" -d "$DB_NAME" -c 'SELECT 1' >/dev/null ||
	die "cannot connect to database $DB_NAME on 127.0.0.1:$PORT"

printf 'export ARENA_TEST_POSTGRES_URL=postgresql+psycopg://%s@127.0.0.1:%s/%s\n' "$SUPERUSER" "$PORT" "$DB_NAME"
