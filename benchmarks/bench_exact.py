"""Benchmark of the exact-moment engine (issue 3).

Target: ``decide_convex`` on N = 10 clients, d = 5, K = 5, T = 50 decided (exact rationals or a
certified ball) in under 10 s on this machine. Prints

1. the target instance: verdict, arithmetic used and wall time (ratio to the 10 s target);
2. how the certified-ball engine's time grows with N, d, K and T (one factor varied at a time
   around the target, ratios against the target's time measured in the same run);
3. how exact rational arithmetic grows with T on the target's N, d, K (time and the number of
   digits of E[f(x^T)] - f*'s denominator), which is why ``auto`` switches to balls when
   (d(N+1)+1)^3 T^2 exceeds ``EXACT_BUDGET``.

Run: ``python benchmarks/bench_exact.py [--quick]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction

import numpy as np

from pyfed.engines.exact.arith import BallField
from pyfed.engines.exact import EXACT_BUDGET, decide_convex, scaffold_run_moments
from pyfed.problems import random_quadratic

sys.set_int_max_str_digits(0)


def instance(N, d, seed=0):
    return random_quadratic(N, d, np.random.default_rng(seed), rational=True, mu=Fraction(1, 10), L=1,
                            heterogeneity=1)


def params(P, K, S):
    h = 1 / (81 * P.beta)
    return dict(S=S, K=K, eta_l=h / K, eta_g=1)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller growth table")
    args = ap.parse_args(argv)
    sigma = Fraction(1, 2)

    print("== target: decide_convex, N=10, d=5, K=5, T=50, S=3, sigma=1/2, h = 1/(81 beta) ==")
    P = instance(10, 5)
    v, t0 = timed(lambda: decide_convex(P, sigma, T=50, **params(P, 5, 3)))
    print(f"verdict {v.status} (decided={v.status != 'inconclusive'}), arithmetic: {v.details['arithmetic']}")
    print(f"ratio LHS/RHS = {float(v.ratio):.6g}; time {t0:.2f} s = {t0 / 10:.2f} x the 10 s target")

    print("\n== growth, certified balls (128 bits), engine scaffold_run_moments; ratio vs target ==")
    base = dict(N=10, d=5, K=5, T=50)
    _, tb = timed(lambda: scaffold_run_moments(P, sigma, T=50, field=BallField(128), **params(P, 5, 3)))
    print(f"{'N':>4} {'d':>4} {'K':>4} {'T':>5} {'state':>6} {'seconds':>9} {'ratio':>7}")
    print(f"{10:>4} {5:>4} {5:>4} {50:>5} {5 * 11:>6} {tb:>9.3f} {1.0:>7.2f}")
    grid = {"N": [2, 5, 20] if args.quick else [2, 5, 20, 40], "d": [2, 10] if args.quick else [2, 10, 20],
            "K": [1, 20] if args.quick else [1, 20, 50], "T": [10, 100] if args.quick else [10, 100, 200]}
    for key, vals in grid.items():
        for val in vals:
            c = dict(base)
            c[key] = val
            Pc = P if (c["N"], c["d"]) == (10, 5) else instance(c["N"], c["d"])
            S = min(3, c["N"])
            _, t = timed(lambda: scaffold_run_moments(Pc, sigma, T=c["T"], field=BallField(128),
                                                      **params(Pc, c["K"], S)))
            print(f"{c['N']:>4} {c['d']:>4} {c['K']:>4} {c['T']:>5} {c['d'] * (c['N'] + 1):>6} {t:>9.3f} {t / tb:>7.2f}")

    print("\n== growth, exact rationals (python-flint fmpq_mat), N=10, d=5, K=5 ==")
    print(f"(auto uses exact iff (d(N+1)+1)^3 T^2 <= EXACT_BUDGET = {EXACT_BUDGET:.0e})")
    print(f"{'T':>4} {'seconds':>9} {'denominator digits':>19}")
    for T in ([1, 2, 4] if args.quick else [1, 2, 4, 8]):
        r, t = timed(lambda: scaffold_run_moments(P, sigma, T=T, **params(P, 5, 3)))
        print(f"{T:>4} {t:>9.3f} {len(str(r.gaps[-1].denominator)):>19}")
    small = instance(4, 2)
    print("\n== exact rationals on a small instance N=4, d=2, K=2 (state 10) ==")
    print(f"{'T':>4} {'seconds':>9} {'denominator digits':>19}")
    for T in ([10, 25] if args.quick else [10, 25, 50]):
        r, t = timed(lambda: scaffold_run_moments(small, sigma, T=T, **params(small, 2, 2)))
        print(f"{T:>4} {t:>9.3f} {len(str(r.gaps[-1].denominator)):>19}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
