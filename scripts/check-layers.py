#!/usr/bin/env python3
"""Checks that no layer of keel includes a layer above it.

Usage: scripts/check-layers.py [--root DIR] [--table FILE]

The layers, lowest first, come from the table (default DIR/scripts/layers.txt;
its header comment describes the format). Every C/C++ source and header under
DIR/src and DIR/include/keel belongs to a layer: a file under src/ to the layer
that lists its folder, a public header under include/keel/ to the layer whose
header globs match it. Each quoted include ("...", not <...>) is resolved the
way the build resolves it: first relative to the including file's folder, then
"keel/X" as the public header include/keel/X, then "FOLDER/..." under src/.
A file may include its own layer and any layer listed before it.

Exit status:
  0  clean; prints one summary line
  1  an include reaches a higher layer, a file under src/ sits in a folder of
     no layer, a public header matches no glob (or globs of two layers), or a
     quoted include resolves to nothing known
  2  bad table or bad arguments
"""

import argparse
import os
import re
import sys
from collections import Counter

SOURCE_EXTENSIONS = (".hpp", ".cpp", ".h", ".cc", ".hh", ".cxx", ".ipp", ".inl")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
SEGMENT_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
GLOB_SEGMENT_RE = re.compile(r"^[A-Za-z0-9_.+*?-]+$")


class TableError(Exception):
    pass


class Layer:
    def __init__(self, name, index, line):
        self.name = name
        self.index = index
        self.line = line
        self.folders = []
        self.globs = []  # (text, compiled regex)


def glob_to_regex(glob):
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def normalize_folder(token):
    folder = token
    if folder.endswith("/**"):
        folder = folder[:-3]
    folder = folder.rstrip("/")
    segments = folder.split("/")
    if not folder or any(s in ("", ".", "..") or not SEGMENT_RE.match(s) for s in segments):
        return None
    return folder


def valid_glob(token):
    segments = token.split("/")
    return all(s not in ("", ".", "..") and GLOB_SEGMENT_RE.match(s) for s in segments)


def parse_table(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TableError(f"{path}: cannot read the layer table: {e.strerror}")

    errors = []
    layers = []
    by_name = {}
    folder_owner = {}  # folder -> (layer name, line)
    glob_owner = {}  # glob text -> (layer name, line)

    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        where = f"{path}:{number}"
        left, bar, right = text.partition("|")
        if "|" in right:
            errors.append(f"{where}: more than one '|' on a line")
            continue
        left_tokens = left.split()
        header_tokens = right.split()
        if not left_tokens:
            errors.append(f"{where}: a layer line starts with its name, found '|'")
            continue
        name, folder_tokens = left_tokens[0], left_tokens[1:]
        if not NAME_RE.match(name):
            errors.append(f"{where}: '{name}' is not a layer name (letters, digits, '_', '-')")
            continue
        if name in by_name:
            errors.append(f"{where}: layer '{name}' is already defined on line {by_name[name].line}")
            continue
        if not folder_tokens and not header_tokens:
            errors.append(f"{where}: layer '{name}' lists no folder and no header")
            continue
        if bar and not header_tokens:
            errors.append(f"{where}: '|' with no header globs after it")
            continue

        layer = Layer(name, len(layers), number)
        for token in folder_tokens:
            folder = normalize_folder(token)
            if folder is None:
                errors.append(f"{where}: '{token}' is not a folder under src/ "
                              "(a relative path without globs, '.' or '..')")
                continue
            if folder in folder_owner:
                owner, owner_line = folder_owner[folder]
                errors.append(f"{where}: folder '{folder}' is already listed "
                              f"for layer '{owner}' on line {owner_line}")
                continue
            folder_owner[folder] = (name, number)
            layer.folders.append(folder)
        for token in header_tokens:
            if not valid_glob(token):
                errors.append(f"{where}: '{token}' is not a header glob under include/keel/")
                continue
            if token in glob_owner:
                owner, owner_line = glob_owner[token]
                errors.append(f"{where}: header glob '{token}' is already listed "
                              f"for layer '{owner}' on line {owner_line}")
                continue
            glob_owner[token] = (name, number)
            layer.globs.append((token, glob_to_regex(token)))
        by_name[name] = layer
        layers.append(layer)

    if not layers and not errors:
        errors.append(f"{path}: the layer table lists no layer")
    if errors:
        raise TableError("\n".join(errors))
    return layers


class Checker:
    def __init__(self, root, layers):
        self.root = root
        self.layers = layers
        self.order = " < ".join(layer.name for layer in layers)
        # Longest folder first, so that a nested folder given to its own layer wins.
        self.folders = sorted(((folder, layer) for layer in layers for folder in layer.folders),
                              key=lambda item: -len(item[0]))
        self.problems = []
        self.upward = Counter()
        self.kinds = Counter()
        self.files = 0
        self.includes = 0

    def report(self, kind, message):
        self.kinds[kind] += 1
        self.problems.append(message)

    def exists(self, rel):
        return os.path.isfile(os.path.join(self.root, rel))

    def classify(self, rel):
        """Returns (layer, problem) for a root-relative posix path.

        layer is None when the path belongs to no layer; problem then says why
        ("folder", "header", "ambiguous") or is None for a path outside
        src/ and include/keel/, which the check leaves alone.
        """
        if rel.startswith("src/"):
            inner = rel[len("src/"):]
            for folder, layer in self.folders:
                if inner.startswith(folder + "/"):
                    return layer, None
            return None, "folder"
        if rel.startswith("include/keel/"):
            header = rel[len("include/keel/"):]
            owners = [layer for layer in self.layers
                      if any(regex.match(header) for _, regex in layer.globs)]
            if len(owners) == 1:
                return owners[0], None
            return (None, "ambiguous") if owners else (None, "header")
        return None, None

    def resolve(self, including_dir, inc):
        """The root-relative path a quoted include names, searched like the build does."""
        relative = os.path.normpath(os.path.join(including_dir, inc)).replace(os.sep, "/")
        if not relative.startswith("../") and self.exists(relative):
            return relative, True
        if inc.startswith("keel/"):
            target = os.path.normpath(os.path.join("include", inc)).replace(os.sep, "/")
        else:
            target = os.path.normpath(os.path.join("src", inc)).replace(os.sep, "/")
        return target, self.exists(target)

    def walk(self, top):
        base = os.path.join(self.root, top)
        found = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for filename in sorted(filenames):
                if filename.endswith(SOURCE_EXTENSIONS):
                    full = os.path.join(dirpath, filename)
                    found.append(os.path.relpath(full, self.root).replace(os.sep, "/"))
        return found

    def check_file(self, rel):
        self.files += 1
        layer, problem = self.classify(rel)
        if problem == "folder":
            inner = rel[len("src/"):]
            top = inner.split("/", 1)[0] if "/" in inner else None
            if top is None:
                self.report("folder", f"{rel}: sits directly under src/, in no layer "
                            f"(add its folder to the table)")
            else:
                self.report("folder", f"{rel}: folder src/{top} is in no layer "
                            f"(list it in the layer table)")
        elif problem == "header":
            self.report("header", f"{rel}: public header matched by no header glob "
                        f"(add it to a layer in the table)")
        elif problem == "ambiguous":
            header = rel[len("include/keel/"):]
            owners = [l.name for l in self.layers
                      if any(regex.match(header) for _, regex in l.globs)]
            self.report("header", f"{rel}: public header matched by globs of several layers: "
                        + ", ".join(owners))

        try:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            self.report("read", f"{rel}: cannot read: {e.strerror}")
            return

        including_dir = os.path.dirname(rel)
        for number, line in enumerate(lines, 1):
            match = INCLUDE_RE.match(line)
            if not match:
                continue
            inc = match.group(1)
            self.includes += 1
            target, target_exists = self.resolve(including_dir, inc)
            target_layer, _ = self.classify(target)
            if target_layer is None:
                # An existing file in no layer is reported where it sits, and an
                # existing file outside src/ and include/keel/ is left alone; an
                # include that names no file and no layer is an error.
                if not target_exists:
                    beside = os.path.normpath(os.path.join(including_dir, inc))
                    self.report("unresolved",
                                f"{rel}:{number}: \"{inc}\" resolves to nothing known: no file "
                                f"{beside}, no public header and no layer folder under src/ "
                                f"of that name")
                continue
            if layer is None or target_layer.index <= layer.index:
                continue
            self.upward[(layer.name, target_layer.name)] += 1
            self.report("upward",
                        f"{rel}:{number}: {layer.name} includes \"{inc}\" of layer "
                        f"{target_layer.name}, which sits above it (order: {self.order})")

    def run(self):
        for top in ("src", "include/keel"):
            for rel in self.walk(top):
                self.check_file(rel)


def main(argv):
    script_dir = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description="Fails when a lower layer of keel includes a higher one.")
    parser.add_argument("--root", default=os.path.dirname(script_dir),
                        help="repository root (default: the folder above this script's)")
    parser.add_argument("--table", default=None,
                        help="layer table (default: ROOT/scripts/layers.txt)")
    args = parser.parse_args(argv)

    root = os.path.abspath(args.root)
    table = args.table or os.path.join(root, "scripts", "layers.txt")
    if not os.path.isdir(os.path.join(root, "src")):
        print(f"check-layers: {root} has no src/ folder", file=sys.stderr)
        return 2
    try:
        layers = parse_table(table)
    except TableError as e:
        print(f"check-layers: bad layer table:\n{e}", file=sys.stderr)
        return 2

    checker = Checker(root, layers)
    checker.run()
    if not checker.problems:
        print(f"layers: {checker.files} files, {checker.includes} includes checked, "
              f"order {checker.order}")
        return 0

    for message in checker.problems:
        print(message)
    kinds = checker.kinds
    print(f"layers: FAILED: {kinds['upward']} upward includes, {kinds['folder']} files in no "
          f"layer, {kinds['header']} public headers in no layer, {kinds['unresolved']} "
          f"unresolved includes, {kinds['read']} unreadable files ({checker.files} files, "
          f"{checker.includes} includes checked)")
    for (lower, higher), count in sorted(checker.upward.items(),
                                         key=lambda item: (-item[1], item[0])):
        print(f"  {lower} -> {higher}: {count}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
