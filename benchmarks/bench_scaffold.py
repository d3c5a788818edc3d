"""Benchmark: SCAFFOLD simulators (pyfed.algorithms.scaffold, option II) against per-client loops.

Setting (default): N = 100 clients, d = 50, K = 10 local steps, T = 100 rounds, R = 256
replicates, option II, a random quadratic problem (pyfed.problems.random_quadratic) with a
GaussianOracle (sigma = 1), S = 10 and S = N = 100 clients per round.

Compared, as time per replicate-round (wall clock / (replicates * rounds)):

* ``closed form``  pyfed.algorithms.scaffold (default ``method="auto"``: the closed-form law of
  a round, one affine map and one Gaussian per client; pyfed.algorithms.rounds);
* ``steps``        the same simulator with ``method="steps"`` (the K local steps one by one,
  client-major layout; the path used for non-quadratic problems);
* ``loop/numpy``   the fair baseline: for each replicate, round and selected client, K steps
  with the oracle inlined as ``A[i] @ y - b[i] + noise`` (what a hand-written FL simulator does);
* ``loop/oracle``  the same loop calling the library oracle on one point per step.

The loops run fewer replicates and rounds (R_loop, T_loop) and the step path fewer rounds
(T_steps); per replicate-round cost is independent of both. All methods are timed ``--repeat``
times, interleaved, in this one process; the table shows min and median, and the ratios use
the minimum (best of) and the median. Before timing, a deterministic check (sigma = 0, S = N)
confirms that the loop baseline and both simulator paths compute the same iterates.

Targets (issue 14): closed form >= 30x loop/numpy at S = 10 and S = N; >= 5x the step path.
Ends with one line per target: ``TARGET name measured=X target=Y ok|short`` (X: ratio of the
minimum times).

Usage:  python benchmarks/bench_scaffold.py [--quick] [--sigma 1.0] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
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


def target_line(name, measured, target):
    return f"TARGET {name} measured={measured:.3g} target={target:g} {'ok' if measured >= target else 'short'}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    ap.add_argument("--sigma", type=float, default=1.0, help="GaussianOracle noise level (0 = exact oracle)")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (min and median reported)")
    args = ap.parse_args(argv)
    if args.quick:
        N, d, K, T, R, T_loop, R_loop, T_steps = 20, 10, 5, 10, 32, 5, 2, 10
    else:
        N, d, K, T, R, T_loop, R_loop, T_steps = 100, 50, 10, 100, 256, 10, 4, 20
    eta_l, eta_g = 0.01, 1.0
    problem = random_quadratic(N, d, np.random.default_rng(0), mu=0.1, L=1.0)
    oracle = GaussianOracle(problem, args.sigma) if args.sigma > 0 else ExactOracle(problem)

    # sanity: the loop baseline is the same algorithm (deterministic case, S = N)
    ex = ExactOracle(problem)
    for method in ("closed_form", "steps"):
        ref = scaffold(problem, ex, S=N, K=K, T=3, eta_l=eta_l, eta_g=eta_g, R=1, rng=0, method=method).x
        for inline in (False, True):
            lp = scaffold_loop(problem, ex, S=N, K=K, T=3, eta_l=eta_l, eta_g=eta_g, R=1,
                               rng=np.random.default_rng(0), inline=inline)
            err = np.max(np.abs(lp - ref))
            assert err < 1e-10, f"loop baseline disagrees with scaffold ({method}) by {err}"

    print(f"SCAFFOLD option II, N={N} d={d} K={K}; closed form T={T} R={R}; steps T={T_steps} R={R}; "
          f"loops T={T_loop} R={R_loop}; oracle={oracle.name} sigma={args.sigma}; {args.repeat} repeats")
    print(f"{'S':>5} {'method':>12} {'us/rep-round min':>17} {'median':>9} {'loop/numpy ratio':>17} "
          f"{'(median)':>9} {'steps ratio':>12}")
    targets = []
    for S in sorted({max(1, N // 10), N}):
        kw = dict(S=S, K=K, eta_l=eta_l, eta_g=eta_g)
        runs = {
            "loop/oracle": (lambda: scaffold_loop(problem, oracle, T=T_loop, R=R_loop,
                                                  rng=np.random.default_rng(1), **kw), T_loop * R_loop),
            "loop/numpy": (lambda: scaffold_loop(problem, oracle, T=T_loop, R=R_loop, rng=np.random.default_rng(1),
                                                 inline=True, **kw), T_loop * R_loop),
            "steps": (lambda: scaffold(problem, oracle, T=T_steps, R=R, rng=1, method="steps", **kw), T_steps * R),
            "closed form": (lambda: scaffold(problem, oracle, T=T, R=R, rng=1, **kw), T * R),
        }
        times = {k: [] for k in runs}
        for _ in range(args.repeat):  # interleaved, so load changes hit every method alike
            for name, (fn, units) in runs.items():
                t0 = time.perf_counter()
                fn()
                times[name].append((time.perf_counter() - t0) / units)
        best = {k: min(v) for k, v in times.items()}
        med = {k: statistics.median(v) for k, v in times.items()}
        for name in runs:
            print(f"{S:>5} {name:>12} {best[name] * 1e6:>17.1f} {med[name] * 1e6:>9.1f} "
                  f"{best['loop/numpy'] / best[name]:>17.1f} {med['loop/numpy'] / med[name]:>9.1f} "
                  f"{best['steps'] / best[name]:>12.2f}")
        tag = "SN" if S == N else f"S{S}"
        targets.append(target_line(f"closed_form_vs_loop_numpy_{tag}", best["loop/numpy"] / best["closed form"], 30))
        targets.append(target_line(f"closed_form_vs_steps_{tag}", best["steps"] / best["closed form"], 5))
    for line in targets:
        print(line)


if __name__ == "__main__":
    main()
