"""Benchmark: ``pyfed check --quick`` against the full ``pyfed check`` (issue 9: --quick must be
substantially faster). Each is run as a fresh process (imports and dataset loading included, as a
user sees it); prints wall and CPU seconds (best of --repeat runs) and the ratio full/quick.

Run: ``python benchmarks/bench_check.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time


def run(args: list) -> tuple:
    """(wall seconds, CPU seconds of the child) of ``pyfed check ARGS``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        code = subprocess.run([sys.executable, "-c", "import sys; from pyfed.cli import main; sys.exit(main())",
                               "check", "--json", os.path.join(d, "r.json")] + args,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if code != 0:
        raise SystemExit(f"pyfed check {' '.join(args)} exited with {code}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs (default 1)")
    a = ap.parse_args()
    best = {}
    for label, args in (("quick", ["--quick"]), ("full", [])):
        runs = [run(args) for _ in range(max(1, a.repeat))]
        best[label] = (min(r[0] for r in runs), min(r[1] for r in runs))
        print(f"pyfed check {' '.join(args) or '(full)':8s}: wall {best[label][0]:6.2f} s, cpu {best[label][1]:6.2f} s")
    print(f"full / quick: wall x{best['full'][0] / best['quick'][0]:.2f}, cpu x{best['full'][1] / best['quick'][1]:.2f}")


if __name__ == "__main__":
    main()
