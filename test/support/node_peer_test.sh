#!/usr/bin/env bash
# Runs a Node test whose other side is an official npm library, with Node 22 and the library from
# build/npm (scripts/install-test-npm.sh):
#   node_peer_test.sh MODULE SCRIPT.mjs ARGS...
# MODULE is the library's entry file under build/npm/node_modules; the script gets ARGS and then
# MODULE's absolute path. Exit 77 (skipped) when node or the library is missing, unless
# KEEL_REQUIRE_NPM is set.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
package_file=${1:?usage: node_peer_test.sh MODULE SCRIPT.mjs ARGS...}
module=$root/build/npm/node_modules/$package_file
script=${2:?usage: node_peer_test.sh MODULE SCRIPT.mjs ARGS...}
shift 2
node=$root/build/npm/node_modules/.bin/node
name=$(basename "$script" .mjs)
if [[ ! -x $node || ! -f $module ]]; then
  if [[ -n ${KEEL_REQUIRE_NPM:-} ]]; then
    echo "$name: build/npm has no node or $package_file; run scripts/install-test-npm.sh" >&2
    exit 1
  fi
  echo "$name: skipped (run scripts/install-test-npm.sh to install it)"
  exit 77
fi
exec timeout 110 "$node" "$script" "$@" "$module"
