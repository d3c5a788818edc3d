"""PEP engine, sweeps: the ``pyfed check`` PEP row, the worst/bound sweep over (h, K, mu, T) and
the smallest step-size constant certified on the swept grid.
"""

from __future__ import annotations

import functools
from fractions import Fraction

from ...parallel import Pool
from ...verdicts import Verdict
from .scaffold import worst_case_scaffold
from .solver import DEFAULT_RATIO_TOL, WorstCaseResult


# --------------------------------------------------------------------------------------------
# pyfed check row, sweep
# --------------------------------------------------------------------------------------------
def pep_row_for_check(*, solver=None) -> Verdict:
    """One small PEP row for ``pyfed check`` (``ConvexFiniteRoundConvergence``): N = 2, K = 2,
    T = 2, eta_g = 1, eta_l = 1/162 (h = 1/81 beta, the largest step the theorem allows),
    beta = 1, mu = 0. Runs in well under a second. Returns the verdict (details carry the
    worst case, bound, ratio, solver, status and solve time)."""
    res = worst_case_scaffold(2, 2, 2, Fraction(1, 162), 1, 1, 0, solver=solver)
    v = res.verdict
    v.details = dict(v.details)
    v.details.update({"engine": "PEP worst case over the class (sigma = 0, S = N)",
                      "instance": "PEP worst case N=2 K=2 T=2 h=1/(81 beta) mu=0",
                      "solver": res.solver, "status": res.status,
                      "solve_time_s": round(res.solve_time, 4), "pep_ratio": res.ratio})
    return v


def _sweep_point(params, rng=None, *, N, eta_g, beta, solver, verify):
    """One grid point of :func:`sweep_scaffold` (a picklable task for :mod:`pyfed.parallel`)."""
    K, mu, T, m = params
    h = Fraction(m) / (81 * Fraction(beta))
    eta_l = h / (K * Fraction(eta_g))
    r = worst_case_scaffold(N, K, T, eta_l, eta_g, beta, mu, solver=solver, verify=verify)
    r.parameters["m"] = m
    return r


def sweep_scaffold(*, multiples=(1, 3, 9, 27, 81), Ks=(1, 2), mus=(0, Fraction(1, 20)), Ts=(2, 4),
                   N=2, eta_g=1, beta=1, solver=None, verify=True, progress=None, workers=None,
                   scheduler=None) -> list[WorstCaseResult]:
    """Worst/bound of deterministic SCAFFOLD on a grid: h = m/(81 beta) for m in ``multiples``
    (m = 1 is the theorem's limit; m = 81 is h = 1/beta), K in ``Ks``, mu in ``mus``
    (absolute values, in the units of beta), T in ``Ts``; eta_l = h/(K eta_g).

    Parameters with mu h >= 2 (weights undefined) are skipped. The points are solved through
    :func:`pyfed.parallel.parallel_map` (serial by default; ``workers=N`` a local Dask cluster,
    ``scheduler=ADDRESS`` an existing one), results in grid order whatever the workers.
    ``progress(label)`` is called before each solve when serial, and as points finish otherwise.
    Returns the list of results (``result.parameters`` holds the multiple under key ``"m"``).
    """


    grid = []
    for K in Ks:
        for mu in mus:
            for T in Ts:
                for m in multiples:
                    h = Fraction(m) / (81 * Fraction(beta))
                    if Fraction(mu) * h >= 2:
                        continue
                    grid.append((K, mu, T, m))
    task = functools.partial(_sweep_point, N=N, eta_g=eta_g, beta=beta, solver=solver, verify=verify)
    with Pool(workers=workers, scheduler=scheduler) as pool:
        if pool.serial:
            out = []
            for params in grid:
                K, mu, T, m = params
                if progress:
                    progress(f"N={N} K={K} T={T} mu={mu} h={m}/(81 beta)")
                out.append(task(params))
            return out
        done = [0]

        def advance(k):
            done[0] += k
            if progress:
                progress(f"{done[0]}/{len(grid)} grid points solved")
        return pool.map(task, grid, progress=advance)


def smallest_constant(results, *, keep_other_hypotheses: bool = True, ratio_tol: float | None = None) -> dict:
    """Smallest c (on the swept grid) such that h <= 1/(c beta) keeps worst/bound <= 1.

    With multiples m (h = m/(81 beta)), let m* be the largest swept m such that every optimal
    result with multiple <= m* has ratio <= 1. Then c = 81/m* on the grid (the true constant
    lies in (81/m_fail, 81/m*] where m_fail is the first swept multiple that fails).

    ``keep_other_hypotheses``: only results whose hypotheses other than the step-size one
    (h <= 1/(81 beta)) hold are used -- in particular mu h <= S/(15 N) -- so c answers "how far
    can the step-size constant 81 be lowered with the rest of the theorem unchanged".
    Results without ``details["hypotheses"]`` are always used.

    A result *fails* when it is optimal and worst/bound > 1 + ``ratio_tol`` (default: the PEP
    verdicts' :data:`DEFAULT_RATIO_TOL`); a ratio within the tolerance of 1 is not a failure,
    as the verdict calls it inconclusive, not violated.

    Returns dict(c, m_star, m_fail, m_fail_reproduced, all_optimal, grid_max, used, excluded);
    ``m_fail_reproduced`` is True when a failure at ``m_fail`` was reproduced exactly by the
    re-verification on a concrete instance, False when re-verification ran and reproduced none
    (the failure is PEP's numerical claim only), None when no re-verification is recorded.
    """
    if ratio_tol is None:
        ratio_tol = DEFAULT_RATIO_TOL
    def other_ok(r):
        hyps = r.details.get("hypotheses")
        return hyps is None or all(h["holds"] for h in hyps if h["key"] != "step_size")

    used = [r for r in results if not keep_other_hypotheses or other_ok(r)]
    ms = sorted({r.parameters["m"] for r in used})
    m_star, m_fail, reproduced = None, None, None
    for m in ms:
        rs = [r for r in used if r.parameters["m"] == m]
        bad = [r for r in rs if r.optimal and r.ratio is not None and r.ratio > 1 + ratio_tol]
        if bad:
            m_fail = m
            checks = [(r.details or {}).get("reverification") for r in bad]
            checks = [c for c in checks if c is not None]
            if checks:
                reproduced = any(c.get("reproduced") for c in checks)
            break
        m_star = m
    c = Fraction(81, 1) / m_star if m_star else None
    return {"c": c, "m_star": m_star, "m_fail": m_fail, "m_fail_reproduced": reproduced, "all_optimal": all(r.optimal for r in used),
            "grid_max": ms[-1] if ms else None, "used": len(used), "excluded": len(results) - len(used)}
