#!/usr/bin/env bash
# Runs test/a2a/a2a_sdk_test.mjs: `keel run` calling a remote agent served by the official A2A SDK
# (@a2a-js/sdk's own server classes), with keel_mock_model_server as the model.
#   a2a_sdk_test.sh KEEL MOCK_MODEL_SERVER
# Node 22 and @a2a-js/sdk come from build/npm (scripts/install-test-npm.sh). Exit 77 (skipped) when
# they are missing, unless KEEL_REQUIRE_NPM is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
keel=$(realpath "${1:?usage: a2a_sdk_test.sh KEEL MOCK_MODEL_SERVER}")
mock=$(realpath "${2:?usage: a2a_sdk_test.sh KEEL MOCK_MODEL_SERVER}")
node=$root/build/npm/node_modules/.bin/node
sdk=$root/build/npm/node_modules/@a2a-js/sdk
if [[ ! -x $node || ! -f $sdk/dist/server/index.js ]]; then
  if [[ -n ${KEEL_REQUIRE_NPM:-} ]]; then
    echo "a2a test: build/npm has no node or @a2a-js/sdk; run scripts/install-test-npm.sh" >&2
    exit 1
  fi
  echo "a2a test: skipped (run scripts/install-test-npm.sh to install @a2a-js/sdk)"
  exit 77
fi
exec timeout 110 "$node" "$here/a2a_sdk_test.mjs" "$keel" "$mock" "$sdk"
