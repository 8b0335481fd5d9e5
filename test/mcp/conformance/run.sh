#!/usr/bin/env bash
# Runs the official MCP conformance suite (build/npm, see scripts/install-test-npm.sh) against keel,
# once per protocol revision with the scenarios that revision requires (the suite's frozen
# requirement sets, `--requirements 2025-11-25` and `--requirements 2026-07-28`; each runs at its
# revision's wire: the initialize handshake, or stateless requests with per-request _meta):
#   run.sh server KEEL_BINARY   — the server scenarios against `keel mcp serve --http`
#   run.sh fixtures SERVER_BINARY — the server scenarios against keel's MCP server with the suite's
#                                 fixtures (keel_mcp_conformance_server); known failures in
#                                 fixtures-baseline.yml
#   run.sh client CLIENT_BINARY — the client scenarios against keel_mcp_conformance_client, plus
#                                 the client-credentials extension scenarios keel's client offers
# Known failures are listed, with reasons, in baseline.yml next to this script; the suite fails on
# a new failure and on a baseline entry that now passes, so the list can only shrink.
# Exit 77 (skipped) when the npm packages are missing, unless KEEL_REQUIRE_NPM is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mode=${1:?usage: run.sh server|fixtures|client BINARY}
binary=$(realpath "${2:?usage: run.sh server|fixtures|client BINARY}")
node=$root/build/npm/node_modules/.bin/node
suite=$root/build/npm/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [[ ! -x $node || ! -f $suite ]]; then
  if [[ -n ${KEEL_REQUIRE_NPM:-} ]]; then
    echo "conformance: build/npm is missing; run scripts/install-test-npm.sh" >&2
    exit 1
  fi
  echo "conformance: skipped (run scripts/install-test-npm.sh to install the suite)"
  exit 77
fi
revisions="2025-11-25 2026-07-28"
work=$(mktemp -d)
server_pid=""
cleanup() {
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$work/ws"
cd "$work"

if [[ $mode == server || $mode == fixtures ]]; then
  if [[ $mode == server ]]; then
    # The suite's runner sends no Authorization header: the protocol is under test here, the token
    # check is covered by keel's own tests (test/cli/serve_boundary_e2e_test.cpp).
    "$binary" mcp serve --http 127.0.0.1:0 -w "$work/ws" --no-agent --no-auth 2>"$work/serve.log" &
    baseline=$here/baseline.yml
  else
    "$binary" 2>"$work/serve.log" &
    baseline=$here/fixtures-baseline.yml
  fi
  server_pid=$!
  url=""
  for _ in $(seq 1 100); do
    url=$(grep -o 'http://127.0.0.1:[0-9]*/mcp' "$work/serve.log" | head -1 || true)
    [[ -n $url ]] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z $url ]]; then
    echo "conformance: the MCP server did not start:" >&2
    cat "$work/serve.log" >&2
    exit 1
  fi
  for revision in $revisions; do
    echo "conformance: server scenarios required by $revision"
    timeout 600 "$node" "$suite" server --url "$url" --requirements "$revision" --expected-failures "$baseline" \
      -o "$work/results-$revision"
  done
elif [[ $mode == client ]]; then
  # One scenario at a time: the suite's parallel mode starts them all at once, which a loaded
  # 2-core machine turns into timing failures (sse-retry measures the reconnect delay).
  failed=()
  for revision in $revisions; do
    scenarios=$("$node" "$suite" list --requirements "$revision" 2>/dev/null |
      sed -n '/^Client scenarios/,/^$/s/^ *- \([^ ]*\).*/\1/p')
    [[ -n $scenarios ]] || { echo "conformance: the suite listed no client scenarios for $revision" >&2; exit 1; }
    for scenario in $scenarios auth/client-credentials-jwt auth/client-credentials-basic; do
      if ! timeout 120 "$node" "$suite" client --command "$binary" --scenario "$scenario" --spec-version "$revision" \
          --timeout 30000 --expected-failures "$here/baseline.yml" -o "$work/results" >"$work/scenario.log" 2>&1; then
        failed+=("$scenario@$revision")
        echo "--- $scenario ($revision)"
        tail -30 "$work/scenario.log"
      else
        echo "ok: $scenario at $revision ($(grep -o 'Passed: [0-9/]*' "$work/scenario.log" | head -1 || true))"
      fi
    done
  done
  if ((${#failed[@]})); then
    echo "conformance: unexpected results (a new failure, or a baseline entry that now passes): ${failed[*]}" >&2
    exit 1
  fi
else
  echo "usage: run.sh server|fixtures|client BINARY" >&2
  exit 2
fi
