#!/usr/bin/env bash
# Proves that scripts/check-layers.py can fail. On a copy of src/, include/ and the layer table it
#   1. requires the copy to pass the check as it is;
#   2. plants an include of the highest layer's first header into the lowest layer's first .cpp
#      and requires the check to fail, naming that file and saying the include sits "above";
#   3. plants an include of a public runtime header into a store file and requires the same.
# Usage: test/layers/planted_include_test.sh [ROOT]   (ROOT defaults to two folders above this script)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "${1:-$here/../..}" && pwd)
check="$root/scripts/check-layers.py"

# The public-include plant: a header of this layer, included from a file of that lower one.
public_high=runtime
public_low=store

fail() {
  echo "planted-include: FAILED: $*" >&2
  exit 1
}

[ -f "$check" ] || fail "no $check"
[ -d "$root/src" ] || fail "no $root/src"
[ -d "$root/include" ] || fail "no $root/include"
[ -f "$root/scripts/layers.txt" ] || fail "no $root/scripts/layers.txt"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$root/src" "$work/src"
cp -R "$root/include" "$work/include"
mkdir -p "$work/scripts"
cp "$root/scripts/layers.txt" "$work/scripts/layers.txt"

out=""
rc=0
run_check() {
  rc=0
  out=$(python3 "$check" --root "$work" --table "$work/scripts/layers.txt" 2>&1) || rc=$?
}

# The layer table, lowest first: names[i], folders[i] (under src/) and headers[i] (globs).
names=()
folders=()
headers=()
while IFS='|' read -r name layer_folders layer_headers; do
  names+=("$name")
  folders+=("$layer_folders")
  headers+=("$layer_headers")
done < <(awk '
  {
    line = $0
    sub(/#.*/, "", line)
    if (line ~ /^[ \t]*$/) next
    bar = index(line, "|")
    left = bar ? substr(line, 1, bar - 1) : line
    right = bar ? substr(line, bar + 1) : ""
    n = split(left, tokens, /[ \t]+/)
    name = ""; dirs = ""
    for (i = 1; i <= n; i++) {
      if (tokens[i] == "") continue
      if (name == "") { name = tokens[i]; continue }
      sub(/\/\*\*$/, "", tokens[i]); sub(/\/+$/, "", tokens[i])
      dirs = dirs (dirs == "" ? "" : " ") tokens[i]
    }
    gsub(/^[ \t]+|[ \t]+$/, "", right); gsub(/[ \t]+/, " ", right)
    printf "%s|%s|%s\n", name, dirs, right
  }' "$work/scripts/layers.txt")
[ "${#names[@]}" -ge 2 ] || fail "the layer table lists fewer than two layers"

# first_file EXT FOLDER... : the first file *.EXT (by name) under the given folders of src/.
first_file() {
  local ext=$1 folder
  shift
  for folder in "$@"; do
    if [ -d "$work/src/$folder" ]; then
      find "$work/src/$folder" -type f -name "*.$ext"
    fi
  done | LC_ALL=C sort | sed -n 1p
}

layer_index() {
  local i
  for i in "${!names[@]}"; do
    if [ "${names[$i]}" = "$1" ]; then
      echo "$i"
      return
    fi
  done
  fail "layer '$1' is not in the layer table"
}

# expect_failure FILE INCLUDE WHAT : the check must exit 1 and name FILE's planted line.
expect_failure() {
  local file=$1 inc=$2 what=$3
  run_check
  if [ "$rc" -ne 1 ]; then
    printf '%s\n' "$out" >&2
    fail "$what: the check exited $rc, expected 1"
  fi
  if ! printf '%s\n' "$out" | awk -v f="$file:" -v inc="\"$inc\"" \
      'index($0, f) == 1 && index($0, inc) && /above/ { found = 1 } END { exit !found }'; then
    printf '%s\n' "$out" >&2
    fail "$what: the output does not name $file, \"$inc\" and \"above\" on one line"
  fi
}

# 1. The untouched copy passes.
run_check
if [ "$rc" -ne 0 ]; then
  printf '%s\n' "$out" >&2
  fail "the tree under $root does not pass the layer check as it is (exit $rc); fix that first"
fi

# 2. The lowest layer with a .cpp includes the first header of the highest layer with a header.
low_cpp=""
low=-1
for i in "${!names[@]}"; do
  read -r -a dirs <<<"${folders[$i]}"
  low_cpp=$(first_file cpp "${dirs[@]}")
  if [ -n "$low_cpp" ]; then
    low=$i
    break
  fi
done
[ "$low" -ge 0 ] || fail "no layer has a .cpp file under src/"
high_hpp=""
high=-1
for ((i = ${#names[@]} - 1; i > low; i--)); do
  read -r -a dirs <<<"${folders[$i]}"
  high_hpp=$(first_file hpp "${dirs[@]}")
  if [ -n "$high_hpp" ]; then
    high=$i
    break
  fi
done
[ "$high" -gt "$low" ] || fail "no layer above '${names[$low]}' has a .hpp file under src/"

inc=${high_hpp#"$work/src/"}
rel=${low_cpp#"$work/"}
cp "$low_cpp" "$work/saved"
printf '\n#include "%s"\n' "$inc" >>"$low_cpp"
expect_failure "$rel" "$inc" "${names[$low]} file $rel including \"$inc\" of ${names[$high]}"
cp "$work/saved" "$low_cpp"

# 3. A file of the public_low layer includes a public header of the public_high layer.
hi=$(layer_index "$public_high")
lo=$(layer_index "$public_low")
[ "$lo" -lt "$hi" ] || fail "layer '$public_low' does not sit below '$public_high' in the table"
header=""
read -r -a globs <<<"${headers[$hi]}"
for glob in "${globs[@]}"; do
  case $glob in
    */\*\*)
      dir=${glob%/\*\*}
      if [ -d "$work/include/keel/$dir" ]; then
        header=$(find "$work/include/keel/$dir" -type f -name '*.hpp' | LC_ALL=C sort | sed -n 1p)
        header=${header#"$work/include/keel/"}
      fi
      ;;
    *[*?]*) ;;
    *)
      if [ -f "$work/include/keel/$glob" ]; then
        header=$glob
      fi
      ;;
  esac
  if [ -n "$header" ]; then
    break
  fi
done
[ -n "$header" ] || fail "layer '$public_high' lists no existing public header under include/keel/"
read -r -a dirs <<<"${folders[$lo]}"
store_file=$(first_file cpp "${dirs[@]}")
[ -n "$store_file" ] || store_file=$(first_file hpp "${dirs[@]}")
[ -n "$store_file" ] || fail "layer '$public_low' has no .cpp or .hpp file under src/"

inc="keel/$header"
rel=${store_file#"$work/"}
printf '\n#include "%s"\n' "$inc" >>"$store_file"
expect_failure "$rel" "$inc" "$public_low file $rel including public \"$inc\" of $public_high"

echo "planted-include: ok"
