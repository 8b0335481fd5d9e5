#!/usr/bin/env bash
# Runs the official Anthropic npm client (@anthropic-ai/sdk, test/api/anthropic_client_test.mjs)
# against keel's /v1/messages endpoint, served by keel_openai_test_server on a scripted mock model:
#   anthropic_client_test.sh SERVER_BINARY
# Node 22 and the package come from build/npm (scripts/install-test-npm.sh). Exit 77 (skipped)
# when they are missing, unless KEEL_REQUIRE_NPM is set. The server is started and stopped by
# openai_client_test.sh, the runner the npm client tests share.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server=${1:?usage: anthropic_client_test.sh SERVER_BINARY}
node=$root/build/npm/node_modules/.bin/node
module=$root/build/npm/node_modules/@anthropic-ai/sdk/index.mjs
if [[ ! -x $node || ! -f $module ]]; then
  if [[ -n ${KEEL_REQUIRE_NPM:-} ]]; then
    echo "anthropic client test: build/npm has no node or @anthropic-ai/sdk package; run scripts/install-test-npm.sh" >&2
    exit 1
  fi
  echo "anthropic client test: skipped (run scripts/install-test-npm.sh to install the @anthropic-ai/sdk package)"
  exit 77
fi
exec "$here/openai_client_test.sh" "$server" "$here/anthropic_client_test.mjs"
