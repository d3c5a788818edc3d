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
           "plot_sweep", "sweep_figure", "status_label", "sweep_multiples", "summary_text", "register", "run"]

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
    "holds (beyond hyp.)", "violated (beyond hyp.)" or "undecided (beyond hyp.)".
    ``inequality`` defaults to the status (older verdicts without ``details["inequality"]``).
    """
    if status == "undefined":
        return "undefined (q <= 0)"
    if hypotheses_hold:
        return status
    ineq = inequality or ("undecided" if status == "inconclusive" else status)
    return f"{ineq} (beyond hyp.)"


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
    d = v.details or {}
    failing = tuple(x["key"] for x in d.get("hypotheses", []) if not x["holds"])
    inequality = d.get("inequality") or ("undecided" if v.status == "inconclusive" else v.status)
    return SweepPoint(Fraction(m), h, eta_l, v.lhs, v.rhs, v.ratio, v.status,
                      bool(d.get("hypotheses_hold")), bool(v.exact), inequality, failing)


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
    """Save ratio vs m (log-log) as a PNG at ``path`` (matplotlib Agg backend); returns the path.

    Title: the instance (N, S, K, T, sigma, mu); legend: points inside / beyond the hypotheses,
    the level LHS = RHS, the hypothesis boundary h = 1/(81 beta) and the first crossing.
    """
    import matplotlib.pyplot as plt

    fig = sweep_figure(result)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def sweep_figure(result: SweepResult):
    """The matplotlib Figure of :func:`plot_sweep` (Agg backend; the caller closes it)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pts = [p for p in result.points if p.ratio is not None and as_float(p.ratio) > 0]
    fig, ax = plt.subplots(figsize=(9.0, 4.8))
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
    ax.axvline(1.0, color="k", ls=":", lw=1.2, label="h = 1/(81 beta) (hypothesis)")
    if result.first_crossing is not None:
        fc = result.first_crossing
        ax.axvline(as_float(fc.multiple), color="tab:red", ls="-.", lw=1.2,
                   label=f"first LHS >= RHS: h = {fc.multiple}/(81 beta)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    if xs:
        ax.set_xlim(min(min(xs), 1.0) / 1.5, max(max(xs), 1.0) * 1.5)
    ax.set_xlabel("h * 81 beta")
    ax.set_ylabel("weightedGap / convexRHS (exact)")
    i = result.instance
    ax.set_title("SCAFFOLD convex bound tightness: "
                 f"N={i.get('N')}, S={i.get('S')}, K={i.get('K')}, T={i.get('T')}, "
                 f"sigma={i.get('sigma')}, mu={i.get('mu')}", fontsize=11)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.tight_layout()
    return fig


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
        "tightness", help="exact LHS/RHS of the convex SCAFFOLD bound as h crosses 1/(81 beta)",
        description="Exact LHS/RHS of SCAFFOLD.ConvexFiniteRoundConvergence on a random rational "
                    "quadratic, at h = m/(81 beta) for m = 1/8, 1/4, ..., --max-multiple (powers of "
                    "two), with exact bisection of the first crossing. Writes tightness.png and "
                    "tightness.json.")
    p.add_argument("--out", default=".", metavar="DIR", help="directory for tightness.png/.json (default .)")
    p.add_argument("--seed", type=int, default=0, help="seed (>= 0) of the random quadratic instance (default 0)")
    p.add_argument("--N", type=int, default=4, help="clients (default 4)")
    p.add_argument("--d", type=int, default=2, help="dimension (default 2)")
    p.add_argument("--S", type=int, default=2, help="clients per round, 1 <= S <= N (default 2)")
    p.add_argument("--K", type=int, default=2, help="local steps >= 1 (default 2)")
    p.add_argument("--T", type=int, default=10, help="rounds >= 1 (default 10)")
    p.add_argument("--sigma", default="1/2", help="noise level >= 0, a rational such as 1/2 (default 1/2)")
    p.add_argument("--eta-g", dest="eta_g", default="1", help="global step >= 1 (default 1)")
    p.add_argument("--mu", default="0", help="mu >= 0 of the weights, rational (default 0: uniform weights; "
                                             "'problem' uses the problem's mu; a mu above the problem's "
                                             "strong convexity fails the convexity hypothesis)")
    p.add_argument("--max-multiple", dest="max_multiple", type=int, default=512,
                   help="largest m = h*81*beta swept; must be a power of two >= 1 (default 512)")
    p.set_defaults(func=run)


def _rational_arg(name, text):
    try:
        return Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        raise InputError(name, f"must be a rational number such as 1/2, got {text!r}") from None


def sweep_multiples(max_multiple: int) -> list:
    """The multiples m swept by ``pyfed tightness``: 1/8, 1/4, ..., ``max_multiple`` (powers of two).

    Raises InputError(argument="--max-multiple") unless ``max_multiple`` is a power of two >= 1.
    """
    maxm = check_int("--max-multiple", max_multiple)
    if maxm < 1 or maxm & (maxm - 1):
        raise InputError("--max-multiple", f"must be a power of two >= 1 (1, 2, 4, ..., 512, ...), got {maxm}")
    return [Fraction(2) ** k for k in range(-3, maxm.bit_length())]


def summary_text(res: SweepResult) -> str:
    """One-sentence summary of a sweep; never claims more than the swept points show."""
    if res.first_crossing is None:
        largest = max(p.multiple for p in res.points)
        return f"The ratio LHS/RHS stays below 1 at every swept h <= {largest}/(81 beta)."
    fc = res.first_crossing
    msg = f"The ratio first reaches 1 at h = {fc.multiple}/(81 beta) (ratio {as_float(fc.ratio):.6g}"
    msg += "; all hypotheses hold there)" if fc.hypotheses_hold else \
        f"; beyond the hypotheses, failing there: {', '.join(fc.failing) or 'some hypothesis'})"
    if res.bracket:
        msg += f"; bisection bracket [{res.bracket[0]}, {res.bracket[1]}] / (81 beta)"
    return msg + "."


def _validated(args) -> dict:
    """Check every command-line number; InputError naming the flag (``--K`` etc.)."""
    N = check_int("--N", args.N, minimum=1)
    d = check_int("--d", args.d, minimum=1)
    S = check_int("--S", args.S, minimum=1)
    if S > N:
        raise InputError("--S", f"clients per round S={S} cannot exceed the number of clients N={N}")
    K = check_int("--K", args.K, minimum=1)
    T = check_int("--T", args.T, minimum=1)
    seed = check_int("--seed", args.seed, minimum=0)
    sigma = _rational_arg("--sigma", args.sigma)
    if sigma < 0:
        raise InputError("--sigma", f"noise level must be >= 0, got {args.sigma}")
    eta_g = _rational_arg("--eta-g", args.eta_g)
    if eta_g < 1:
        raise InputError("--eta-g", f"global step must be >= 1 (hypothesis of the theorem), got {args.eta_g}")
    mu = None
    if str(args.mu) != "problem":
        mu = _rational_arg("--mu", args.mu)
        if mu < 0:
            raise InputError("--mu", f"must be >= 0, got {args.mu}")
    multiples = sweep_multiples(args.max_multiple)
    return dict(N=N, d=d, S=S, K=K, T=T, seed=seed, sigma=sigma, eta_g=eta_g, mu=mu, multiples=multiples)


def run(args) -> int:
    """Run the sweep from parsed arguments; prints a table, writes tightness.png and tightness.json.

    Returns exit status 0 (the sweep is a report, not a check). Raises InputError naming the
    flag for a bad number (``--K 0``, ``--sigma -1``, ``--max-multiple 100``, ...) or an
    ``--out`` that cannot be created.
    """
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:  # pipes and files: rich would assume 80 columns
        console = Console(width=120)
    a = _validated(args)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as exc:
        raise InputError("--out", f"cannot create directory {args.out!r}: {exc.strerror or exc}") from None
    problem = default_instance(a["seed"], N=a["N"], d=a["d"])
    res = tightness_sweep(problem, a["sigma"], S=a["S"], K=a["K"], T=a["T"], eta_g=a["eta_g"],
                          multiples=a["multiples"], mu=a["mu"])
    t = Table(title=f"SCAFFOLD.ConvexFiniteRoundConvergence on {problem.name}: h = m/(81 beta), "
                    f"exact values ({'exact' if all(p.exact for p in res.points) else 'ball'})",
              caption="hypotheses: failing hypothesis keys (step_size: h <= 1/(81 beta); mu_h: mu h <= S/(15 N); "
                      "convexity: every f_i mu-strongly convex). Beyond the hypotheses the theorem claims "
                      "nothing; the status then says what LHS <= RHS itself does.")
    for col in ("h*81beta", "LHS", "RHS", "LHS/RHS", "hypotheses", "status"):
        t.add_column(col)
    for p in res.points:
        fmt = (lambda v: "-" if v is None else f"{as_float(v):.6g}")
        hyp = "hold" if p.hypotheses_hold else ("FAIL: " + ", ".join(p.failing) if p.failing else "FAIL")
        t.add_row(str(p.multiple), fmt(p.lhs), fmt(p.rhs), fmt(p.ratio), hyp, p.label)
    console.print(t)
    console.print(summary_text(res), highlight=False)
    if a["mu"] is not None and all("convexity" in p.failing for p in res.points if p.status != "undefined"):
        console.print(f"--mu {args.mu} exceeds the problem's certified strong convexity mu = {problem.mu}: "
                      "the convexity hypothesis fails at every point.", highlight=False)
    png = plot_sweep(res, os.path.join(args.out, "tightness.png"))
    with open(os.path.join(args.out, "tightness.json"), "w", encoding="utf-8") as fh:
        json.dump(res.to_json(), fh, indent=1)
    console.print(f"plot written to {png}", highlight=False)
    return 0
