#!/usr/bin/env bash
# The main job of `make demo`: what keel does, offline, with its built-in rules model (no network,
# no weights, no API key), in a home and a workspace of its own under build/demo — your own
# ~/.config/keel and ~/.local/share/keel are neither read nor written.
#
#   1. a multi-step plan over the data tools: read a CSV, parse it, aggregate a column, and an
#      answer filled in from the tools' results;
#   2. an approval: the workspace's keel.yaml makes fs_write ask first;
#   3. a session saved, then resumed with a follow-up question;
#   4. a guard firing: a misnamed column halts the plan, and the answer says so;
#   5. keel serve with the address of its web UI.
#
# Environment: KEEL_DEMO_BIN (the keel to run; default build/default/keel), KEEL_DEMO_DIR (where the
# home and workspace go; default build/demo), KEEL_DEMO_ANSWER (the answer given to the approval
# when there is no terminal to ask on; default y). On a terminal you answer the approval yourself
# and keel serve runs until Ctrl-C; without one (CI) the server is checked and stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
keel=${KEEL_DEMO_BIN:-$PWD/build/default/keel}
demo=${KEEL_DEMO_DIR:-$PWD/build/demo}
[[ -x "$keel" ]] || { echo "demo: $keel is missing; run make build" >&2; exit 1; }

rm -rf "$demo"
ws="$demo/workspace"
mkdir -p "$ws" "$demo/home" "$demo/config" "$demo/data" "$demo/cache" "$demo/state"
export KEEL_HOME="$demo/home" HOME="$demo/home" XDG_CONFIG_HOME="$demo/config" XDG_DATA_HOME="$demo/data" \
  XDG_CACHE_HOME="$demo/cache" XDG_STATE_HOME="$demo/state"
unset KEEL_MODEL OPENAI_API_KEY ANTHROPIC_API_KEY OLLAMA_HOST KEEL_SERVE_TOKEN

cat >"$ws/sales.csv" <<'CSV'
region,amount,units
north,120.5,3
south,80,2
east,99.25,4
west,42,1
CSV
cat >"$ws/keel.yaml" <<'YAML'
# The demo workspace's policy: writing a file asks first (by default only high-risk tools ask).
approvals:
  tools:
    fs_write: {mode: confirm}
YAML

# GET a path from 127.0.0.1:PORT with bash alone (no curl on a fresh machine); prints the body.
http_get() {  # PORT PATH [TOKEN]
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$1"
  printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nAuthorization: Bearer %s\r\nConnection: close\r\n\r\n' \
    "$2" "$1" "${3:-}" >&3
  reply=$(timeout 5 cat <&3 | tr -d '\r' || true)
  exec 3<&-
  printf '%s\n' "${reply#*$'\n\n'}"
}
step() { printf '\n== %s\n' "$1"; }
show() { printf '$ %s\n' "$*"; }
run() {  # keel run TASK [more options], in the workspace, with the rules model
  local task=$1
  shift
  show "keel run --model rules $* \"$task\""
  (cd "$ws" && "$keel" run --model rules "$@" "$task")
}

"$keel" --version

step "1. A plan: read a CSV, parse it, sum a column; the answer is filled in from the results"
run "sum the amount column of sales.csv"

step "2. An approval: keel.yaml makes fs_write ask first"
task="write the average of the amount column of sales.csv to report.txt"
if [[ -t 0 ]]; then
  run "$task"
else
  # No terminal here: the same run on a pseudo-terminal, answered with $KEEL_DEMO_ANSWER.
  show "keel run --model rules \"$task\"    (answering: ${KEEL_DEMO_ANSWER:-y})"
  printf '%s\n' "${KEEL_DEMO_ANSWER:-y}" |
    (cd "$ws" && script -qec "$(printf '%q ' "$keel" run --model rules "$task")" /dev/null) | tr -d '\r'
fi
show "cat report.txt"
cat "$ws/report.txt" 2>/dev/null || echo "(report.txt was not written)"

step "3. A session: every run is saved; continue the first one"
show "keel sessions list"
(cd "$ws" && "$keel" sessions list)
first=$(cd "$ws" && "$keel" sessions list --limit 0 | awk 'NR > 1 && /sum the amount column/ {print $1; exit}')
[[ -n "$first" ]] || { echo "demo: the first run's session was not saved" >&2; exit 1; }
run "what is the maximum of the amount column of sales.csv" --session "$first"
show "keel sessions show $first"
(cd "$ws" && "$keel" sessions show "$first")

step "4. A guard: a column that does not exist halts the plan instead of answering 0"
run "sum the price column of sales.csv"

step "5. The web UI: keel serve"
log="$demo/serve.log"
(cd "$ws" && exec "$keel" serve --port 0 >"$log" 2>&1) &
serve_pid=$!
# The server goes with the demo, however it ends (a closed pipe or Ctrl-C included).
trap 'kill "$serve_pid" 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM HUP PIPE
url=""
for _ in $(seq 100); do
  url=$(sed -n 's/^keel serve: web UI (signed in): //p' "$log" 2>/dev/null | head -1)
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$log"; echo "demo: keel serve did not start" >&2; exit 1; }
port=$(sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' <<<"$url")
cat "$log"
if [[ -t 0 ]]; then
  echo "Open $url in a browser: the sessions above are there. Ctrl-C stops the server."
  wait "$serve_pid"
else
  show "GET http://127.0.0.1:$port/api/health"
  http_get "$port" /api/health "${url##*#token=}"
  show "GET http://127.0.0.1:$port/   (the web UI)"
  http_get "$port" / | grep -o '<title>[^<]*</title>'
  kill "$serve_pid"
  wait "$serve_pid" 2>/dev/null || true
  for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break; sleep 0.1; done
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "demo: keel serve is still running on port $port after it was stopped" >&2
    exit 1
  fi
  echo "demo: done (keel serve stopped; run it yourself with: cd $ws && $keel serve)"
fi
