"""Calibration of the resource model (:mod:`pyfed.resources`): measure each constant on this machine.

Each constant is measured the way its docstring says, at two sizes where a fixed cost must be
removed (the difference of the two measurements divided by the difference of the formula's
size term), and printed beside the value in ``pyfed/resources.py``:

* ``STATE_COPIES``, ``SECONDS_PER_GRADIENT_ENTRY``, ``SECONDS_PER_EVAL_ENTRY``: ``scaffold_run`` on
  the default suite's logistic instance (N = 10, d = 30, minibatch b = 8) at two R, peak memory by
  ``tracemalloc`` (numpy reports its buffers to it), and the left side's evaluation (f at every
  round);
* ``FRACTION_OP_SECONDS``: the rational instance of ``pyfed tightness`` at two d;
* ``EXACT_POINT_SECONDS``: one exact point of ``pyfed tightness`` at T = 10 and 20;
* ``PEP_SECONDS``: one SDP at P = N K T = 24 and 36 (the exponent is taken as given);
* ``DRAW_SECONDS``: every statement checker at budgets 2 and 10 (``--checkers``; a few minutes);
* ``CANDIDATE_SECONDS``: the constant profile of ``examples/statements/seed_convex.lean`` at two
  budgets;
* ``SECONDS_PER_STEP``: ``ServerControlIsMean`` (the SCAFFOLD procedure read from its Lean body)
  decided at r = 60 and r = 240 rounds, the difference of the times over the difference of the
  estimated steps (:func:`pyfed.evaluation.cost.estimate_steps`).

The machine is shared with other jobs: read the orders of magnitude (the model is meant to be
within a factor of about 3), not the digits.

Run: ``python benchmarks/calibrate_resources.py [--checkers]``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

import numpy as np

from pyfed import resources

ROOT = Path(__file__).resolve().parents[1]


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _report(name: str, measured: float, current: float) -> None:
    print(f"{name:28s} measured {measured:10.3g}   pyfed.resources {current:10.3g}   ratio {measured / current:6.2f}")


def simulation() -> None:
    from pyfed.algorithms import scaffold_run
    from pyfed.suites.scaffold import default_suite

    inst = default_suite(quick=False)[1]
    p = inst.problem
    N, d, S, K, T, b = p.N, p.d, inst.S, inst.K, inst.T, inst.oracle.b
    rows = p.X.shape[0]
    out = {}
    for R in (256, 1024):
        tracemalloc.start()
        tr, t_sim = _timed(lambda: scaffold_run(p, inst.oracle, S=S, K=K, T=T, eta_l=inst.eta_l, eta_g=inst.eta_g,
                                                x0=inst.x0, c0=inst.c0, R=R, rng=np.random.default_rng(0)))
        _, t_eval = _timed(lambda: p.value(tr.x[:, :T]))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out[R] = (peak, t_sim, t_eval)
        del tr
    (m1, s1, e1), (m2, s2, e2) = out[256], out[1024]
    dR = 1024 - 256
    per_rep = (m2 - m1) / dR / 8          # float64 entries per replicate
    copies = (per_rep - ((T + 1) * d + T * (S + 1))) / (N * d)
    _report("STATE_COPIES", copies, resources.STATE_COPIES)
    _report("SECONDS_PER_GRADIENT_ENTRY", (s2 - s1) / (dR * T * K * N * d * b), resources.SECONDS_PER_GRADIENT_ENTRY)
    _report("SECONDS_PER_EVAL_ENTRY", (e2 - e1) / (dR * T * (N * d + rows * d)), resources.SECONDS_PER_EVAL_ENTRY)


def exact() -> None:
    from pyfed.engines.tightness import default_instance, tightness_sweep
    from pyfed.problems import random_quadratic

    t = {}
    for d in (10, 20):
        _, t[d] = _timed(lambda: random_quadratic(4, d, np.random.default_rng(0), rational=True,
                                                  mu=Fraction(1, 10), L=1))
    _report("FRACTION_OP_SECONDS", (t[20] - t[10]) / (4 * (20 ** 3 - 10 ** 3)), resources.FRACTION_OP_SECONDS)
    p = default_instance(0, N=4, d=2)
    for T in (10, 20):
        _, t[T] = _timed(lambda: tightness_sweep(p, Fraction(1, 2), S=2, K=2, T=T, eta_g=1,
                                                 multiples=[Fraction(1)], bisect=0))
    _report("EXACT_POINT_SECONDS", (t[20] - t[10]) / (4 * 4 * (20 ** 1.5 - 10 ** 1.5) * 1.03),
            resources.EXACT_POINT_SECONDS)


def pep() -> None:
    from pyfed.engines.pep.scaffold import worst_case_scaffold

    worst_case_scaffold(2, 1, 2, Fraction(1, 81), 1, 1, 0, verify=False)      # warm-up: imports, compilation
    t = {}
    for N in (2, 3):
        _, t[N] = _timed(lambda: worst_case_scaffold(N, 3, 4, Fraction(1, 243), 1, 1, 0, verify=False))
    e = resources.PEP_SECONDS_EXPONENT
    _report("PEP_SECONDS", (t[3] - t[2]) / (36 ** e - 24 ** e), resources.PEP_SECONDS)


def draws() -> None:
    from pyfed.checkers.registry import get, names

    for i, name in enumerate(names()):
        c = get(name)
        _, t2 = _timed(lambda: c.verdict(np.random.default_rng([0, i]), 2))
        _, t10 = _timed(lambda: c.verdict(np.random.default_rng([0, i]), 10))
        _report(f"DRAW_SECONDS {name[:15]}", max((t10 - t2) / 8, 1e-6), resources._draw_seconds(name))


def candidates() -> None:
    from pyfed.models.scaffold.profile import constant_profile, profile_size
    from pyfed import read_file

    st = read_file(ROOT / "examples" / "statements" / "seed_convex.lean")[0]
    t, n = {}, {}
    for b in (2, 6):
        n[b] = profile_size(st, b)
        _, t[b] = _timed(lambda: constant_profile(st, seed=0, budget=b))
    _report("CANDIDATE_SECONDS", (t[6] - t[2]) / (n[6] - n[2]), resources.CANDIDATE_SECONDS)


def evaluation() -> None:
    from pyfed.checkers import families as fam
    from pyfed.checkers.registry import statements_of
    from pyfed.evaluation.cost import estimate_steps
    from pyfed.statements.interpret import Fun, Interpreter, vec

    st = statements_of("ServerControlIsMean")[0]
    oracles = Fun(lambda r: fam.client_oracles([fam.affine_oracle([[2, 0], [0, 3]], [1, 1], []) for _ in range(3)]))
    t, steps = {}, {}
    for r in (60, 240):
        env = {"d": 2, "N": 3, "opt": "SCAFFOLD.ControlOption.optionII", "S": 2, "K": 3, "ηl": Fraction(1, 8),
               "ηg": Fraction(1), "oracle": oracles, "samples": fam.samples([[0, 1], [1, 2]] * (r // 2 + 1)),
               "x0": vec([1, 2]), "c0": fam.fin_family([vec([0, 0])] * 3), "r": r}
        it = Interpreter(st.file_decls)
        steps[r] = estimate_steps(st.conclusion, env, it.definitions)
        _, t[r] = _timed(lambda: it.holds(st.conclusion, env))
    _report("SECONDS_PER_STEP", (t[240] - t[60]) / (steps[240] - steps[60]), resources.SECONDS_PER_STEP)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkers", action="store_true", help="also time every statement checker's draws")
    args = ap.parse_args()
    simulation()
    exact()
    pep()
    candidates()
    evaluation()
    if args.checkers:
        draws()


if __name__ == "__main__":
    main()
