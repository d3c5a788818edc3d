"""Tightness sweep of ``SCAFFOLD.ConvexFiniteRoundConvergence`` on a quadratic instance.

For h = m / (81 beta) with multiples m from well inside the step hypothesis (m <= 1) to far
beyond it, the left side weightedGap and the right side convexRHS are computed *exactly*
(:func:`pyfed.expectation.exact_moments.decide_convex`), and the ratio LHS/RHS is reported
per point. The first grid point where the ratio reaches 1 is located, then the bracket
(previous multiple, that multiple) is bisected in exact rationals to localise the crossing.
A PNG plot (matplotlib, Agg backend) shows ratio against m on log axes with the hypothesis
boundary m = 1 and the level ratio = 1.

Command line: ``pyfed tightness [--out DIR] [--seed N] [...]`` (see :func:`register`).

Source: seed 000 (``SCAFFOLD.ConvexFiniteRoundConvergence``, hypothesis h <= 1/(81 beta));
Karimireddy et al., SCAFFOLD, arXiv:1910.06378v4, Appendix E.1, PDF pp. 30-31.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .errors import InputError, check_int
from .exact import as_float, number_json

__all__ = ["SweepPoint", "SweepResult", "DEFAULT_MULTIPLES", "tightness_sweep", "default_instance",
           "plot_sweep", "register", "run"]

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
        Verdict status (holds / violated / inconclusive / undefined).
    hypotheses_hold : bool
        All hypotheses of the theorem hold at this h.
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
                        "hypotheses_hold": p.hypotheses_hold} for p in self.points],
            "first_crossing": None if self.first_crossing is None else num(self.first_crossing.multiple),
            "bracket": None if self.bracket is None else [num(self.bracket[0]), num(self.bracket[1])],
        }


def _point(problem, sigma, m, *, S, K, T, eta_g, x0, c0, mu, arithmetic):
    from .expectation.exact_moments import decide_convex
    beta = problem.beta
    h = Fraction(m) / (81 * beta)
    eta_l = h / (K * Fraction(eta_g))
    try:
        v = decide_convex(problem, sigma, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, c0=c0, x0=x0, mu=mu,
                          arithmetic=arithmetic)
    except (ZeroDivisionError, ValueError) as exc:  # q = 1 - mu h / 2 <= 0: weights undefined
        if isinstance(exc, InputError):
            raise
        return SweepPoint(Fraction(m), h, eta_l, None, None, None, "undefined", False)
    return SweepPoint(Fraction(m), h, eta_l, v.lhs, v.rhs, v.ratio, v.status,
                      bool(v.details.get("hypotheses_hold")), bool(v.exact))


def tightness_sweep(problem, sigma, *, S, K, T, eta_g=1, multiples=DEFAULT_MULTIPLES, x0=None, c0=None,
                    mu=None, bisect=8, arithmetic="auto", progress=None) -> SweepResult:
    """Sweep h = m/(81 beta) over ``multiples`` and report LHS/RHS of the convex theorem exactly.

    Parameters
    ----------
    problem : QuadraticProblem (rational data for exact ratios).
    sigma : noise level of the Gaussian oracle.
    S, K, T : clients per round, local steps, rounds.
    eta_g : global step (>= 1); eta_l = h / (K eta_g).
    multiples : increasing positive rationals m.
    x0, c0, mu : as in :func:`pyfed.expectation.exact_moments.decide_convex`.
    bisect : int
        Exact bisection steps on the first bracket where the ratio reaches 1 (0 = none).
    progress : callable(str) or None.

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
    pts = []
    for m in ms:
        if progress:
            progress(f"h = {m} / (81 beta)")
        pts.append(_point(problem, sigma, m, **kw))

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


def plot_sweep(result: SweepResult, path: str) -> str:
    """Save ratio vs m (log-log) as a PNG at ``path`` (matplotlib Agg backend); returns the path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = [p for p in result.points if p.ratio is not None and as_float(p.ratio) > 0]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    xs = [as_float(p.multiple) for p in pts]
    ys = [as_float(p.ratio) for p in pts]
    ax.plot(xs, ys, "-", color="0.6", lw=1)
    inside = [(x, y) for x, y, p in zip(xs, ys, pts) if p.hypotheses_hold]
    outside = [(x, y) for x, y, p in zip(xs, ys, pts) if not p.hypotheses_hold]
    if inside:
        ax.plot(*zip(*inside), "o", color="tab:green", label="all hypotheses hold")
    if outside:
        ax.plot(*zip(*outside), "s", color="tab:orange", label="some hypothesis fails")
    ax.axhline(1.0, color="tab:red", ls="--", lw=1, label="LHS = RHS")
    ax.axvline(1.0, color="k", ls=":", lw=1, label="h = 1/(81 beta)")
    if result.first_crossing is not None:
        ax.axvline(as_float(result.first_crossing.multiple), color="tab:red", ls=":", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("h * 81 beta")
    ax.set_ylabel("weightedGap / convexRHS (exact)")
    i = result.instance
    ax.set_title(f"SCAFFOLD convex bound tightness: N={i.get('N')}, S={i.get('S')}, K={i.get('K')}, T={i.get('T')}",
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def default_instance(seed: int = 0, *, N: int = 4, d: int = 2):
    """The sweep's default: N rational quadratic clients (mu = 1/10, L = 1) in dimension d."""
    from .problems import random_quadratic
    return random_quadratic(N, d, np.random.default_rng(seed), rational=True, mu=Fraction(1, 10), L=1,
                            heterogeneity=1, name=f"quadratic-rational-N{N}-d{d}-seed{seed}")


# ----------------------------------------------------------------------------------------
# command line
# ----------------------------------------------------------------------------------------

def register(subparsers) -> None:
    """Add the ``tightness`` subcommand to an argparse subparsers object (sets func=run)."""
    p = subparsers.add_parser(
        "tightness", help="exact LHS/RHS of the convex SCAFFOLD bound as h crosses 1/(81 beta)")
    p.add_argument("--out", default=".", metavar="DIR", help="directory for tightness.png/.json (default .)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random quadratic instance (default 0)")
    p.add_argument("--N", type=int, default=4, help="clients (default 4)")
    p.add_argument("--d", type=int, default=2, help="dimension (default 2)")
    p.add_argument("--S", type=int, default=2, help="clients per round (default 2)")
    p.add_argument("--K", type=int, default=2, help="local steps (default 2)")
    p.add_argument("--T", type=int, default=10, help="rounds (default 10)")
    p.add_argument("--sigma", default="1/2", help="noise level, a rational such as 1/2 (default 1/2)")
    p.add_argument("--eta-g", dest="eta_g", default="1", help="global step >= 1 (default 1)")
    p.add_argument("--mu", default="0", help="mu of the weights, rational (default 0: uniform weights; "
                                             "'problem' uses the problem's mu)")
    p.add_argument("--max-multiple", dest="max_multiple", type=int, default=512,
                   help="largest m = h*81*beta, a power of two (default 512)")
    p.set_defaults(func=run)


def _rational_arg(name, text):
    try:
        return Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        raise InputError(name, f"must be a rational number such as 1/2, got {text!r}") from None


def run(args) -> int:
    """Run the sweep from parsed arguments; prints a table, writes tightness.png and tightness.json.

    Returns exit status 0 (the sweep is a report, not a check).
    """
    from rich.console import Console
    from rich.table import Table

    console = Console()
    N = check_int("N", args.N, minimum=1)
    d = check_int("d", args.d, minimum=1)
    maxm = check_int("max_multiple", args.max_multiple, minimum=1)
    sigma = _rational_arg("sigma", args.sigma)
    eta_g = _rational_arg("eta_g", args.eta_g)
    mu = None if str(args.mu) == "problem" else _rational_arg("mu", args.mu)
    problem = default_instance(args.seed, N=N, d=d)
    multiples = [m for m in DEFAULT_MULTIPLES if m <= maxm]
    k = 10
    while Fraction(2) ** k <= maxm:
        multiples.append(Fraction(2) ** k)
        k += 1
    res = tightness_sweep(problem, sigma, S=args.S, K=args.K, T=args.T, eta_g=eta_g, multiples=multiples, mu=mu)
    t = Table(title=f"SCAFFOLD.ConvexFiniteRoundConvergence on {problem.name}: h = m/(81 beta), "
                    f"exact values ({'exact' if all(p.exact for p in res.points) else 'ball'})")
    for col in ("h*81beta", "LHS", "RHS", "LHS/RHS", "hypotheses", "verdict"):
        t.add_column(col)
    for p in res.points:
        fmt = (lambda v: "-" if v is None else f"{as_float(v):.6g}")
        t.add_row(str(p.multiple), fmt(p.lhs), fmt(p.rhs), fmt(p.ratio), "hold" if p.hypotheses_hold else "fail", p.status)
    console.print(t)
    if res.first_crossing is None:
        console.print(f"The ratio stays below 1 for every h up to {maxm}/(81 beta).")
    else:
        fc = res.first_crossing
        msg = f"The ratio first reaches 1 at h = {fc.multiple}/(81 beta) (ratio {as_float(fc.ratio):.6g})"
        if res.bracket:
            msg += f"; bisection bracket [{res.bracket[0]}, {res.bracket[1]}] / (81 beta)"
        console.print(msg + ".")
    os.makedirs(args.out, exist_ok=True)
    png = plot_sweep(res, os.path.join(args.out, "tightness.png"))
    with open(os.path.join(args.out, "tightness.json"), "w", encoding="utf-8") as fh:
        json.dump(res.to_json(), fh, indent=1)
    console.print(f"plot written to {png}")
    return 0
