#!/usr/bin/env bash
# Installs the npm packages keel's tests run against (test/npm/package.json, pinned by its lock
# file) into build/npm: the reference MCP servers, the MCP conformance suite, and the Node 22 they
# need. Skipped when build/npm already holds exactly this lock file's packages.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=build/npm
lock=test/npm/package-lock.json
if [[ -f "$dest/.installed-lock" ]] && cmp -s "$lock" "$dest/.installed-lock" && [[ -x "$dest/node_modules/.bin/node" ]]; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "keel: npm is missing; install Debian's npm (apt-get install npm) and run make test again" >&2
  exit 1
fi
echo "keel: installing the npm packages the tests use into $dest"
mkdir -p "$dest"
cp test/npm/package.json "$lock" "$dest/"
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
cp "$lock" "$dest/.installed-lock"
