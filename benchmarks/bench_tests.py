"""The test suite's cost (issue 23): wall and CPU seconds (user + system, the pytest process and
every child it starts) of ``pytest -m "not slow"`` and of the whole suite, each in a fresh process,
with the 1-minute load average before and after.

Targets: ``pytest -m "not slow"`` <= 60 s wall; the whole suite <= 200 s CPU (2 cores).

    python benchmarks/bench_tests.py [--fast-only] [--repeat 1]

Run from the repository root with the project's Python; the machine should be otherwise idle (the
load is printed because a busy machine inflates both figures).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(args: list) -> tuple:
    """(wall s, CPU s, exit status, load before, load after) of one pytest run in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode, load0, os.getloadavg()[0]


def _summary(xs) -> str:
    xs = sorted(xs)
    return f"{xs[0]:.1f} / {xs[len(xs) // 2]:.1f} / {xs[-1]:.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fast-only", action="store_true", help="only pytest -m 'not slow'")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each (min / median / max printed)")
    a = ap.parse_args(argv)
    if a.repeat < 1:
        ap.error("--repeat: must be at least 1")
    cases = [("not_slow", ["-m", "not slow"], "wall", 60.0)]
    if not a.fast_only:
        cases.append(("full_suite", [], "cpu", 200.0))
    ok = True
    for name, args, measure, target in cases:
        runs = [_run(args) for _ in range(a.repeat)]
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        loads = [f"{r[3]:.1f}-{r[4]:.1f}" for r in runs]
        print(f"REPORT {name}: wall s {_summary(walls)}, CPU s {_summary(cpus)} (min / median / max), "
              f"exit {sorted({r[2] for r in runs})}, load {', '.join(loads)}")
        measured = min(walls) if measure == "wall" else min(cpus)
        met = measured <= target and all(r[2] == 0 for r in runs)
        ok = ok and met
        print(f"TARGET {name}_{measure}_seconds measured={measured:.1f} target={target:g} {'ok' if met else 'short'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
