"""Benchmark of the exact-moment engine (issues 3 and 14).

Targets (issue 14), ``decide_convex`` in certified balls (auto arithmetic), K = 5, S = 3,
sigma = 1/2, h = 1/(81 beta), rational random quadratic clients:

* N = 40, d = 5, T = 50 in <= 5 s;
* N = 10, d = 20, T = 50 in <= 10 s;
* N = 10, d = 5, T = 400 in <= 20 s (the precision model starts at the bits round 400 needs);

and (issue 23) N = 10, d = 40, T = 50 in <= 15 s; N = 80, d = 5, T = 50 in <= 8 s.

Prints

1. the targets: verdict, arithmetic, precision model (loss rate, attempts), wall time
   (min and median over ``--repeat`` runs);
2. the growth table: seconds per round of the block-structured engine and of the dense
   reference (``engine="dense"``) at 128 bits, over N (d = 5) and over d (N = 10), with the
   fitted exponents t ~ N^a, t ~ d^b (least squares on the log-log points, largest sizes);
3. how exact rationals grow with T (why ``auto`` switches to balls beyond ``EXACT_BUDGET``).

Ends with one line per target: ``TARGET name measured=X target=Y ok|short`` (X: min seconds).

Run: ``python benchmarks/bench_exact.py [--quick] [--repeat 3] [--only NAME ...] [--no-growth]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from fractions import Fraction

import numpy as np

from pyfed.engines.exact import EXACT_BUDGET, decide_convex, scaffold_run_moments
from pyfed.engines.exact.arith import BallField
from pyfed.engines.exact.propagation import _sampled_round_moments
from pyfed.problems import random_quadratic

sys.set_int_max_str_digits(0)
SIGMA = Fraction(1, 2)


def instance(N, d, seed=0):
    return random_quadratic(N, d, np.random.default_rng(seed), rational=True, mu=Fraction(1, 10), L=1,
                            heterogeneity=1)


def params(P, K, S):
    h = 1 / (81 * P.beta)
    return dict(S=S, K=K, eta_l=h / K, eta_g=1)


def timed(fn, cpu=None):
    """(fn(), wall seconds); with a list ``cpu``, the process CPU seconds are appended to it."""
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    if cpu is not None:
        cpu.append(time.process_time() - c)
    return out, time.perf_counter() - t


def per_round(P, T, engine, K=5):
    """Seconds per round of the Run-model propagation at 128 bits (warm start, S = min(3, N)):
    (time of 2 + T rounds - time of 2 rounds) / T, so the model building is not counted."""
    S = min(3, P.N)

    def run(rounds):
        return timed(lambda: _sampled_round_moments(P, SIGMA, T=rounds, x0=None, c0=None, noise_cov=None,
                                                    variant="run", field=BallField(128), warm_start=True,
                                                    engine=engine, **params(P, K, S)))[1]
    return max(run(2 + T) - run(2), 1e-9) / T


def exponent(xs, ts):
    """Least-squares slope of log t against log x."""
    lx, lt = np.log(xs), np.log(ts)
    return float(np.polyfit(lx, lt, 1)[0])


def target_line(name, measured, target):
    return f"TARGET {name} measured={measured:.3g} target={target:g} {'ok' if measured <= target else 'short'}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (seconds); targets not measured at size")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats of the targets (min and median)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these targets (names of the TARGET lines)")
    ap.add_argument("--no-growth", action="store_true", help="skip the growth table and the exact-rational table")
    args = ap.parse_args(argv)
    import os
    print(f"load (1 min) {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    if args.quick:
        targets = [("exact_N10_d5_T50_seconds", 10, 5, 50, 5.0), ("exact_N10_d5_T100_seconds", 10, 5, 100, 20.0)]
    else:
        targets = [("exact_N40_d5_T50_seconds", 40, 5, 50, 5.0), ("exact_N10_d20_T50_seconds", 10, 20, 50, 10.0),
                   ("exact_N10_d5_T400_seconds", 10, 5, 400, 20.0), ("exact_N10_d40_T50_seconds", 10, 40, 50, 15.0),
                   ("exact_N80_d5_T50_seconds", 80, 5, 50, 8.0)]
    if args.only:
        targets = [t for t in targets if t[0] in args.only]
    lines = []
    print("== targets: decide_convex (auto arithmetic), K=5, S=3, sigma=1/2, h = 1/(81 beta) ==")
    print(f"{'N':>4} {'d':>4} {'T':>5} {'verdict':>9} {'bits':>6} {'loss/round':>11} {'attempts':>12} "
          f"{'min s':>8} {'median s':>9} {'target s':>9}")
    for name, N, d, T, target in targets:
        P = instance(N, d)
        times, cpus, v = [], [], None
        for _ in range(args.repeat):
            v, t = timed(lambda: decide_convex(P, SIGMA, T=T, **params(P, 5, 3)), cpus)
            times.append(t)
        prec = v.details.get("precision", {})
        print(f"{N:>4} {d:>4} {T:>5} {v.status:>9} {prec.get('bits', 'exact')!s:>6} "
              f"{prec.get('loss_rate_bits_per_round', '-')!s:>11} {str(prec.get('attempts', '-')):>12} "
              f"{min(times):>8.2f} {statistics.median(times):>9.2f} {target:>9.1f}")
        lines.append(target_line(name, min(times), target)
                     + f" (CPU {min(cpus):.3g} s, load {os.getloadavg()[0]:.1f})")
    if args.no_growth:
        for line in lines:
            print(line)
        return 0

    T_g = 4 if args.quick else 8
    print(f"\n== growth: seconds per round at 128 bits (Run model, K=5, warm start; rounds 3..{2 + T_g}) ==")
    Ns = [5, 10, 20] if args.quick else [5, 10, 20, 40, 80]
    ds = [2, 5, 10] if args.quick else [2, 5, 10, 20, 40]
    dense_max = 20 if args.quick else 40  # the dense reference beyond this is minutes
    print(f"{'N':>4} {'d':>4} {'state':>6} {'blocks s/round':>15} {'dense s/round':>14} {'dense/blocks':>13}")
    rowsN, rowsd = [], []
    for N in Ns:
        P = instance(N, 5)
        tb = per_round(P, T_g, "blocks")
        td = per_round(P, T_g, "dense") if N <= dense_max else None
        rowsN.append((N, tb, td))
        print(f"{N:>4} {5:>4} {5 * (N + 1):>6} {tb:>15.4f} {'-' if td is None else f'{td:.4f}':>14} "
              f"{'-' if td is None else f'{td / tb:.1f}':>13}")
    for d in ds:
        P = instance(10, d)
        tb = per_round(P, T_g, "blocks")
        td = per_round(P, T_g, "dense") if d * 11 <= 5 * (dense_max + 1) * 1.1 else None
        rowsd.append((d, tb, td))
        print(f"{10:>4} {d:>4} {d * 11:>6} {tb:>15.4f} {'-' if td is None else f'{td:.4f}':>14} "
              f"{'-' if td is None else f'{td / tb:.1f}':>13}")
    big = slice(-3, None)
    aN = exponent([r[0] for r in rowsN][big], [r[1] for r in rowsN][big])
    ad = exponent([r[0] for r in rowsd][big], [r[1] for r in rowsd][big])
    dN = [r for r in rowsN if r[2] is not None][big]
    dd = [r for r in rowsd if r[2] is not None][big]
    print(f"fitted exponents (largest three sizes): blocks t ~ N^{aN:.2f} (d = 5), t ~ d^{ad:.2f} (N = 10); "
          f"dense t ~ N^{exponent([r[0] for r in dN], [r[2] for r in dN]):.2f}, "
          f"d^{exponent([r[0] for r in dd], [r[2] for r in dd]):.2f} "
          f"(theory: blocks N^2 d^3, dense (N d)^3)")

    P = instance(10, 5)
    print(f"\n== exact rationals (python-flint fmpq_mat), N=10, d=5, K=5 (auto uses exact iff "
          f"(d(N+1)+1)^3 T^2 <= EXACT_BUDGET = {EXACT_BUDGET:.0e}) ==")
    print(f"{'T':>4} {'seconds':>9} {'denominator digits':>19}")
    for T in ([1, 2, 4] if args.quick else [1, 2, 4, 8]):
        r, t = timed(lambda: scaffold_run_moments(P, SIGMA, T=T, **params(P, 5, 3)))
        print(f"{T:>4} {t:>9.3f} {len(str(r.gaps[-1].denominator)):>19}")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
