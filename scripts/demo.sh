#!/usr/bin/env bash
# The main job of `make demo`: a small workspace and a few agent runs in it. With no model
# configured keel uses its deterministic rules model; set KEEL_MODEL (and OPENAI_API_KEY or
# OLLAMA_HOST as needed) or keel.yaml to run the same tasks with a real model.
set -euo pipefail
cd "$(dirname "$0")/.."
keel="$PWD/build/default/keel"
ws="$PWD/build/demo-workspace"
rm -rf "$ws" && mkdir -p "$ws/src"
cat >"$ws/README.md" <<'MD'
# Demo project
A tiny project for keel's demo. TODO: write real docs.
MD
cat >"$ws/src/main.cpp" <<'CPP'
#include <cstdio>
// TODO: parse arguments
int main() {
  std::puts("hello");
  return 0;
}
CPP
printf 'milk\neggs\nbread\n' >"$ws/shopping.txt"

run() {
  echo
  echo "\$ keel run \"$1\""
  "$keel" run --workspace "$ws" "$1"
}

"$keel" --version
"$keel" tools list --workspace "$ws"
if [[ -n "${KEEL_MODEL:-}" || -f "$ws/keel.yaml" || -f "${XDG_CONFIG_HOME:-$HOME/.config}/keel/config.yaml" ]]; then
  run "Look around this project and tell me what it does and what is left to do."
else
  run "list the files"
  run "search for TODO"
  run "count lines in shopping.txt"
  run "read README.md"
  run "what time is it"
fi
