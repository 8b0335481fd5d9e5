#!/usr/bin/env bash
# Runs test/acp/acp_sdk_test.mjs: `keel acp` driven by the official ACP library as the editor,
# against keel_mock_model_server.
#   acp_sdk_test.sh KEEL MOCK_MODEL_SERVER
# Node 22 and @agentclientprotocol/sdk come from build/npm (scripts/install-test-npm.sh). Exit 77
# (skipped) when they are missing, unless KEEL_REQUIRE_NPM is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
keel=$(realpath "${1:?usage: acp_sdk_test.sh KEEL MOCK_MODEL_SERVER}")
mock=$(realpath "${2:?usage: acp_sdk_test.sh KEEL MOCK_MODEL_SERVER}")
node=$root/build/npm/node_modules/.bin/node
module=$root/build/npm/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js
if [[ ! -x $node || ! -f $module ]]; then
  if [[ -n ${KEEL_REQUIRE_NPM:-} ]]; then
    echo "acp test: build/npm has no node or @agentclientprotocol/sdk; run scripts/install-test-npm.sh" >&2
    exit 1
  fi
  echo "acp test: skipped (run scripts/install-test-npm.sh to install @agentclientprotocol/sdk)"
  exit 77
fi
exec timeout 110 "$node" "$here/acp_sdk_test.mjs" "$keel" "$mock" "$module"
