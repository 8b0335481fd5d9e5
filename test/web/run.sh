#!/usr/bin/env bash
# Runs one of the web UI's browser tests with build/npm's Node and playwright-core driving
# Debian's chromium (headless):
#   run.sh sanitizer               — XSS payloads through the Markdown renderer and the sanitizer
#   run.sh components              — the UI against an in-memory fake of the API (drops, keyboard...)
#   run.sh e2e KEEL_BINARY         — the UI against `KEEL_BINARY serve` and a mock model server
# Screenshots go to $KEEL_WEB_ARTIFACTS (default build/web-artifacts).
# Exit 77 (skipped) when chromium, build/npm's node or playwright-core is missing, unless
# KEEL_REQUIRE_NPM is set (then that is a failure).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=${1:?usage: run.sh sanitizer|components|e2e [KEEL_BINARY]}
node=$root/build/npm/node_modules/.bin/node
chromium=${KEEL_CHROMIUM:-/usr/bin/chromium}
missing=()
[[ -x $node ]] || missing+=("build/npm/node_modules/.bin/node")
[[ -f $root/build/npm/node_modules/playwright-core/package.json ]] || missing+=("build/npm/node_modules/playwright-core")
[[ -x $chromium ]] || missing+=("$chromium")
if ((${#missing[@]})); then
  if [[ -n ${KEEL_REQUIRE_NPM:-} && ${KEEL_REQUIRE_NPM} != 0 ]]; then
    echo "web $mode: missing ${missing[*]} (scripts/install-test-npm.sh installs build/npm; apt-get install chromium)" >&2
    exit 1
  fi
  echo "web $mode: skipped, missing ${missing[*]}"
  exit 77
fi
export KEEL_CHROMIUM=$chromium
export KEEL_WEB_ARTIFACTS=${KEEL_WEB_ARTIFACTS:-$root/build/web-artifacts}
# Each test stops itself well before this; the outer limit only guards against a stuck Node.
case $mode in
  sanitizer) exec timeout -k 5 90 "$node" "$here/sanitizer_test.mjs" ;;
  components) exec timeout -k 5 90 "$node" "$here/components_test.mjs" ;;
  e2e)
    binary=$(realpath "${2:?usage: run.sh e2e KEEL_BINARY}")
    exec timeout -k 5 120 "$node" "$here/e2e_test.mjs" "$binary" ;;
  *)
    echo "usage: run.sh sanitizer|components|e2e [KEEL_BINARY]" >&2
    exit 2 ;;
esac
