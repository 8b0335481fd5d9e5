#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, on 127.0.0.1 only, its data in DIR.
#   test/support/pg-test-server.sh start DIR [durable]  initdb + pg_ctl start; writes DIR/url (a superuser URL)
#   test/support/pg-test-server.sh stop DIR    stops it and removes DIR
#   test/support/pg-test-server.sh restart DIR stops it abruptly (immediate) and starts it again on the same port
#   test/support/pg-test-server.sh halt DIR    stops it abruptly, keeping its data; `resume DIR` starts it again
#   test/support/pg-test-server.sh resume-if-stopped DIR starts it again unless it runs
#   test/support/pg-test-server.sh shutdown DIR stops it as an administrator would (fast: sessions are ended
#                                              and open transactions rolled back), keeping its data
# As root, the server runs as the 'postgres' user (PostgreSQL refuses to run as root).
set -euo pipefail
cmd=${1:?start|stop|restart}
dir=${2:?data folder}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
  echo "pg-test-server: no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2
  exit 1
fi
as_owner=()
if [[ $(id -u) -eq 0 ]]; then as_owner=(runuser -u postgres --); fi

start_server() {
  local port fast=""
  port=$(cat "$dir/port")
  # Tests that only need a database trade durability for speed; `start DIR durable` keeps every
  # commit across an abrupt stop (the restart tests).
  if [[ ! -f "$dir/durable" ]]; then fast="-c fsync=off -c full_page_writes=off -c synchronous_commit=off"; fi
  "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=400 $fast" \
    start >/dev/null
}

case "$cmd" in
  start)
    rm -rf "$dir" && mkdir -p "$dir"
    if [[ $(id -u) -eq 0 ]]; then chown postgres "$dir"; fi
    "${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U keel --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    if [[ "${3:-}" == durable ]]; then touch "$dir/durable"; fi
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$dir/port"
    start_server || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://keel@127.0.0.1:$(cat "$dir/port")/postgres" >"$dir/url"
    ;;
  halt)
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    ;;
  shutdown)
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  resume)
    start_server
    ;;
  resume-if-stopped)
    if [[ ! -f "$dir/data/postmaster.pid" ]]; then start_server; fi
    ;;
  restart)
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    start_server
    ;;
  stop)
    if [[ -f "$dir/data/postmaster.pid" ]]; then
      "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null || true
    fi
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start|stop|restart|halt|shutdown|resume|resume-if-stopped DIR" >&2; exit 2 ;;
esac
