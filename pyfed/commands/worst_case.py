"""pyfed worst-case: worst/bound of deterministic SCAFFOLD over the whole function class.

Sweeps the effective step h = m/(81 beta) (m = 1 is the limit of
``SCAFFOLD.ConvexFiniteRoundConvergence``; the sweep goes to m = 162, i.e. h = 2/beta), the
number of local steps K, the strong convexity mu and the number of rounds T, solving one
performance-estimation SDP per point (:func:`pyfed.engines.pep.worst_case_scaffold`,
sigma = 0, S = N). Prints a table, writes a PNG plot of worst/bound against m and a JSON file,
and reports the smallest constant c (on the swept grid) such that h <= 1/(c beta) keeps
worst/bound <= 1 (among points satisfying the theorem's other hypotheses, e.g. mu h <= S/(15 N)).

Exit status: 1 if a violation is found *inside* the theorem's hypotheses, else 0 (violations
beyond the hypotheses are the point of the sweep, not an error).
"""

from __future__ import annotations

import json
import os
from fractions import Fraction

from rich.markup import escape

from ..errors import EXIT_OK, EXIT_VIOLATED, InputError, prepare_output_dir
from ..parallel import check_workers
from . import COMMAND_HELP
from .search import add_parallel_arguments

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run", "summary_lines", "verdict_label", "QUICK_GRID", "FULL_GRID"]

#: Grid of ``pyfed worst-case --quick`` (20 small SDPs, a few seconds).
QUICK_GRID = dict(multiples=(1, 27, 81, 135, 162), Ks=(1, 2), mus=(0, Fraction(1, 20)), Ts=(2,))
#: Default grid (162 SDPs, N*K*T <= 24; a few minutes on one core).
FULL_GRID = dict(multiples=(1, 3, 9, 27, 54, 81, 108, 135, 162), Ks=(1, 2, 3),
                 mus=(0, Fraction(1, 20), Fraction(1, 5)), Ts=(2, 4))


def register(subparsers) -> None:
    """Add the ``worst-case`` subcommand to an argparse ``subparsers`` object (sets ``func=run``)."""
    p = subparsers.add_parser(
        "worst-case",
        help=COMMAND_HELP["worst-case"],
        description=__doc__.splitlines()[0])
    p.add_argument("--out", default="worst-case-out", metavar="DIR",
                   help="directory for worst_case.png and worst_case.json (default ./worst-case-out)")
    p.add_argument("--quick", action="store_true", help="small grid (h multiples 1,27,81,135,162; K 1,2; T 2)")
    p.add_argument("--clients", "-N", type=int, default=2, dest="N", help="number of clients N = S (default 2)")
    p.add_argument("--eta-g", default="1", help="global step eta_g >= 1 (default 1); eta_l = h/(K eta_g)")
    p.add_argument("--solver", default=None, help="cvxpy SDP solver (default CLARABEL)")
    p.add_argument("--no-verify", action="store_true",
                   help="do not re-verify claimed violations on exact quadratic instances")
    add_parallel_arguments(p, "the grid points")
    from ..resources import add_limit_arguments
    add_limit_arguments(p)
    p.set_defaults(func=run)


_STATUS = {"optimal": "opt", "optimal_inaccurate": "opt_inacc"}
_HYP = {"step_size": "h", "mu_h": "mu*h", "eta_g": "eta_g"}


def _f(v, digits=4):
    if v is None:
        return "-"
    return f"{float(v):.{digits}g}"


def run(args) -> int:
    """Run the sweep described by parsed ``args`` (see :func:`register`); returns the exit status."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from ..engines.pep import DEFAULT_SOLVER, smallest_constant, sweep_scaffold
    from . import make_console, make_progress, print_line
    from .display import print_table

    console = make_console()  # pipes and files: rich would assume 80 columns
    if args.N < 1:
        raise InputError("--clients", f"must be >= 1, got {args.N}")
    if args.solver is not None:
        import cvxpy

        if args.solver.upper() not in cvxpy.installed_solvers():
            raise InputError("--solver", f"unknown or not installed SDP solver {args.solver!r}; installed: "
                                         f"{', '.join(cvxpy.installed_solvers())}")
    try:
        eta_g = Fraction(args.eta_g)
    except (ValueError, ZeroDivisionError):
        raise InputError("--eta-g", f"must be a number such as 1 or 3/2, got {args.eta_g!r}") from None
    if eta_g < 1:
        raise InputError("--eta-g", f"must be >= 1 (hypothesis of the theorem), got {args.eta_g}")
    grid = QUICK_GRID if args.quick else FULL_GRID
    from .. import resources
    resources.refuse_if_over(resources.pep_sweep(args.N, grid), resources.limits_from_args(args), "--clients")
    prepare_output_dir("--out", args.out)
    check_workers(args.workers, args.scheduler)
    with make_progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn()) as progress:       # on stderr, when it is a terminal
        points = len(grid["multiples"]) * len(grid["Ks"]) * len(grid["mus"]) * len(grid["Ts"])
        task = progress.add_task("worst case", total=points)
        seen = [0]

        def tick(label):      # called as each grid point starts
            seen[0] += 1
            progress.update(task, completed=min(seen[0] - 1, points), description=escape(f"PEP {label}"))

        results = sweep_scaffold(**grid, N=args.N, eta_g=eta_g, beta=1, solver=args.solver,
                                 verify=not args.no_verify, progress=tick,
                                 workers=args.workers, scheduler=args.scheduler)

    table = Table(title=f"PEP worst case, deterministic SCAFFOLD (N = S = {args.N}, sigma = 0, beta = 1, "
                        f"eta_g = {eta_g})")
    legend = ("worst = sup weightedGap over the class with V0 <= 1; bound = V0/(h W_T); "
              "ratio = worst/bound; status = SDP solver status; s = solve seconds; "
              "hyp. = failing hypotheses (h: h <= 1/(81 beta))")
    for col in ("K", "mu", "T", "81*beta*h", "worst", "bound", "ratio", "status", "s", "hyp.", "verdict"):
        table.add_column(col)
    style = {"holds": "green", "violated": "red", "inconclusive": "yellow"}
    inside_violation = False
    undecided = []  # (row text, reason) of the points without a certificate either way
    for r in results:
        p = r.parameters
        bad = [h["key"] for h in r.details["hypotheses"] if not h["holds"]]
        v = r.verdict.status
        if v == "violated" and not bad:
            inside_violation = True
        table.add_row(str(p["K"]), p["mu"], str(p["T"]), str(p["m"]), _f(r.worst), _f(r.bound),
                      _f(r.ratio), _STATUS.get(r.status, r.status[:12]), f"{r.solve_time:.2f}",
                      "ok" if not bad else "FAIL:" + ",".join(_HYP.get(b, b) for b in bad),
                      f"[{style[v]}]{verdict_label(r.verdict, not bad)}[/]")
        if v == "inconclusive" and (not bad or r.verdict.details.get("inequality") in ("undecided", None)):
            undecided.append((f"K={p['K']}, mu={p['mu']}, T={p['T']}, h={p['m']}/(81 beta)",
                              getattr(r.verdict, "reason", "") or "no certificate"))
    sc = smallest_constant(results)
    png = os.path.join(args.out, "worst_case.png")      # files first: never lost to an error while printing
    js = os.path.join(args.out, "worst_case.json")
    with open(js, "w", encoding="utf-8") as fh:
        json.dump({
            "solver": args.solver or DEFAULT_SOLVER, "N": args.N, "eta_g": str(eta_g), "beta": "1", "sigma": "0",
            "smallest_constant": {k: (str(v) if isinstance(v, Fraction) else v) for k, v in sc.items()},
            "results": [_result_json(r) for r in results],
        }, fh, indent=1, default=str)
    _plot(results, png, args.N)
    print_table(console, table)
    print_line(console, legend, highlight=False)       # under the table, one line in a log
    for where, why in undecided:
        print_line(console, escape(f"inconclusive at {where}: {why}"), highlight=False)
    for line in summary_lines(sc):
        print_line(console, line, highlight=False)
    if not sc["all_optimal"]:
        print_line(console, "[yellow]Some solves were not optimal; they are inconclusive and were ignored for c.[/yellow]")
    print_line(console, escape(f"plot written to {png}; data written to {js}"))
    return EXIT_VIOLATED if inside_violation else EXIT_OK


def _result_json(r) -> dict:
    """One grid point of ``worst_case.json``: :meth:`WorstCaseResult.to_json` (whose ``verdict``
    carries ``reason`` when it is inconclusive) plus ``label``, the table's verdict column, e.g.
    "inconclusive (beyond hyp.)" where no certificate decides the inequality beyond the hypotheses."""
    out = r.to_json()
    hyps = (r.details or {}).get("hypotheses", [])
    out["label"] = verdict_label(r.verdict, all(h["holds"] for h in hyps))
    return out


def verdict_label(verdict, hypotheses_hold: bool) -> str:
    """Verdict column text, worded as in ``pyfed tightness``: the verdict inside the hypotheses,
    else what the inequality does there, e.g. "violated (beyond hyp.)"."""
    from ..engines.tightness import status_label

    return status_label(verdict.status, hypotheses_hold, (verdict.details or {}).get("inequality"))


def summary_lines(sc: dict) -> list:
    """Plain-language summary of :func:`pyfed.engines.pep.smallest_constant`'s dict.

    Says the smallest c on the swept grid such that h <= 1/(c beta) keeps worst/bound <= 1,
    next to the theorem's c = 81, and the first swept step that fails (if any).
    """
    lines = []
    if sc.get("m_star") is None:
        if sc.get("m_fail") is not None:
            lines.append(f"worst/bound > 1 already at the smallest swept step h = {sc['m_fail']}/(81 beta): "
                         "no constant c is certified on this grid (the theorem uses c = 81).")
        else:
            lines.append("No optimal solve was usable for the constant c (the theorem uses c = 81).")
    elif sc.get("m_fail") is None:
        lines.append(f"smallest c on the swept grid such that h <= 1/(c beta) keeps worst/bound <= 1: "
                     f"c = {_f(sc['c'])} (the theorem uses c = 81); no swept step fails, up to "
                     f"h = {sc['grid_max']}/(81 beta), so c may be smaller still.")
    else:
        lo = Fraction(81, sc["m_fail"])
        lines.append(f"smallest c on the swept grid such that h <= 1/(c beta) keeps worst/bound <= 1: "
                     f"c = {_f(sc['c'])} (the theorem uses c = 81); first failure at "
                     f"h = {sc['m_fail']}/(81 beta) = 1/({_f(lo)} beta). On this grid only (sigma = 0, S = N, "
                     f"the swept K, mu, T and h; the ratio need not be monotone in h) the critical constant "
                     f"lies in ({_f(lo)}, {_f(sc['c'])}].")
        if sc.get("m_fail_reproduced") is True:
            lines[-1] += " The failure was reproduced exactly on a quadratic instance."
        elif sc.get("m_fail_reproduced") is False:
            lines[-1] += (" The failure is PEP's numerical claim only: the exact re-verification on a "
                          "quadratic instance did not reproduce it, so the lower end is not certified.")
    if sc.get("excluded"):
        lines.append(f"({sc['excluded']} of {sc['used'] + sc['excluded']} points violate another hypothesis, "
                     "mu h <= S/(15 N), and are not used for c.)")
    return lines


_COLORS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
           "tab:cyan")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINESTYLES = ("-", "--", ":", "-.")


def series_style(K, mu, T, series) -> tuple:
    """(colour, marker, linestyle) of the (K, mu, T) series of the worst-case plot: colour by K,
    marker by mu, line style by T, so every series of the grid (18 in the full sweep) has a
    distinct combination and the legend is unambiguous (cycled only beyond 8 K, 8 mu, 4 T values)."""
    def index(pos, value):
        values = sorted({key[pos] for key in series}, key=lambda v: Fraction(str(v)))
        return values.index(value)
    return (_COLORS[index(0, K) % len(_COLORS)], _MARKERS[index(1, mu) % len(_MARKERS)],
            _LINESTYLES[index(2, T) % len(_LINESTYLES)])


def _plot(results, path: str, N: int) -> None:
    import matplotlib.pyplot as plt

    fig = _figure(results, N)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _figure(results, N: int):
    """Figure of worst/bound against m, one line per (K, mu, T); the caller closes it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10.5, 5.6))
    series: dict = {}
    for r in results:
        p = r.parameters
        if r.ratio is None or not r.optimal:
            continue
        series.setdefault((p["K"], p["mu"], p["T"]), []).append((p["m"], r.ratio))
    for (K, mu, T), pts in sorted(series.items()):
        pts.sort()
        color, marker, ls = series_style(K, mu, T, series)
        ax.plot([m for m, _ in pts], [q for _, q in pts], marker=marker, ms=4, lw=1.2, color=color, ls=ls,
                label=f"K={K}, mu={mu}, T={T}")
    ax.axhline(1, color="k", lw=1, ls="--", label="worst = bound")
    ax.axvline(1, color="r", lw=1, ls=":", label="h = 1/(81 beta) (hypothesis)")
    ax.axvline(81, color="gray", lw=1, ls=":", label="h = 1/beta")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ms = [m for pts in series.values() for m, _ in pts] or [1, 81]
    # room on both sides so the hypothesis line m = 1 is not on the axis edge
    ax.set_xlim(min(min(ms), 1) / 1.6, max(ms) * 1.6)
    ax.annotate("h = 1/(81 beta)", xy=(1, 0.45), xycoords=("data", "axes fraction"), xytext=(3, 0),
                textcoords="offset points", rotation=90, va="center", ha="left", color="r", fontsize=9)
    ax.set_xlabel("m, with h = m / (81 beta)")
    ax.set_ylabel("PEP worst weightedGap / (V0 / (h W_T))")
    ax.set_title(f"Deterministic SCAFFOLD, N = S = {N}: worst case over the class vs the bound", fontsize=11)
    # one column outside the axes: up to ~30 entries fit at this height and font size
    ax.legend(fontsize=8, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
              title="colour: K, marker: mu, line: T", title_fontsize=8)
    fig.tight_layout()
    return fig
