#!/usr/bin/env bash
# The JavaScript package's tests (make test-wasm runs them after building build/wasm):
#   run.sh PACKAGE_DIR NATIVE_TRACE
# - the core's vectors under Node and in Chromium, each compared decision by decision with the
#   native program's trace (NATIVE_TRACE, from `keel_core_vectors --trace`);
# - the agent under Node (models, tools, approvals, retries, store, one round per invocation);
# - the JavaScript backends on the real provider replies of test/llm/recorded_streams;
# - the edge host driven by the official openai client, under Node and under Deno;
# - the TypeScript declarations, type-checked by Deno against typical use;
# - the browser agent page end to end in Chromium (tools, approvals, IndexedDB, CORS, quota), and as
#   it ships (build/wasm/agent-site, the package found where the page looks by default);
# - llama.cpp compiled to WebAssembly running the random-weight GGUF through a tool round.
# build/npm's Node 22, playwright-core and deno and Debian's chromium are required (scripts/install-test-npm.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
pkg=${1:?usage: run.sh PACKAGE_DIR NATIVE_TRACE}
trace=${2:?usage: run.sh PACKAGE_DIR NATIVE_TRACE}
node=$root/build/npm/node_modules/.bin/node
for need in "$node" "$root/build/npm/node_modules/.bin/deno" "${KEEL_CHROMIUM:-/usr/bin/chromium}"; do
  if [[ ! -x $need ]]; then
    echo "js tests: missing $need (scripts/install-test-npm.sh installs build/npm; apt-get install chromium)" >&2
    exit 1
  fi
done
failed=()
run() {
  local name=$1
  shift
  # Each test stops itself well before this; the limit only guards against a stuck process.
  if ! timeout -k 5 180 "$node" "$@"; then failed+=("$name"); fi
}
run vectors_node "$here/vectors_node_test.mjs" "$pkg" "$trace"
run vectors_chromium "$here/vectors_browser_test.mjs" "$pkg" "$trace"
run agent_node "$here/agent_node_test.mjs" "$pkg"
run recorded_streams "$here/recorded_streams_test.mjs" "$pkg"
run edge "$here/edge_test.mjs" "$pkg"
run edge_deno "$here/edge_deno_test.mjs" "$pkg"
# The declarations (keel.d.ts, edge.d.ts) against typical use, with Deno's TypeScript.
if ! DENO_NO_UPDATE_CHECK=1 timeout -k 5 180 "$root/build/npm/node_modules/.bin/deno" check --quiet "$here/types_check.ts"; then
  failed+=(types)
fi
run browser_agent "$here/browser_agent_test.mjs" "$pkg"
# The page as it ships: build/wasm/agent-site beside the package, served with no parameters.
run agent_site "$here/agent_site_test.mjs" "$(dirname "$pkg")/agent-site"
# llama.cpp in the page (@wllama/wllama) on the random-weight GGUF the native build's fixture writer makes.
if [[ -x $root/build/default/keel_gguf_fixture ]]; then
  run wllama "$here/wllama_test.mjs" "$pkg"
else
  echo "js tests: build/default/keel_gguf_fixture is missing (a build with llama.cpp makes it)" >&2
  failed+=(wllama)
fi
if ((${#failed[@]})); then
  echo "js tests failed: ${failed[*]}" >&2
  exit 1
fi
echo "js tests: all passed"
