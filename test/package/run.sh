#!/usr/bin/env bash
# The installed package, used the way a C++ program outside the tree uses it:
#   1. `cmake --install` the build into a temporary prefix;
#   2. build examples/embed against it twice — with find_package(keel) and with pkg-config — and
#      check that keel's headers came from the prefix, not the source tree;
#   3. run both builds and the installed `keel` against a model server in another process
#      (keel_mock_model_server), a full agent loop with a tool call;
#   4. build the .deb with CPack and check what it holds.
# usage: test/package/run.sh BUILD_DIR MOCK_MODEL_SERVER
set -euo pipefail
build_dir=$(cd "$1" && pwd)
mock=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
mock_pids=()
cleanup() { for p in "${mock_pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
[[ -n "${KEEL_PACKAGE_TEST_KEEP:-}" ]] && trap - EXIT
fail() { echo "package test: $*" >&2; exit 1; }

prefix="$tmp/prefix"
cmake --install "$build_dir" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install failed"; }
for f in bin/keel include/keel/agent.hpp lib/cmake/keel/keelConfig.cmake lib/pkgconfig/keel.pc share/keel/web/index.html; do
  [[ -e "$prefix/$f" ]] || fail "the install has no $f"
done

# A copy of the example outside the source tree, so nothing can reach back into it.
app="$tmp/app"
mkdir -p "$app"
cp "$src/examples/embed/main.cpp" "$src/examples/embed/CMakeLists.txt" "$app/"

cmake -S "$app" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$tmp/cmake.log" 2>&1 ||
  { cat "$tmp/cmake.log"; fail "find_package(keel) against the installed package failed"; }
cmake --build "$tmp/cmake-build" -j 2 >"$tmp/cmake-build.log" 2>&1 || { tail -40 "$tmp/cmake-build.log"; fail "the find_package build failed"; }

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pkg-config --exists keel || fail "pkg-config cannot find keel.pc in the prefix"
# shellcheck disable=SC2046
g++ -std=c++20 -O1 -H "$app/main.cpp" $(pkg-config --cflags --libs keel) -o "$tmp/embed-pkgconfig" 2>"$tmp/headers.txt" ||
  { grep -v '^\.' "$tmp/headers.txt" | tail -40; fail "the pkg-config build failed"; }
grep -q "^\. $prefix/\(.*/\)\?include/keel/agent.hpp" "$tmp/headers.txt" || fail "keel/agent.hpp did not come from the installed prefix"
if grep -q "$src/include" "$tmp/headers.txt"; then fail "the pkg-config build read headers from the source tree"; fi

# Models in another process: one round calling a tool (the example's word_count; keel's fs_stat on
# f1.txt), then the answer "done".
mock_pids=()
start_mock() {  # NAME ARGS... — sets the variable NAME to the mock's base URL
  local name=$1; shift
  # The mock serves until its stdin closes: a fifo this script holds open, so the mock goes when it does.
  mkfifo "$tmp/$name.stdin"
  "$mock" --port 0 "$@" >"$tmp/$name.out" 2>&1 <"$tmp/$name.stdin" &
  mock_pids+=($!)
  exec {hold}>"$tmp/$name.stdin"
  for _ in $(seq 100); do grep -q listening "$tmp/$name.out" 2>/dev/null && break; sleep 0.05; done
  local url
  url=$(sed -n 's/^listening //p' "$tmp/$name.out")
  [[ -n "$url" ]] || fail "the mock model server did not start"
  printf -v "$name" '%s' "$url"
}
start_mock example_url --tool word_count --args '{"text":"the quick brown fox"}'
start_mock keel_url

for exe in "$tmp/cmake-build/keel_embed_example" "$tmp/embed-pkgconfig"; do
  out=$(cd "$tmp" && "$exe" --base-url "$example_url" --model mock-steps-1 "count the words" 2>"$tmp/err.txt") ||
    { cat "$tmp/err.txt"; fail "$exe exited non-zero"; }
  [[ "$out" == "done" ]] || fail "$exe answered '$out', expected 'done'"
  grep -q "word_count -> ok: 4 words" "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "$exe did not run the word_count tool"; }
  echo "package test: $(basename "$exe") ran a tool round against the installed libraries"
done

# The installed command: a whole run (store on, in a home of its own) against the other mock.
"$prefix/bin/keel" --version | grep -q "keel" || fail "the installed keel does not run"
mkdir -p "$tmp/work" && echo hello >"$tmp/work/f1.txt"
out=$(cd "$tmp/work" && env -i PATH="$PATH" HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
      XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" KEEL_HOME="$tmp/keel" \
      "$prefix/bin/keel" run --base-url "$keel_url" --model mock-steps-1 -y "look at f1.txt" 2>"$tmp/err.txt") ||
  { cat "$tmp/err.txt"; fail "the installed keel run failed"; }
[[ "$out" == *done* ]] || fail "the installed keel answered '$out'"
[[ -f "$tmp/keel/keel.db" ]] || fail "the installed keel kept no store in its KEEL_HOME"
port=$(sed -n 's|^http://127\.0\.0\.1:\([0-9]*\)/v1$|\1|p' <<<"$keel_url")
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
stats=$(timeout 5 cat <&3 || true)
exec 3<&-
[[ "$stats" == *'"tool_call_replies":1,"final_replies":1,'* ]] || fail "the installed keel did not run a tool round (mock: $stats)"
echo "package test: the installed keel ran a tool round with its store"

# The .deb.
(cd "$build_dir" && cpack -G DEB -B "$tmp/deb" >"$tmp/cpack.log" 2>&1) || { tail -20 "$tmp/cpack.log"; fail "cpack -G DEB failed"; }
deb=$(ls "$tmp"/deb/*.deb 2>/dev/null | head -1)
[[ -n "$deb" ]] || fail "cpack made no .deb"
dpkg-deb --field "$deb" Package | grep -qx keel || fail "the .deb is not named keel"
contents=$(dpkg-deb --contents "$deb")
for f in ./usr/bin/keel ./usr/include/keel/agent.hpp ./usr/lib/cmake/keel/keelConfig.cmake ./usr/lib/pkgconfig/keel.pc \
         ./usr/share/keel/web/index.html ./usr/lib/libkeel_core.a; do
  grep -q " $f\$" <<<"$contents" || fail "the .deb has no $f"
done
echo "package test: $(basename "$deb") ($(du -h "$deb" | cut -f1)) holds the command, the web UI and the development files"
