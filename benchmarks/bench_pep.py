"""Benchmark: PEP solve times of deterministic SCAFFOLD for N*K*T up to 60 (issue 6).

Target: under 30 s per solve on the shared CI machine. Each row is one performance-estimation
SDP (PEPit + cvxpy, default solver) at h = 1/(81 beta), beta = 1, mu = 0, eta_g = 1, with
re-verification off (no violation is expected inside the hypotheses). Printed: sizes, Gram
matrix size, wall-clock seconds (PEPit compilation + solve), time / 30 s target, status and
worst/bound.

Run: ``python benchmarks/bench_pep.py [--quick]`` (``--quick``: N*K*T <= 24 only).
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction

from rich.console import Console
from rich.table import Table

from pyfed.engines.pep import DEFAULT_SOLVER, worst_case_scaffold

SIZES = [(1, 1, 2), (2, 2, 2), (2, 2, 3), (2, 3, 4), (3, 3, 4), (2, 4, 6), (2, 5, 6), (3, 4, 5)]
TARGET_S = 30.0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    sizes = [s for s in SIZES if not quick or s[0] * s[1] * s[2] <= 24]
    console = Console(width=110)
    t = Table(title=f"PEP solve times, deterministic SCAFFOLD, solver {DEFAULT_SOLVER} (target < {TARGET_S:g} s)")
    for col in ("N", "K", "T", "N*K*T", "Gram size", "time (s)", "time / target", "status", "worst/bound"):
        t.add_column(col)
    worst_time = 0.0
    worst_case_scaffold(1, 1, 1, Fraction(1, 81), 1, 1, 0, verify=False)  # warm-up: imports, solver load
    for N, K, T in sizes:
        t0 = time.perf_counter()
        r = worst_case_scaffold(N, K, T, Fraction(1, 81 * K), 1, 1, 0, verify=False)
        wall = time.perf_counter() - t0
        worst_time = max(worst_time, wall)
        t.add_row(str(N), str(K), str(T), str(N * K * T), str(r.gram_size), f"{wall:.2f}",
                  f"{wall / TARGET_S:.3f}", r.status, f"{r.ratio:.5g}" if r.ratio is not None else "-")
    console.print(t)
    console.print(f"slowest solve: {worst_time:.2f} s = {worst_time / TARGET_S:.2f} x the {TARGET_S:g} s target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
