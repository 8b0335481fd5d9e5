#!/usr/bin/env bash
# Unpacks one Debian package's files into build/deps/NAME without installing it or anything it
# depends on. keel uses this for packages whose files it needs but whose declared dependencies it
# does not: libvalijson-dev (header-only; its package depends on Qt, Poco, MariaDB and more for
# adapters keel never includes) and json-schema-test-suite (test data; its package depends on
# Flask for a server keel never runs).
#   scripts/extract-deb.sh PACKAGE     — prints the folder the package's files are under
# Skipped when build/deps/PACKAGE holds this version already.
set -euo pipefail
cd "$(dirname "$0")/.."
pkg="$1"
dest="build/deps/$pkg"

version_of() { apt-cache show --no-all-versions "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | head -1; }
version=$(version_of)
if [[ -z "$version" ]]; then
  # A fresh machine has no package lists yet.
  sudo=""
  if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1; then sudo="sudo"; fi
  $sudo apt-get update -q >/dev/null
  version=$(version_of)
fi
if [[ -z "$version" ]]; then
  echo "keel: the Debian package $pkg is not known to apt; check /etc/apt/sources.list (Debian 12 main)" >&2
  exit 1
fi
if [[ -f "$dest/.version" && "$(cat "$dest/.version")" == "$version" ]]; then
  echo "$dest"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# _apt cannot write into a root-owned mktemp folder; the download is then done as the caller.
(cd "$tmp" && timeout 300 apt-get download -q "$pkg" >/dev/null 2>&1) || {
  echo "keel: could not download the Debian package $pkg (apt-get download $pkg)" >&2
  exit 1
}
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$tmp"/*.deb "$dest"
echo "$version" >"$dest/.version"
echo "$dest"
