#!/usr/bin/env bash
# Runs the AG-UI client (@ag-ui/client's HttpAgent, test/api/agui_client_test.mjs) against keel's
# /agui endpoint, served by keel_openai_test_server on a scripted mock model:
#   agui_client_test.sh SERVER_BINARY
# Node 22 and the package come from build/npm (scripts/install-test-npm.sh). Exit 77 (skipped)
# when they are missing, unless KEEL_REQUIRE_NPM is set. The server is started and stopped by
# openai_client_test.sh, the runner the npm client tests share.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server=${1:?usage: agui_client_test.sh SERVER_BINARY}
node=$root/build/npm/node_modules/.bin/node
module=$root/build/npm/node_modules/@ag-ui/client/dist/index.mjs
if [[ ! -x $node || ! -f $module ]]; then
  if [[ -n ${KEEL_REQUIRE_NPM:-} ]]; then
    echo "agui client test: build/npm has no node or @ag-ui/client package; run scripts/install-test-npm.sh" >&2
    exit 1
  fi
  echo "agui client test: skipped (run scripts/install-test-npm.sh to install the @ag-ui/client package)"
  exit 77
fi
exec "$here/openai_client_test.sh" "$server" "$here/agui_client_test.mjs"
