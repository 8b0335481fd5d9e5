#!/usr/bin/env bash
# Runs a Node test of official npm clients (by default test/api/openai_client_test.mjs, the
# openai client) against keel's OpenAI-compatible endpoints, served by keel_openai_test_server on
# a scripted mock model:
#   openai_client_test.sh SERVER_BINARY [SCRIPT.mjs]
# Node 22 and the openai package come from build/npm (scripts/install-test-npm.sh). Exit 77
# (skipped) when they are missing, unless KEEL_REQUIRE_NPM is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server=$(realpath "${1:?usage: openai_client_test.sh SERVER_BINARY [SCRIPT.mjs]}")
script=$(realpath "${2:-$here/openai_client_test.mjs}")
name=$(basename "$script" .mjs)
node=$root/build/npm/node_modules/.bin/node
module=$root/build/npm/node_modules/openai/index.mjs
if [[ ! -x $node || ! -f $module ]]; then
  if [[ -n ${KEEL_REQUIRE_NPM:-} ]]; then
    echo "openai client test: build/npm has no node or openai package; run scripts/install-test-npm.sh" >&2
    exit 1
  fi
  echo "openai client test: skipped (run scripts/install-test-npm.sh to install the openai package)"
  exit 77
fi

work=$(mktemp -d)
server_pid=""
cleanup() {
  exec 3>&-  # the server's stdin ends: it stops
  if [[ -n $server_pid ]]; then
    for _ in $(seq 1 50); do
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

mkfifo "$work/stdin"
"$server" <"$work/stdin" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
exec 3>"$work/stdin"  # held open until cleanup
url=""
for _ in $(seq 1 100); do
  url=$(sed -n 's|^listening \(http://127\.0\.0\.1:[0-9]*\)$|\1|p' "$work/server.out" | head -1)
  [[ -n $url ]] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z $url ]]; then
  echo "openai client test: $server did not start:" >&2
  cat "$work/server.err" >&2
  exit 1
fi

status=0
KEEL_OPENAI_URL="$url/v1" KEEL_OPENAI_TOKEN=keel-test-token KEEL_OPENAI_MODULE="$module" \
  KEEL_NPM_MODULES="$root/build/npm/node_modules" timeout 90 "$node" "$script" || status=$?
if [[ $status -ne 0 ]]; then
  echo "$name: failed (exit $status); server log:" >&2
  cat "$work/server.err" >&2
fi
exit $status
