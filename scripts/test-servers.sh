#!/usr/bin/env bash
# scripts/test-servers.sh — start throwaway PostgreSQL and Redis servers on
# free loopback ports for the test suite.
#
# Usage:
#   source scripts/test-servers.sh        # from bash (scripts/test.sh does this)
#   bash scripts/test-servers.sh CMD...   # run CMD with the servers, then stop them
#   bash scripts/test-servers.sh          # start, print the env, wait for Ctrl-C
#
# It installs whatever of postgresql, redis-server, chromium, curl, python3 and nodejs/npm is missing
# (Debian packages), starts both servers in a fresh temp dir, and exports:
#   CAPGATE_TEST_POSTGRES_URL  postgres://postgres@127.0.0.1:<port>/postgres?sslmode=disable
#   CAPGATE_TEST_REDIS_URL     redis://127.0.0.1:<port>/0
#   CAPGATE_TEST_CHROMIUM      path of the chromium binary
#   CAPGATE_REQUIRE_SERVERS=1  tests must fail, never skip, when a server is missing
# An EXIT trap (replacing any earlier EXIT trap of the shell) stops both
# servers and removes the temp dir; capgate_test_servers_stop does it by hand.
# If a server cannot be started, the tail of its log is printed and the script
# fails (exit / return non-zero). It never skips.
#
# Sourcing it twice in one shell is harmless: the second time it finds the
# servers it started still answering and does nothing.

_capgate_ts_log() { printf 'test-servers: %s\n' "$*" >&2; }

# Run a command as root (directly, or through sudo for a non-root developer).
_capgate_ts_as_root() {
	if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		_capgate_ts_log "need root to run: $*"
		return 1
	fi
}

# Run a command as the PostgreSQL owner: postgres refuses to run as root.
_capgate_ts_as_pg() {
	if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# Newest /usr/lib/postgresql/<ver>/bin that has initdb, or nothing.
_capgate_ts_pg_bindir() {
	local f best=""
	for f in /usr/lib/postgresql/*/bin/initdb; do
		[[ -x $f ]] || continue
		best=$(printf '%s\n%s\n' "$best" "$(dirname "$f")" | sed '/^$/d' | sort -V | tail -n 1)
	done
	printf '%s' "$best"
}

# Install whatever is missing, with one apt-get run.
_capgate_ts_install() {
	local missing=()
	if [[ -z $(_capgate_ts_pg_bindir) ]] || ! id postgres >/dev/null 2>&1 ||
		! command -v psql >/dev/null 2>&1; then
		missing+=(postgresql)
	fi
	if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
		missing+=(redis-server)
	fi
	if ! command -v chromium >/dev/null 2>&1; then
		missing+=(chromium)
	fi
	# The README's examples (e2e/readme_test.go): curl, Python's standard library, and Node's npx
	# for the TypeScript example and the MCP Inspector.
	command -v curl >/dev/null 2>&1 || missing+=(curl)
	command -v python3 >/dev/null 2>&1 || missing+=(python3)
	command -v npx >/dev/null 2>&1 || missing+=(nodejs npm)
	[[ ${#missing[@]} -eq 0 ]] && return 0

	_capgate_ts_log "installing missing packages: ${missing[*]}"
	local start=$SECONDS
	if ! _capgate_ts_as_root apt-get update; then
		_capgate_ts_log "apt-get update failed"
		return 1
	fi
	if ! _capgate_ts_as_root env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y "${missing[@]}"; then
		_capgate_ts_log "apt-get install ${missing[*]} failed"
		return 1
	fi
	_capgate_ts_log "installed ${missing[*]} in $((SECONDS - start))s"
}

# Print N free loopback TCP ports, one per line.
_capgate_ts_free_ports() {
	local n=$1
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$n" <<'EOF' && return 0
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
EOF
	fi
	# Fallback: random ports that nothing answers on.
	local got=0 p tries=0 seen=" "
	while ((got < n && tries < 500)); do
		tries=$((tries + 1))
		p=$((20000 + RANDOM % 40000))
		[[ $seen == *" $p "* ]] && continue
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			seen+="$p "
			got=$((got + 1))
		fi
	done
	((got == n))
}

_capgate_ts_tail() { # file label
	_capgate_ts_log "---- last lines of $2 ($1) ----"
	if [[ -f $1 ]]; then tail -n 40 "$1" >&2; else _capgate_ts_log "(no log written)"; fi
	_capgate_ts_log "----"
}

capgate_test_servers_stop() {
	if [[ -n ${_CAPGATE_TS_SLEEP_PID:-} ]]; then
		kill "$_CAPGATE_TS_SLEEP_PID" >/dev/null 2>&1 || true
		unset _CAPGATE_TS_SLEEP_PID
	fi
	local dir=${_CAPGATE_TS_DIR:-}
	[[ -n $dir ]] || return 0
	if [[ -n ${_CAPGATE_TS_REDIS_PORT:-} ]]; then
		redis-cli -h 127.0.0.1 -p "$_CAPGATE_TS_REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
		if [[ -f $dir/redis.pid ]]; then
			kill "$(cat "$dir/redis.pid" 2>/dev/null)" >/dev/null 2>&1 || true
		fi
	fi
	if [[ -n ${_CAPGATE_TS_PG_BIN:-} && -f $dir/pgdata/postmaster.pid ]]; then
		_capgate_ts_as_pg "$_CAPGATE_TS_PG_BIN/pg_ctl" -D "$dir/pgdata" -m immediate -w -t 15 stop >/dev/null 2>&1 ||
			kill -QUIT "$(head -n 1 "$dir/pgdata/postmaster.pid" 2>/dev/null)" >/dev/null 2>&1 || true
	fi
	rm -rf -- "$dir"
	unset _CAPGATE_TS_DIR _CAPGATE_TS_PG_BIN _CAPGATE_TS_PG_PORT _CAPGATE_TS_REDIS_PORT
}

_capgate_ts_start_postgres() { # dir port
	local dir=$1 port=$2 bin i
	bin=$(_capgate_ts_pg_bindir)
	if [[ -z $bin ]]; then
		_capgate_ts_log "no /usr/lib/postgresql/*/bin/initdb found"
		return 1
	fi
	_CAPGATE_TS_PG_BIN=$bin

	local start=$SECONDS
	# cd into the temp dir so the postgres user is not left in an unreadable cwd.
	if ! (cd "$dir" && _capgate_ts_as_pg "$bin/initdb" -D "$dir/pgdata" -U postgres \
		-A trust -E UTF8 --no-locale --no-sync >"$dir/initdb.log" 2>&1); then
		_capgate_ts_log "initdb failed"
		_capgate_ts_tail "$dir/initdb.log" initdb
		return 1
	fi
	_capgate_ts_log "initdb took $((SECONDS - start))s"

	if ! (cd "$dir" && _capgate_ts_as_pg "$bin/pg_ctl" -D "$dir/pgdata" -l "$dir/postgres.log" -W \
		-o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
		start >/dev/null 2>&1); then
		_capgate_ts_log "pg_ctl start failed"
		_capgate_ts_tail "$dir/postgres.log" postgres
		return 1
	fi
	# ~30 s: 60 tries, 0.5 s apart.
	for ((i = 0; i < 60; i++)); do
		if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres; then
			_CAPGATE_TS_PG_PORT=$port
			return 0
		fi
		if ((i >= 4)) && ! _capgate_ts_as_pg "$bin/pg_ctl" -D "$dir/pgdata" status >/dev/null 2>&1; then
			_capgate_ts_log "postgres exited during start-up"
			_capgate_ts_tail "$dir/postgres.log" postgres
			return 1
		fi
		sleep 0.5
	done
	_capgate_ts_log "postgres did not answer pg_isready on 127.0.0.1:$port within 30s"
	_capgate_ts_tail "$dir/postgres.log" postgres
	return 1
}

_capgate_ts_start_redis() { # dir port
	local dir=$1 port=$2 i
	if ! redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
		--daemonize yes --dir "$dir" --pidfile "$dir/redis.pid" \
		--logfile "$dir/redis.log" >"$dir/redis-start.log" 2>&1; then
		_capgate_ts_log "redis-server failed to start"
		_capgate_ts_tail "$dir/redis-start.log" redis-server
		_capgate_ts_tail "$dir/redis.log" redis-server
		return 1
	fi
	_CAPGATE_TS_REDIS_PORT=$port
	for ((i = 0; i < 60; i++)); do
		if [[ $(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null) == PONG ]]; then
			return 0
		fi
		sleep 0.5
	done
	_capgate_ts_log "redis did not answer PING on 127.0.0.1:$port within 30s"
	_capgate_ts_tail "$dir/redis.log" redis-server
	return 1
}

_capgate_ts_start() {
	# Already started by an earlier source in this shell, and still alive?
	if [[ -n ${_CAPGATE_TS_DIR:-} && -d ${_CAPGATE_TS_DIR} && -n ${_CAPGATE_TS_PG_PORT:-} &&
		-n ${_CAPGATE_TS_REDIS_PORT:-} ]] &&
		"$_CAPGATE_TS_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$_CAPGATE_TS_PG_PORT" &&
		[[ $(redis-cli -h 127.0.0.1 -p "$_CAPGATE_TS_REDIS_PORT" ping 2>/dev/null) == PONG ]]; then
		_capgate_ts_log "servers already running (postgres :$_CAPGATE_TS_PG_PORT, redis :$_CAPGATE_TS_REDIS_PORT)"
		return 0
	fi
	capgate_test_servers_stop

	_capgate_ts_install || return 1
	local chromium
	chromium=$(command -v chromium) || {
		_capgate_ts_log "chromium not found after install"
		return 1
	}

	local dir
	dir=$(mktemp -d "${TMPDIR:-/tmp}/capgate-test-servers.XXXXXX") || {
		_capgate_ts_log "mktemp -d failed"
		return 1
	}
	_CAPGATE_TS_DIR=$dir
	if [[ ${EUID:-$(id -u)} -eq 0 ]]; then
		# The postgres user owns the dir: data dir and unix socket live here.
		chown postgres: "$dir" || return 1
		chmod 0755 "$dir" || return 1
	fi

	local ports
	ports=$(_capgate_ts_free_ports 2) || {
		_capgate_ts_log "could not find two free loopback ports"
		return 1
	}
	local pg_port redis_port
	pg_port=$(sed -n 1p <<<"$ports")
	redis_port=$(sed -n 2p <<<"$ports")

	_capgate_ts_start_postgres "$dir" "$pg_port" || return 1
	_capgate_ts_start_redis "$dir" "$redis_port" || return 1

	export CAPGATE_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:${pg_port}/postgres?sslmode=disable"
	export CAPGATE_TEST_REDIS_URL="redis://127.0.0.1:${redis_port}/0"
	export CAPGATE_TEST_CHROMIUM=$chromium
	export CAPGATE_REQUIRE_SERVERS=1
	_capgate_ts_log "postgres on 127.0.0.1:$pg_port, redis on 127.0.0.1:$redis_port, temp dir $dir"
}

# Stop the servers when the shell that started them exits.
trap capgate_test_servers_stop EXIT
if [[ $- != *i* ]]; then
	trap 'capgate_test_servers_stop; trap - EXIT; exit 130' INT
	trap 'capgate_test_servers_stop; trap - EXIT; exit 143' TERM
fi

if [[ ${BASH_SOURCE[0]} != "$0" ]]; then
	# Sourced.
	if ! _capgate_ts_start; then
		capgate_test_servers_stop
		_capgate_ts_log "could not start the test servers"
		return 1
	fi
else
	# Executed.
	set -euo pipefail
	if ! _capgate_ts_start; then
		capgate_test_servers_stop
		_capgate_ts_log "could not start the test servers"
		exit 1
	fi
	if [[ $# -gt 0 ]]; then
		rc=0
		"$@" || rc=$?
		exit "$rc"
	fi
	printf 'export %s=%q\n' \
		CAPGATE_TEST_POSTGRES_URL "$CAPGATE_TEST_POSTGRES_URL" \
		CAPGATE_TEST_REDIS_URL "$CAPGATE_TEST_REDIS_URL" \
		CAPGATE_TEST_CHROMIUM "$CAPGATE_TEST_CHROMIUM" \
		CAPGATE_REQUIRE_SERVERS "$CAPGATE_REQUIRE_SERVERS"
	_capgate_ts_log "servers running; press Ctrl-C to stop them"
	while :; do
		sleep 3600 &
		_CAPGATE_TS_SLEEP_PID=$!
		wait "$_CAPGATE_TS_SLEEP_PID" || true
	done
fi
