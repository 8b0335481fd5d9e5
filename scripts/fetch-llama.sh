#!/usr/bin/env bash
# Fetches llama.cpp for keel's local backend from npm into DEST (default build/llama):
#   DEST/lib      the prebuilt shared libraries of @node-llama-cpp/linux-x64[-cuda] (libllama, libggml,
#                 libggml-base and the CPU/GPU backend variants ggml loads at run time)
#   DEST/include  llama.h and ggml's headers, from the llama.cpp source that node-llama-cpp ships as
#                 llama/gitRelease.bundle (the exact release the libraries were built from)
#   DEST/models   llama.cpp's vocab-only GGUF files (tokenizers of known families, and their test ids)
#   DEST/common   the sources of llama.cpp's Jinja engine (common/jinja, with common/json and
#                 common/unicode it uses), which keel builds to execute a model's own chat template
#   DEST/templates  the release's chat templates of published models (models/templates/*.jinja)
# Usage: scripts/fetch-llama.sh VERSION [cpu|cuda] [DEST]. Skipped when DEST already holds VERSION.
# `npm pack` downloads the tarballs only (checked against the registry's integrity); nothing is
# installed and no package script runs.
set -euo pipefail
version=${1:?usage: fetch-llama.sh VERSION [cpu|cuda] [DEST]}
flavor=${2:-cpu}
dest=${3:-build/llama}
stamp="$version-$flavor-jinja"
if [[ -f "$dest/.fetched" && "$(cat "$dest/.fetched")" == "$stamp" && -f "$dest/include/llama.h" && -f "$dest/common/jinja/runtime.h" ]]; then
  exit 0
fi
for tool in npm git tar; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "keel: $tool is missing; install it (apt-get install $tool), or configure with -DKEEL_LLAMA=OFF" >&2
    exit 1
  fi
done
case "$flavor" in
  cpu) bins_pkg=@node-llama-cpp/linux-x64 ;;
  cuda) bins_pkg=@node-llama-cpp/linux-x64-cuda ;;
  *) echo "keel: unknown llama.cpp flavor '$flavor' (cpu or cuda)" >&2; exit 2 ;;
esac
echo "keel: fetching llama.cpp ($bins_pkg and node-llama-cpp $version) into $dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && timeout 600 npm pack --silent --no-audit --no-fund "$bins_pkg@$version" "node-llama-cpp@$version" >/dev/null)
mkdir -p "$work/bins" "$work/src"
tar -xzf "$work"/node-llama-cpp-linux-x64-*"$version".tgz -C "$work/bins"
tar -xzf "$work/node-llama-cpp-$version.tgz" -C "$work/src" package/llama/gitRelease.bundle
git clone -q "$work/src/package/llama/gitRelease.bundle" "$work/llama.cpp" 2>/dev/null
rm -rf "$dest/lib" "$dest/include" "$dest/models" "$dest/common" "$dest/templates"
mkdir -p "$dest/lib" "$dest/include" "$dest/models" "$dest/common/jinja" "$dest/templates"
libdir=$(dirname "$(find "$work/bins" -name 'libllama*.so' | head -1)")
cp -a "$libdir"/*.so "$dest/lib/"
cp "$work/llama.cpp/include/"*.h "$work/llama.cpp/ggml/include/"*.h "$dest/include/"
cp "$work/llama.cpp/models/"ggml-vocab-*.gguf* "$dest/models/"
cp "$work/llama.cpp/common/jinja/"*.h "$work/llama.cpp/common/jinja/"*.cpp "$dest/common/jinja/"
cp "$work/llama.cpp/common/"{json,unicode}.{h,cpp} "$dest/common/"
cp "$work/llama.cpp/models/templates/"*.jinja "$dest/templates/"
(cd "$work/llama.cpp" && git log -1 --format='%H %s') >"$dest/SOURCE"
echo "$stamp" >"$dest/.fetched"
