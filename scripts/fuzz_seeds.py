#!/usr/bin/env python3
"""Writes every input of the tool-call protocol corpus into a folder, one file each, as fuzz seeds."""
import json, pathlib, sys

corpus = pathlib.Path(sys.argv[1])
out = pathlib.Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
n = 0
for f in sorted(corpus.glob("*.json")):
    for case in json.loads(f.read_text(encoding="utf-8"))["cases"]:
        (out / f"{f.stem}-{n}").write_text(case["input"], encoding="utf-8")
        n += 1
print(f"{n} seeds in {out}")
