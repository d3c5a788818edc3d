"""Benchmark: vectorised SCAFFOLD (pyfed.algorithms.scaffold) against per-client Python loops.

Setting (default): N = 100 clients, d = 50, K = 10 local steps, T = 100 rounds, R = 256
replicates, option II, a random quadratic problem (pyfed.problems.random_quadratic) with a
GaussianOracle (sigma = 1), S = 10 and S = N = 100 clients per round.

Compared, as time per replicate-round (wall clock / (replicates * rounds)):

* ``vectorised``   pyfed.algorithms.scaffold on all R replicates at once;
* ``loop/oracle``  a straightforward loop: for each replicate, round and selected client,
  K calls ``oracle(y[None], rng, clients=[i])`` on one point (the library API, one client
  at a time);
* ``loop/numpy``   the same loop with the oracle inlined as ``A[i] @ y - b[i] + noise``
  (the fastest per-client loop one would write by hand).

The loops run fewer replicates and rounds (R_loop, T_loop); per replicate-round cost is
independent of both. Printed ratios are loop time / vectorised time (higher is better).
Before timing, a deterministic check (sigma = 0, S = N) confirms that the loop baseline and
the vectorised code compute the same iterates.

Usage:  python benchmarks/bench_scaffold.py [--quick] [--sigma 1.0] [--repeat 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pyfed.algorithms import scaffold
from pyfed.oracles import ExactOracle, GaussianOracle
from pyfed.problems import random_quadratic
from pyfed.sampling import sample_clients


def scaffold_loop(problem, oracle, *, S, K, T, eta_l, eta_g, R, rng, inline=False):
    """Per-replicate, per-round, per-client SCAFFOLD option II (seed 002), c0 = 0.
    Returns x (R, T+1, d)."""
    N, d = problem.N, problem.d
    A, b = problem.A, problem.b
    scale = np.sqrt(float(oracle.sigma) ** 2 / d)
    xs = np.zeros((R, T + 1, d))
    for rep in range(R):
        x = np.zeros(d)
        C = np.zeros((N, d))
        c = np.zeros(d)
        for r in range(T):
            sel = sample_clients(rng, N, S, 1)[0]
            dx = np.zeros(d)
            dc = np.zeros(d)
            for i in sel:
                y = x.copy()
                for _ in range(K):
                    if inline:
                        g = A[i] @ y - b[i]
                        if scale:
                            g = g + scale * rng.standard_normal(d)
                    else:
                        g = oracle(y[None], rng, clients=np.array([i]))[0]
                    y = y - eta_l * (g - C[i] + c)
                c_plus = C[i] - c + (x - y) / (K * eta_l)
                dx += (y - x) / S
                dc += (c_plus - C[i]) / S
                C[i] = c_plus
            x = x + eta_g * dx
            c = c + (S / N) * dc
            xs[rep, r + 1] = x
    return xs


def _time(fn, repeat):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    ap.add_argument("--sigma", type=float, default=1.0, help="GaussianOracle noise level (0 = exact oracle)")
    ap.add_argument("--repeat", type=int, default=1, help="timing repeats (best of)")
    args = ap.parse_args(argv)
    if args.quick:
        N, d, K, T, R, T_loop, R_loop = 20, 10, 5, 10, 32, 5, 2
    else:
        N, d, K, T, R, T_loop, R_loop = 100, 50, 10, 100, 256, 10, 4
    eta_l, eta_g = 0.01, 1.0
    problem = random_quadratic(N, d, np.random.default_rng(0), mu=0.1, L=1.0)
    oracle = GaussianOracle(problem, args.sigma) if args.sigma > 0 else ExactOracle(problem)

    # sanity: the loop baseline is the same algorithm (deterministic case, S = N)
    ex = ExactOracle(problem)
    ref = scaffold(problem, ex, S=N, K=K, T=3, eta_l=eta_l, eta_g=eta_g, R=1, rng=0).x
    for inline in (False, True):
        lp = scaffold_loop(problem, ex, S=N, K=K, T=3, eta_l=eta_l, eta_g=eta_g, R=1,
                           rng=np.random.default_rng(0), inline=inline)
        err = np.max(np.abs(lp - ref))
        assert err < 1e-10, f"loop baseline disagrees with scaffold by {err}"

    print(f"SCAFFOLD option II, N={N} d={d} K={K}; vectorised T={T} R={R}; loops T={T_loop} R={R_loop}; "
          f"oracle={oracle.name} sigma={args.sigma}")
    print(f"{'S':>5} {'method':>20} {'us/replicate-round':>20} {'loop/oracle ratio':>18} {'loop/numpy ratio':>17}")
    for S in sorted({max(1, N // 10), N}):
        kw = dict(S=S, K=K, eta_l=eta_l, eta_g=eta_g)
        t_lo = _time(lambda: scaffold_loop(problem, oracle, T=T_loop, R=R_loop, rng=np.random.default_rng(1),
                                           **kw), args.repeat) / (T_loop * R_loop)
        t_ln = _time(lambda: scaffold_loop(problem, oracle, T=T_loop, R=R_loop, rng=np.random.default_rng(1),
                                           inline=True, **kw), args.repeat) / (T_loop * R_loop)
        rows = [("loop/oracle", t_lo), ("loop/numpy", t_ln)]
        t_v = _time(lambda: scaffold(problem, oracle, T=T, R=R, rng=1, **kw), args.repeat) / (T * R)
        rows.append(("vectorised", t_v))
        for name, t in rows:
            print(f"{S:>5} {name:>20} {t * 1e6:>20.1f} {t_lo / t:>18.1f} {t_ln / t:>17.1f}")


if __name__ == "__main__":
    main()
