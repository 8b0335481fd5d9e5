#!/usr/bin/env python3
"""Writes every input of the tool-call parser corpora (each folder given) into a folder, one file each, as fuzz seeds.

    fuzz_seeds.py CORPUS_DIR [CORPUS_DIR...] OUT_DIR
"""
import json, pathlib, sys

corpora = [pathlib.Path(p) for p in sys.argv[1:-1]]
out = pathlib.Path(sys.argv[-1])
out.mkdir(parents=True, exist_ok=True)
n = 0
for corpus in corpora:
    for f in sorted(corpus.rglob("*.json")):
        for case in json.loads(f.read_text(encoding="utf-8"))["cases"]:
            (out / f"{f.stem}-{n}").write_text(case["input"], encoding="utf-8")
            n += 1
print(f"{n} seeds in {out}")
