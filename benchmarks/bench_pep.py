"""Benchmark: PEP solve times of deterministic SCAFFOLD (issues 6, 14, 23) and exact certificates
against the solve (issue 21 item 5).

Each row is one worst-case computation (:func:`pyfed.engines.pep.worst_case_scaffold`) at
h = 1/(81 beta), beta = 1, mu = 0, eta_g = 1, re-verification and certificate off. The default
formulation solves the client-symmetric reduction restricted to the interpolation inequalities
between x* and consecutive points (:mod:`pyfed.engines.pep.direct`: an exact reduction, then a
relaxation whose value is an upper bound; it decides holds, anything else falls back to the full
PEPit formulation). Printed per size: Gram size of the full problem, PSD blocks solved, repeat
min / median / max wall seconds, the worst/bound ratio, and the machine load (/proc/loadavg)
before the row. ``--compare`` also times the full PEPit formulation (``formulation="pepit"``,
the plain-PEPit baseline) interleaved in the same process and prints its value beside ours
(relative difference: must be within the solver tolerance) and the time ratio.

Targets (issue 23): ``TARGET pep_nkt_le_60_max_seconds measured=X target=5`` (X: the slowest
size's median over the repeats) and ``TARGET pep_nkt_120_seconds measured=X target=60``
(N, K, T = 2, 5, 12).

``--certificates`` (issue 21 item 5): per size, the solve alone (``certify=False``) and the same
call with the certificate (``certify=True``: oracle SDPs on the reduction, exact rationalisation,
lifting and exact verification on the full problem), interleaved; extraction + verification =
the difference. Ends with ``TARGET pep_certificate_over_solve_nkt_le_60 measured=X target=1``, X
the largest median ratio over the sizes.

Run: ``python benchmarks/bench_pep.py [--quick] [--repeat 3] [--compare] [--certificates]``
(``--quick``: N*K*T <= 24 only).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from fractions import Fraction

from rich.console import Console
from rich.table import Table

import pyfed.engines.pep.solver as pep_solver
from pyfed.engines.pep import DEFAULT_SOLVER, worst_case_scaffold

SIZES = [(1, 1, 2), (2, 2, 2), (2, 2, 3), (2, 3, 4), (3, 3, 4), (2, 4, 6), (2, 5, 6), (3, 4, 5)]
BIG = [(2, 5, 12), (3, 4, 10)]
TARGET_S = 5.0
TARGET_120_S = 60.0


def _load() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return fh.read().split()[0]
    except OSError:
        return "?"


def _run(N, K, T, **kw):
    t0 = time.perf_counter()
    r = worst_case_scaffold(N, K, T, Fraction(1, 81 * K), 1, 1, 0, verify=False, **kw)
    return r, time.perf_counter() - t0


def _mmm(xs):
    return min(xs), statistics.median(xs), max(xs)


CERT_SIZES = [(1, 1, 2), (2, 2, 2), (2, 2, 3), (2, 3, 4), (3, 3, 4), (2, 5, 6), (3, 4, 5)]


def certificates(quick: bool, repeat: int) -> int:
    """The ``--certificates`` table (see the module docstring)."""
    console = Console(width=150)
    t = Table(title="PEP solve vs solve + exact certificate, deterministic SCAFFOLD (medians; load before the row)")
    for col in ("N", "K", "T", "N*K*T", "load", "solve s min/med/max", "cert s (min/med/max)", "cert/solve med",
                "verified"):
        t.add_column(col)
    worst = 0.0
    _run(1, 1, 1, certify=True)
    for N, K, T in [s for s in CERT_SIZES if not quick or s[0] * s[1] * s[2] <= 24]:
        load = _load()
        solve, extra, ratios, ok = [], [], [], True
        for _ in range(repeat):
            _, a = _run(N, K, T, certify=False)
            rc, b = _run(N, K, T, certify=True)
            solve.append(a)
            extra.append(max(b - a, 0.0))
            ratios.append(max(b - a, 0.0) / a)
            ok = ok and bool(rc.details.get("pep_certificate", {}).get("verified"))
        med = statistics.median(ratios)
        if N * K * T <= 60:
            worst = max(worst, med)
        t.add_row(str(N), str(K), str(T), str(N * K * T), load, "/".join(f"{v:.2f}" for v in _mmm(solve)),
                  "/".join(f"{v:.2f}" for v in _mmm(extra)), f"{med:.2f}", "yes" if ok else "no")
    console.print(t)
    print(f"TARGET pep_certificate_over_solve_nkt_le_60 measured={worst:.3g} target=1 "
          f"{'ok' if worst <= 1 else 'short'} (load {_load()})")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N*K*T <= 24 only")
    ap.add_argument("--certificates", action="store_true", help="time exact certificates against the solve")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (min, median, max)")
    ap.add_argument("--compare", action="store_true", help="also time the full PEPit formulation")
    args = ap.parse_args(argv)
    if args.certificates:
        return certificates(args.quick, args.repeat)
    sizes = [s for s in SIZES if not args.quick or s[0] * s[1] * s[2] <= 24]
    big = [] if args.quick else BIG
    console = Console(width=160)
    factor = pep_solver.CLARABEL_FACTORIZATION if pep_solver._clarabel_supports(pep_solver.CLARABEL_FACTORIZATION) \
        else "auto"
    t = Table(title=f"PEP solve times, deterministic SCAFFOLD, {DEFAULT_SOLVER} ({factor}); targets <= {TARGET_S:g} s "
                    f"for N*K*T <= 60, <= {TARGET_120_S:g} s at N*K*T = 120")
    cols = ["N", "K", "T", "N*K*T", "load", "Gram", "blocks", "s min/med/max", "worst/bound", "formulation"]
    if args.compare:
        cols += ["PEPit s (min)", "PEPit/ours", "rel. diff. worst"]
    for col in cols:
        t.add_column(col)
    _run(1, 1, 1, certify=False)  # warm-up: imports, solver load
    if args.compare:
        _run(1, 1, 1, certify=False, formulation="pepit")
    worst_60 = 0.0
    worst_120 = None
    for N, K, T in sizes + big:
        load = _load()
        times, base, r, rb = [], [], None, None
        nkt = N * K * T
        for _ in range(args.repeat if nkt <= 60 else 1):
            r, s = _run(N, K, T, certify=False)
            times.append(s)
            if args.compare and nkt <= 60:
                rb, sb = _run(N, K, T, certify=False, formulation="pepit")
                base.append(sb)
        lo, med, hi = _mmm(times)
        if nkt <= 60:
            worst_60 = max(worst_60, med)
        elif (N, K, T) == (2, 5, 12):
            worst_120 = med
        form = r.details.get("formulation", "")
        blocks = form.split("PSD blocks ")[1].split(")")[0] if "PSD blocks" in form else str(r.gram_size)
        row = [str(N), str(K), str(T), str(nkt), load, str(r.gram_size), blocks,
               f"{lo:.2f}/{med:.2f}/{hi:.2f}", f"{r.ratio:.5g}" if r.ratio is not None else "-",
               "symmetric relaxation" if form.startswith("client") else "full PEPit"]
        if args.compare:
            if base:
                row += [f"{min(base):.2f}", f"{min(base) / lo:.1f}",
                        f"{abs(r.worst - rb.worst) / abs(rb.worst):.1e}" if rb.worst else "-"]
            else:
                row += ["-", "-", "-"]
        t.add_row(*row)
    console.print(t)
    print(f"TARGET pep_nkt_le_60_max_seconds measured={worst_60:.3g} target={TARGET_S:g} "
          f"{'ok' if worst_60 <= TARGET_S else 'short'} (load {_load()})")
    if worst_120 is not None:
        print(f"TARGET pep_nkt_120_seconds measured={worst_120:.3g} target={TARGET_120_S:g} "
              f"{'ok' if worst_120 <= TARGET_120_S else 'short'} (load {_load()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
