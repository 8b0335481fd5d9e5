#!/usr/bin/env bash
# Installs the Debian packages keel needs, and only those that are missing.
#   scripts/install-deps.sh build   — what building keel needs
#   scripts/install-deps.sh test    — plus what the test suite needs (emscripten, node)
set -euo pipefail

build_pkgs=(cmake ninja-build g++ make pkg-config git
  nlohmann-json3-dev libcurl4-openssl-dev libyaml-cpp-dev libcli11-dev libre2-dev libsqlite3-dev
  liblua5.4-dev libgumbo-dev libasio-dev
  libseccomp-dev  # the shell sandbox's seccomp filter
  libssl-dev      # libcrypto: signed JWT client assertions for MCP servers behind OAuth
  libpq-dev       # the PostgreSQL store (several keel serve instances on one database)
  bubblewrap      # the shell sandbox (bwrap); its tests fail without it
  libgtest-dev libgmock-dev
  tzdata  # the IANA zone files get_datetime reads at run time (its tests need them too)
  npm)  # npm fetches llama.cpp for the local backend (cmake/llama.cmake)
test_pkgs=(emscripten nodejs clang-14 libclang-rt-14-dev python3 chromium
  postgresql)  # a real server for the PostgreSQL store tests (initdb + pg_ctl in a temporary folder)

want=("${build_pkgs[@]}")
if [[ "${1:-build}" == "test" ]]; then want+=("${test_pkgs[@]}"); fi

missing=()
for p in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# A node from elsewhere (nvm, nodesource) satisfies the test suite too.
if [[ " ${missing[*]} " == *" nodejs "* ]] && command -v node >/dev/null 2>&1; then
  missing=("${missing[@]/nodejs/}")
fi
if [[ " ${missing[*]} " == *" npm "* ]] && command -v npm >/dev/null 2>&1; then
  missing=("${missing[@]/npm/}")
fi
read -r -a missing <<<"${missing[*]}"

# Packages keel takes files from without their declared dependencies (scripts/extract-deb.sh says why).
extract_files() {
  if [[ ! -f /usr/include/valijson/validator.hpp ]]; then scripts/extract-deb.sh libvalijson-dev >/dev/null; fi
  if [[ "${1:-build}" == "test" && ! -d /usr/share/json-schema-test-suite/tests ]]; then
    scripts/extract-deb.sh json-schema-test-suite >/dev/null
  fi
}
cd "$(dirname "$0")/.."
if [[ ${#missing[@]} -eq 0 ]]; then extract_files "${1:-build}"; exit 0; fi

echo "keel: installing missing Debian packages: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "keel: these packages are missing and this user is not root: ${missing[*]}" >&2
    echo "keel: install them with apt-get as root, then run make again." >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
extract_files "${1:-build}"
