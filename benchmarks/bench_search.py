"""Benchmark: how many false statements the search catches, and at what cost, against an earlier
pyfed on the same files.

Each Lean file (default: ``tests/data/search/*.lean``, where every theorem's docstring starts with
"False" or "True") is checked by ``pyfed check FILE --no-profile --json … --timing`` with the default
settings (``--quick`` to compare the quick ones) in a fresh process, by this checkout and, with
``--baseline DIR``, by the checkout in DIR (its own ``.venv``; e.g. a worktree of the commit before
the search by optimisation). A statement is *caught* when one of its rows is violated; its seconds
are the sum of its engines' wall-clock figures (the report's ``timing`` key). Prints one row per
statement and, per checkout, caught / false, true ones violated (must be 0) and the seconds per
statement (median and max); ``--json OUT`` also writes them. A file the baseline cannot read counts
its statements as not caught, with the reason.

Run: ``python benchmarks/bench_search.py [--baseline DIR] [--quick] [--json OUT] [FILE.lean ...]``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def truth(path: str) -> dict:
    """{theorem: "false" | "true"} from the first word of each theorem's docstring."""
    text = open(path, encoding="utf-8").read()
    out = {}
    for doc, name in re.findall(r"/--(.*?)-/\s*theorem\s+(\S+)", text, flags=re.S):
        word = doc.strip().split()[0].rstrip(":").lower()
        if word in ("false", "true"):
            out[name] = word
    return out


def run(python: str, cwd: str, path: str, quick: bool) -> tuple:
    """({theorem: (status, seconds)}, error or None) of one ``pyfed check`` of ``path``."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        cmd = [python, "-m", "pyfed.cli", "check", os.path.abspath(path), "--no-profile", "--json", out, "--timing"]
        if quick:
            cmd.append("--quick")
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if proc.returncode not in (0, 1) or not os.path.exists(out):
            last = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or ["?"])[-1]
            return {}, f"exit {proc.returncode}: {last[:160]}"
        rep = json.load(open(out, encoding="utf-8"))
    res = {}
    for e in rep["statements"]:
        clocks = rep.get("timing", {}).get(e["lean_name"], {})
        secs = sum(v for k, v in clocks.items() if k.startswith("engine."))
        res[e["lean_name"]] = (e["status"], secs)
    return res, None


def summary(rows: list, key: str) -> dict:
    false = [r for r in rows if r["truth"] == "false"]
    true = [r for r in rows if r["truth"] == "true"]
    secs = [r[key]["seconds"] for r in rows if r[key]["seconds"] is not None]
    return {"caught": sum(r[key]["status"] == "violated" for r in false), "false": len(false),
            "true_violated": sum(r[key]["status"] == "violated" for r in true), "true": len(true),
            "median_s": round(statistics.median(secs), 2) if secs else None,
            "max_s": round(max(secs), 2) if secs else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="Lean files (default tests/data/search/*.lean)")
    ap.add_argument("--baseline", metavar="DIR", help="an earlier pyfed checkout with its own .venv")
    ap.add_argument("--quick", action="store_true", help="compare pyfed check --quick")
    ap.add_argument("--json", metavar="OUT", help="also write the rows and summaries here")
    a = ap.parse_args()
    files = a.files or sorted(glob.glob(os.path.join(ROOT, "tests", "data", "search", "*.lean")))
    checkouts = [("after", sys.executable, ROOT)]
    if a.baseline:
        base = os.path.abspath(a.baseline)
        checkouts.insert(0, ("before", os.path.join(base, ".venv", "bin", "python"), base))
    rows = []
    for path in files:
        names = truth(path)
        got = {}
        for label, python, cwd in checkouts:
            got[label] = run(python, cwd, path, a.quick)
        for name, t in names.items():
            row = {"file": os.path.relpath(path, ROOT), "statement": name, "truth": t}
            for label, _, _ in checkouts:
                res, err = got[label]
                status, secs = res.get(name, ("not read: " + (err or "missing"), None))
                row[label] = {"status": status, "seconds": None if secs is None else round(secs, 2)}
            rows.append(row)
            cells = "  ".join(f"{label} {row[label]['status'][:12]:12s} {row[label]['seconds'] or 0:7.1f} s"
                              for label, _, _ in checkouts)
            print(f"{name:36s} {t:5s}  {cells}", flush=True)
    out = {"rows": rows, "quick": a.quick}
    for label, _, _ in checkouts:
        s = summary(rows, label)
        out[label] = s
        print(f"{label:6s}: caught {s['caught']}/{s['false']} false statements, {s['true_violated']}/{s['true']} true "
              f"ones violated; seconds per statement median {s['median_s']}, max {s['max_s']}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
