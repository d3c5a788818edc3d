"""Tightness sweep of ``SCAFFOLD.ConvexFiniteRoundConvergence`` on a quadratic instance.

For h = m / (81 beta) with multiples m from well inside the step hypothesis (m <= 1) to far
beyond it, the left side weightedGap and the right side convexRHS are computed *exactly*
(:func:`pyfed.engines.exact.decide_convex`), and the ratio LHS/RHS is reported
per point. The first grid point where the ratio reaches 1 is located, then the bracket
(previous multiple, that multiple) is bisected in exact rationals to localise the crossing.

Command line: ``pyfed tightness`` (:mod:`pyfed.commands.tightness`), which also draws the plot.

Source: seed 000 (``SCAFFOLD.ConvexFiniteRoundConvergence``, hypothesis h <= 1/(81 beta));
Karimireddy et al., SCAFFOLD, arXiv:1910.06378v4, Appendix E.1, PDF pp. 30-31.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InputError, UndefinedValue
from ..exact import number_json
from ..parallel import Pool, check_workers
from ..problems import random_quadratic
from .exact import decide_convex

__all__ = ["SweepPoint", "SweepResult", "DEFAULT_MULTIPLES", "tightness_sweep", "default_instance",
           "status_label"]

#: m = 1/8, 1/4, ..., 512: h from 1/(648 beta) to 512/(81 beta) (about 6.3/beta).
DEFAULT_MULTIPLES = tuple(Fraction(2) ** k for k in range(-3, 10))


@dataclass
class SweepPoint:
    """One point of the sweep.

    Attributes
    ----------
    multiple : Fraction
        m with h = m / (81 beta).
    h, eta_l : Fraction
        Effective step and the local step eta_l = h / (K eta_g).
    lhs, rhs, ratio : Fraction | mpf | None
        weightedGap, convexRHS and lhs/rhs (None if the weights are undefined, q <= 0).
    status : str
        Verdict status (holds / violated / inconclusive / undefined). Where a hypothesis fails
        the theorem claims nothing and the verdict is inconclusive; see ``inequality``.
    hypotheses_hold : bool
        All hypotheses of the theorem hold at this h.
    exact : bool
        lhs and rhs are exact rationals (not certified balls).
    inequality : str
        What lhs <= rhs itself does at this point: "holds", "violated", "undecided" (a ball
        straddling 0) or "undefined" (weights undefined).
    failing : tuple of str
        Keys of the failing hypotheses (e.g. "step_size", "mu_h", "convexity").
    """

    multiple: Fraction
    h: Fraction
    eta_l: Fraction
    lhs: object
    rhs: object
    ratio: object
    status: str
    hypotheses_hold: bool
    exact: bool = True
    inequality: str = "undefined"
    failing: tuple = ()

    @property
    def label(self) -> str:
        """Status column text: the verdict inside the hypotheses, else e.g. "violated (beyond hyp.)"."""
        return status_label(self.status, self.hypotheses_hold, self.inequality)


@dataclass
class SweepResult:
    """All points (sorted by multiple), the first crossing and the instance description."""

    points: list
    first_crossing: SweepPoint | None
    bracket: tuple | None  # (m_below, m_at_or_above) after bisection, or None
    instance: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        num = number_json
        return {
            "instance": self.instance,
            "points": [{"multiple": num(p.multiple), "h": num(p.h), "eta_l": num(p.eta_l), "lhs": num(p.lhs),
                        "rhs": num(p.rhs), "ratio": num(p.ratio), "status": p.status,
                        "inequality": p.inequality, "label": p.label,
                        "hypotheses_hold": p.hypotheses_hold, "failing_hypotheses": list(p.failing)}
                       for p in self.points],
            "first_crossing": None if self.first_crossing is None else num(self.first_crossing.multiple),
            "bracket": None if self.bracket is None else [num(self.bracket[0]), num(self.bracket[1])],
        }


def status_label(status: str, hypotheses_hold: bool, inequality: str | None = None) -> str:
    """Text of a status column (shared wording with ``pyfed worst-case``).

    Inside the hypotheses: the verdict (holds / violated / inconclusive). Where a hypothesis
    fails the theorem claims nothing, so the label says what the inequality itself does there:
    "holds (beyond hyp.)", "violated (beyond hyp.)" or, when no engine certifies either (an SDP
    ratio within its tolerance of 1, a ball containing 0, a solve that is not optimal),
    "inconclusive (beyond hyp.)" (the verdict's reason says why).
    ``inequality`` defaults to the status (older verdicts without ``details["inequality"]``).
    """
    if status == "undefined":
        return "undefined (q <= 0)"
    if hypotheses_hold:
        return status
    ineq = inequality or status
    if ineq in ("undecided", "inconclusive"):
        ineq = "inconclusive"
    return f"{ineq} (beyond hyp.)"


def _point(problem, sigma, m, *, S, K, T, eta_g, x0, c0, mu, arithmetic):
    beta = problem.beta
    h = Fraction(m) / (81 * beta)
    eta_l = h / (K * Fraction(eta_g))
    try:
        v = decide_convex(problem, sigma, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, c0=c0, x0=x0, mu=mu,
                          arithmetic=arithmetic)
    except (ZeroDivisionError, ValueError) as exc:  # q = 1 - mu h / 2 = 0: weights undefined
        if isinstance(exc, InputError) and not isinstance(exc, UndefinedValue):
            raise
        return SweepPoint(Fraction(m), h, eta_l, None, None, None, "undefined", False)
    d = v.details or {}
    failing = tuple(x["key"] for x in d.get("hypotheses", []) if not x["holds"])
    inequality = d.get("inequality") or ("undecided" if v.status == "inconclusive" else v.status)
    return SweepPoint(Fraction(m), h, eta_l, v.lhs, v.rhs, v.ratio, v.status,
                      bool(d.get("hypotheses_hold")), bool(v.exact), inequality, failing)


def _grid_point(m, rng=None, *, problem, sigma, kw):
    """One grid point of :func:`tightness_sweep` (a picklable task for :mod:`pyfed.parallel`)."""
    return _point(problem, sigma, m, **kw)


def tightness_sweep(problem, sigma, *, S, K, T, eta_g=1, multiples=DEFAULT_MULTIPLES, x0=None, c0=None,
                    mu=None, bisect=8, arithmetic="auto", progress=None, workers=None,
                    scheduler=None) -> SweepResult:
    """Sweep h = m/(81 beta) over ``multiples`` and report LHS/RHS of the convex theorem exactly.

    Parameters
    ----------
    problem : QuadraticProblem (rational data for exact ratios).
    sigma : noise level of the Gaussian oracle.
    S, K, T : clients per round, local steps, rounds.
    eta_g : global step (>= 1); eta_l = h / (K eta_g).
    multiples : increasing positive rationals m.
    x0, c0, mu : as in :func:`pyfed.engines.exact.decide_convex`.
    bisect : int
        Exact bisection steps on the first bracket where the ratio reaches 1 (0 = none).
    progress : callable(str) or None, called before each exact point (grid, then bisection) when
        serial, and as grid points finish on Dask.
    workers, scheduler :
        The grid points are decided through :func:`pyfed.parallel.parallel_map` (serial by
        default; ``workers=N`` a local Dask cluster, ``scheduler=ADDRESS`` an existing one);
        results in grid order, the same for any workers. The bisection (each step depends on
        the last) runs in this process.

    Returns
    -------
    SweepResult; ``first_crossing`` is the smallest examined m with ratio >= 1 (None if the
    ratio stays below 1 on the grid), ``bracket`` the final (below, at-or-above) pair.

    Raises
    ------
    InputError
        Non-increasing or non-positive multiples, or the engine's input errors.
    """
    ms = [Fraction(m) for m in multiples]
    if not ms or any(m <= 0 for m in ms) or any(b <= a for a, b in zip(ms, ms[1:])):
        raise InputError("multiples", "must be a non-empty increasing list of positive rationals")
    kw = dict(S=S, K=K, T=T, eta_g=eta_g, x0=x0, c0=c0, mu=mu, arithmetic=arithmetic)

    check_workers(workers, scheduler)
    with Pool(workers=workers, scheduler=scheduler) as pool:
        if pool.serial:
            pts = []
            for m in ms:
                if progress:
                    progress(f"h = {m} / (81 beta)")
                pts.append(_point(problem, sigma, m, **kw))
        else:
            done = [0]

            def advance(k):
                done[0] += k
                if progress:
                    progress(f"{done[0]}/{len(ms)} grid points decided")
            pts = pool.map(functools.partial(_grid_point, problem=problem, sigma=sigma, kw=kw), ms,
                           progress=advance)

    def reached(p):
        return p.ratio is not None and p.ratio >= 1

    first, bracket = None, None
    for i, p in enumerate(pts):
        if reached(p):
            first = p
            if i > 0 and not reached(pts[i - 1]):
                lo, hi = pts[i - 1], p
                extra = []
                for _ in range(int(bisect)):
                    mid = (lo.multiple + hi.multiple) / 2
                    if progress:
                        progress(f"bisection: h = {mid} / (81 beta)")
                    q = _point(problem, sigma, mid, **kw)
                    extra.append(q)
                    if reached(q):
                        hi = q
                    else:
                        lo = q
                first = hi
                bracket = (lo.multiple, hi.multiple)
                pts = sorted(pts + extra, key=lambda z: z.multiple)
            break
    inst = {"problem": getattr(problem, "name", "quadratic"), "N": problem.N, "d": problem.d,
            "beta": str(problem.beta), "mu": str(problem.mu if mu is None else mu), "sigma": str(sigma),
            "S": S, "K": K, "T": T, "eta_g": str(eta_g)}
    return SweepResult(points=pts, first_crossing=first, bracket=bracket, instance=inst)


def default_instance(seed: int = 0, *, N: int = 4, d: int = 2):
    """The sweep's default: N rational quadratic clients (mu = 1/10, L = 1) in dimension d."""
    return random_quadratic(N, d, np.random.default_rng(seed), rational=True, mu=Fraction(1, 10), L=1,
                            heterogeneity=1, name=f"quadratic-rational-N{N}-d{d}-seed{seed}")


