"""Benchmark: start-up cost (issue 23, "fast start").

Measures, each as a fresh process, CPU seconds (user + system of the child) and wall seconds:

* ``pyfed --help`` (the imports of the command line; sympy, scikit-learn, cvxpy, dask and
  matplotlib must not be among them);
* ``pyfed check --quick`` with pyfed's dataset cache warm (the normal case) and cold (an empty
  cache directory: the first run on a machine, which imports scikit-learn once and writes the
  cache), and the seconds ``python -X importtime`` attributes to imports in the warm run.

With ``--baseline-python PATH`` (the Python of another installation of pyfed, e.g. the main
branch's virtual environment) the same commands run with it too, interleaved with this one, and
the ratios baseline / this are printed (min / median / max over ``--repeat`` pairs). The machine's
1-minute load average is printed beside every figure.

Target: ``pyfed --help`` <= 0.25 s CPU (median). ``check --quick`` >= 1.5x faster in CPU than the
baseline is reported when a baseline is given.

Usage:  python benchmarks/bench_start.py [--repeat 5] [--baseline-python PATH] [--no-check]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PYFED = "import sys; from pyfed.cli import main; sys.exit(main())"


def run(python, args, env=None, importtime=False):
    """(wall s, CPU s, import s or None) of ``pyfed ARGS`` run by ``python`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    cmd = [python] + (["-X", "importtime"] if importtime else []) + ["-c", PYFED] + list(args)
    # from a neutral directory: ``python -c`` puts the working directory first on sys.path, which
    # would make every Python import the pyfed of the directory the benchmark was started in
    out = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                         cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"{python} pyfed {' '.join(args)} exited with {out.returncode}: {out.stderr[-500:]}")
    imports = None
    if importtime:
        imports = sum(int(m.group(1)) for m in re.finditer(r"^import time:\s+(\d+) \|", out.stderr, re.M)) / 1e6
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), imports


def spread(xs):
    return f"{min(xs):.2f} / {statistics.median(xs):.2f} / {max(xs):.2f}"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs of each command (min / median / max)")
    ap.add_argument("--baseline-python", help="Python of another pyfed installation to compare with")
    ap.add_argument("--no-check", action="store_true", help="only pyfed --help")
    a = ap.parse_args(argv)
    pythons = {"this": sys.executable}
    if a.baseline_python:
        pythons["baseline"] = a.baseline_python
    lines = []
    with tempfile.TemporaryDirectory() as warm, tempfile.TemporaryDirectory() as tmp:
        env_warm = dict(os.environ, PYFED_CACHE_DIR=warm)
        cases = [("--help", ["--help"], env_warm, False)]
        if not a.no_check:
            run(sys.executable, ["check", "--quick", "--json", os.path.join(tmp, "r.json")], env=env_warm)  # fills the cache
            cases.append(("check --quick (warm cache)", ["check", "--quick", "--json", os.path.join(tmp, "r.json")],
                          env_warm, True))
        for label, args, env, imp in cases:
            res = {k: [] for k in pythons}
            loads = []
            for i in range(a.repeat):
                for who, py in pythons.items():
                    res[who].append(run(py, args, env=env, importtime=imp))
                loads.append(os.getloadavg()[0])
            load = f"load {min(loads):.1f}-{max(loads):.1f}"
            for who, rs in res.items():
                cpu = [r[1] for r in rs]
                wall = [r[0] for r in rs]
                extra = f", imports {spread([r[2] for r in rs])} s" if imp else ""
                print(f"{who:>8} pyfed {label}: CPU {spread(cpu)} s, wall {spread(wall)} s{extra} "
                      f"(min / median / max of {a.repeat}; {load})")
            if "baseline" in res:
                ratios = [b[1] / t[1] for b, t in zip(res["baseline"], res["this"])]
                print(f"  baseline / this, CPU: {spread(ratios)}")
                if label.startswith("check"):
                    med = statistics.median(ratios)
                    lines.append(f"TARGET check_quick_cpu_vs_baseline measured={med:.3g} target=1.5 "
                                 f"{'ok' if med >= 1.5 else 'short'} ({load})")
            if label == "--help":
                med = statistics.median(r[1] for r in res["this"])
                lines.append(f"TARGET help_cpu_seconds measured={med:.3g} target=0.25 "
                             f"{'ok' if med <= 0.25 else 'short'} ({load})")
        if not a.no_check:
            with tempfile.TemporaryDirectory() as cold:
                wall, cpu, _ = run(sys.executable, ["check", "--quick", "--json", os.path.join(tmp, "r.json")],
                                   env=dict(os.environ, PYFED_CACHE_DIR=cold))
                print(f"    this pyfed check --quick (cold cache, first run on a machine): CPU {cpu:.2f} s, "
                      f"wall {wall:.2f} s (load {os.getloadavg()[0]:.1f})")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
