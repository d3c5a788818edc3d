"""``pyfed tightness``: exact LHS/RHS of the convex SCAFFOLD bound as h crosses 1/(81 beta).

The sweep itself is :func:`pyfed.engines.tightness.tightness_sweep`; this module parses and
validates the command line, prints the table and writes tightness.png (ratio against m on log
axes with the hypothesis boundary m = 1 and the level ratio = 1) and tightness.json.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction

from rich.markup import escape

from ..engines.tightness import SweepResult, default_instance, tightness_sweep
from ..errors import EXIT_OK, EXIT_VIOLATED, InputError, check_int, prepare_output_dir
from ..exact import as_float, format_number
from ..parallel import check_workers
from . import COMMAND_HELP
from .search import add_parallel_arguments

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run", "plot_sweep", "sweep_figure", "sweep_multiples", "summary_text"]


#: Ratios above this are drawn as off-scale markers (a float log axis cannot hold ~1e308).
OFF_SCALE = 1e250


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
    every = [p for p in result.points if p.ratio is not None and p.ratio > 0]
    # ratios near or beyond the float range (huge exact rationals far beyond the hypotheses) cannot
    # be drawn on a float log axis: they are marked at the top edge instead (the table and
    # tightness.json have their values)
    pts = [p for p in every if as_float(p.ratio) <= OFF_SCALE]
    off = [p for p in every if not as_float(p.ratio) <= OFF_SCALE]
    fig, ax = plt.subplots(figsize=(9.0, 4.8))
    xs = [as_float(p.multiple) for p in pts]
    ys = [as_float(p.ratio) for p in pts]
    ax.plot(xs, ys, "-", color="0.6", lw=1)
    if off:
        top = max(ys + [1.0]) * 10
        ax.plot([as_float(p.multiple) for p in off], [top] * len(off), "^", color="tab:purple",
                label=f"LHS/RHS > {OFF_SCALE:.0e}: off scale (values in the table / JSON)")
        xs = xs + [as_float(p.multiple) for p in off]
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


# ----------------------------------------------------------------------------------------
# command line
# ----------------------------------------------------------------------------------------

def register(subparsers) -> None:
    """Add the ``tightness`` subcommand to an argparse subparsers object (sets func=run)."""
    p = subparsers.add_parser(
        "tightness", help=COMMAND_HELP["tightness"],
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
                   help="largest m = 81 beta h swept; must be a power of two >= 1 (default 512)")
    add_parallel_arguments(p, "the grid points")
    from ..resources import add_limit_arguments
    add_limit_arguments(p)
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
    msg = f"The ratio first reaches 1 at h = {fc.multiple}/(81 beta) (ratio {format_number(fc.ratio)}"
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


#: Exact bisection steps after the grid (tightness_sweep's default).
BISECT = 8
#: Defaults of the size options, for naming the one to lower (pyfed.resources.blame).
SIZE_DEFAULTS = {"--N": 4, "--d": 2, "--K": 2, "--T": 10, "--max-multiple": 512}


def sweep_cost(a: dict):
    """(estimated :class:`pyfed.resources.Cost`, option to lower) of the sweep of validated
    arguments ``a`` (:func:`pyfed.resources.exact_sweep`: the rational instance, then one
    exact point per multiple and per bisection step)."""
    from .. import resources

    def estimate(**kw):
        points = kw["--max-multiple"].bit_length() + 3 + BISECT
        return resources.exact_sweep(kw["--N"], kw["--d"], kw["--K"], kw["--T"], points)

    values = {"--N": a["N"], "--d": a["d"], "--K": a["K"], "--T": a["T"], "--max-multiple": max(a["multiples"])}
    values["--max-multiple"] = int(values["--max-multiple"])
    return estimate(**values), resources.blame(estimate, values, SIZE_DEFAULTS)


def run(args) -> int:
    """Run the sweep from parsed arguments; prints a table, writes tightness.png and tightness.json.

    Returns exit status 1 if a point *inside* the hypotheses is violated (a violated verdict of
    the theorem), else 0 (beyond the hypotheses the sweep is a report). Raises InputError naming
    the flag for a bad number (``--K 0``, ``--sigma -1``, ``--max-multiple 100``, ...) or an
    ``--out`` that cannot be created or written, before any computation. Progress (one step per
    exact point) is shown on stderr and disappears when done.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from . import make_console, make_progress, print_line
    from .display import print_table

    console = make_console()  # pipes and files: rich would assume 80 columns
    a = _validated(args)
    check_workers(args.workers, args.scheduler)
    cost, option = sweep_cost(a)
    from ..resources import limits_from_args, refuse_if_over
    refuse_if_over(cost, limits_from_args(args), option)
    prepare_output_dir("--out", args.out)
    problem = default_instance(a["seed"], N=a["N"], d=a["d"])
    with make_progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn()) as progress:
        task = progress.add_task("tightness: exact points", total=len(a["multiples"]))
        state = {"n": 0}

        def tick(label):  # called before each exact point: the grid, then the bisection
            state["n"] += 1
            progress.update(task, completed=state["n"] - 1, total=max(len(a["multiples"]), state["n"]),
                            description=f"tightness: {label}")

        res = tightness_sweep(problem, a["sigma"], S=a["S"], K=a["K"], T=a["T"], eta_g=a["eta_g"],
                              multiples=a["multiples"], mu=a["mu"], progress=tick,
                              workers=args.workers, scheduler=args.scheduler)
    t = Table(title=escape(f"SCAFFOLD.ConvexFiniteRoundConvergence on {problem.name}: h = m/(81 beta), "
                           f"exact values ({'exact' if all(p.exact for p in res.points) else 'ball'})"))
    legend = ("hypotheses: failing hypothesis keys (step_size: h <= 1/(81 beta); mu_h: mu h <= S/(15 N); "
              "convexity: every f_i mu-strongly convex). Beyond the hypotheses the theorem claims "
              "nothing; the status then says what LHS <= RHS itself does.")
    for col in ("h*81beta", "LHS", "RHS", "LHS/RHS", "hypotheses", "status"):
        t.add_column(col)
    for p in res.points:
        fmt = format_number  # exact rationals correctly rounded at any magnitude
        hyp = "hold" if p.hypotheses_hold else ("FAIL: " + ", ".join(p.failing) if p.failing else "FAIL")
        t.add_row(str(p.multiple), fmt(p.lhs), fmt(p.rhs), fmt(p.ratio), hyp, p.label)
    with open(os.path.join(args.out, "tightness.json"), "w", encoding="utf-8") as fh:   # files first
        json.dump(res.to_json(), fh, indent=1)
    png = plot_sweep(res, os.path.join(args.out, "tightness.png"))
    print_table(console, t)
    print_line(console, legend, highlight=False)       # under the table, one line in a log
    print_line(console, summary_text(res), highlight=False)
    if a["mu"] is not None and all("convexity" in p.failing for p in res.points if p.status != "undefined"):
        print_line(console, escape(f"--mu {args.mu} exceeds the problem's certified strong convexity mu = {problem.mu}: "
                             "the convexity hypothesis fails at every point."), highlight=False)
    print_line(console, f"plot written to {escape(str(png))}", highlight=False)
    inside_violation = any(p.hypotheses_hold and p.status == "violated" for p in res.points)
    return EXIT_VIOLATED if inside_violation else EXIT_OK
