"""``pyfed worst-case``: worst/bound of deterministic SCAFFOLD over the whole function class.

Sweeps the effective step h = m/(81 beta) (m = 1 is the limit of
``SCAFFOLD.ConvexFiniteRoundConvergence``; the sweep goes to m = 162, i.e. h = 2/beta), the
number of local steps K, the strong convexity mu and the number of rounds T, solving one
performance-estimation SDP per point (:func:`pyfed.expectation.worst_case.worst_case_scaffold`,
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

from .errors import InputError

__all__ = ["register", "run", "QUICK_GRID", "FULL_GRID"]

#: Grid of ``pyfed worst-case --quick`` (20 small SDPs, a few seconds).
QUICK_GRID = dict(multiples=(1, 27, 81, 135, 162), Ks=(1, 2), mus=(0, Fraction(1, 20)), Ts=(2,))
#: Default grid (162 SDPs, N*K*T <= 24; a few minutes on one core).
FULL_GRID = dict(multiples=(1, 3, 9, 27, 54, 81, 108, 135, 162), Ks=(1, 2, 3),
                 mus=(0, Fraction(1, 20), Fraction(1, 5)), Ts=(2, 4))


def register(subparsers) -> None:
    """Add the ``worst-case`` subcommand to an argparse ``subparsers`` object (sets ``func=run``)."""
    p = subparsers.add_parser(
        "worst-case",
        help="PEP worst case of deterministic SCAFFOLD over the whole function class (sweep over h, K, mu)",
        description=__doc__.splitlines()[0])
    p.add_argument("--out", default="worst-case-out", metavar="DIR",
                   help="directory for worst_case.png and worst_case.json (default ./worst-case-out)")
    p.add_argument("--quick", action="store_true", help="small grid (h multiples 1,27,81,135,162; K 1,2; T 2)")
    p.add_argument("--clients", "-N", type=int, default=2, dest="N", help="number of clients N = S (default 2)")
    p.add_argument("--eta-g", default="1", help="global step eta_g >= 1 (default 1); eta_l = h/(K eta_g)")
    p.add_argument("--solver", default=None, help="cvxpy SDP solver (default CLARABEL)")
    p.add_argument("--no-verify", action="store_true",
                   help="do not re-verify claimed violations on exact quadratic instances")
    p.set_defaults(func=run)


_STATUS = {"optimal": "opt", "optimal_inaccurate": "opt_inacc"}
_HYP = {"step_size": "h", "mu_h": "mu*h", "eta_g": "eta_g"}


def _f(v, digits=4):
    if v is None:
        return "-"
    return f"{float(v):.{digits}g}"


def run(args) -> int:
    """Run the sweep described by parsed ``args`` (see :func:`register`); returns the exit status."""
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from .expectation.worst_case import DEFAULT_SOLVER, smallest_constant, sweep_scaffold

    console = Console()
    if not console.is_terminal:  # pipes and files: rich would assume 80 columns
        console = Console(width=120)
    if args.N < 1:
        raise InputError("--clients", f"must be >= 1, got {args.N}")
    try:
        eta_g = Fraction(args.eta_g)
    except (ValueError, ZeroDivisionError):
        raise InputError("--eta-g", f"must be a number such as 1 or 3/2, got {args.eta_g!r}") from None
    if eta_g < 1:
        raise InputError("--eta-g", f"must be >= 1 (hypothesis of the theorem), got {args.eta_g}")
    grid = QUICK_GRID if args.quick else FULL_GRID
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("worst case", total=None)
        results = sweep_scaffold(**grid, N=args.N, eta_g=eta_g, beta=1, solver=args.solver,
                                 verify=not args.no_verify,
                                 progress=lambda label: progress.update(task, description=f"PEP {label}"))

    table = Table(title=f"PEP worst case, deterministic SCAFFOLD (N = S = {args.N}, sigma = 0, beta = 1, "
                        f"eta_g = {eta_g})",
                  caption="worst = sup weightedGap over the class with V0 <= 1; bound = V0/(h W_T); "
                          "ratio = worst/bound; status = SDP solver status; s = solve seconds; "
                          "hyp. = failing hypotheses (h: h <= 1/(81 beta))")
    for col in ("K", "mu", "T", "81*beta*h", "worst", "bound", "ratio", "status", "s", "hyp.", "verdict"):
        table.add_column(col)
    style = {"holds": "green", "violated": "red", "inconclusive": "yellow"}
    inside_violation = False
    for r in results:
        p = r.parameters
        bad = [h["key"] for h in r.details["hypotheses"] if not h["holds"]]
        v = r.verdict.status
        if v == "violated" and not bad:
            inside_violation = True
        table.add_row(str(p["K"]), p["mu"], str(p["T"]), str(p["m"]), _f(r.worst), _f(r.bound),
                      _f(r.ratio), _STATUS.get(r.status, r.status[:12]), f"{r.solve_time:.2f}",
                      "ok" if not bad else "FAIL:" + ",".join(_HYP.get(b, b) for b in bad),
                      f"[{style[v]}]{v}[/]" + (" (beyond hyp.)" if bad and v == "violated" else ""))
    console.print(table)

    sc = smallest_constant(results)
    if sc["m_fail"] is None:
        console.print(f"worst/bound <= 1 at every swept step up to h = {sc['grid_max']}/(81 beta): on these "
                      f"sizes the constant 81 can be replaced by c = {_f(sc['c'])} (and possibly less).")
    else:
        console.print(f"Smallest constant on the swept grid: c = 81/{sc['m_star']} = {_f(sc['c'])} "
                      f"(h <= 1/(c beta) keeps worst/bound <= 1 at every swept size; the first swept step "
                      f"that fails is h = {sc['m_fail']}/(81 beta), so the true constant lies in "
                      f"({_f(Fraction(81, sc['m_fail']))}, {_f(sc['c'])}]). The theorem uses c = 81.")
    if sc["excluded"]:
        console.print(f"({sc['excluded']} of {sc['used'] + sc['excluded']} points violate another hypothesis, "
                      "mu h <= S/(15 N), and are not used for c.)")
    if not sc["all_optimal"]:
        console.print("[yellow]Some solves were not optimal; they are inconclusive and were ignored for c.[/yellow]")

    os.makedirs(args.out, exist_ok=True)
    png = os.path.join(args.out, "worst_case.png")
    _plot(results, png, args.N)
    js = os.path.join(args.out, "worst_case.json")
    with open(js, "w", encoding="utf-8") as fh:
        json.dump({
            "solver": args.solver or DEFAULT_SOLVER, "N": args.N, "eta_g": str(eta_g), "beta": "1", "sigma": "0",
            "smallest_constant": {k: (str(v) if isinstance(v, Fraction) else v) for k, v in sc.items()},
            "results": [r.to_json() for r in results],
        }, fh, indent=1, default=str)
    console.print(f"plot written to {png}; data written to {js}")
    return 1 if inside_violation else 0


def _plot(results, path: str, N: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    series: dict = {}
    for r in results:
        p = r.parameters
        if r.ratio is None or not r.optimal:
            continue
        series.setdefault((p["K"], p["mu"], p["T"]), []).append((p["m"], r.ratio))
    for (K, mu, T), pts in sorted(series.items()):
        pts.sort()
        ax.plot([m for m, _ in pts], [q for _, q in pts], marker="o", ms=3, lw=1,
                label=f"K={K}, mu={mu}, T={T}")
    ax.axhline(1, color="k", lw=1, ls="--", label="worst = bound")
    ax.axvline(1, color="r", lw=1, ls=":", label="h = 1/(81 beta) (hypothesis)")
    ax.axvline(81, color="gray", lw=1, ls=":", label="h = 1/beta")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("m, with h = m / (81 beta)")
    ax.set_ylabel("PEP worst weightedGap / (V0 / (h W_T))")
    ax.set_title(f"Deterministic SCAFFOLD, N = S = {N}: worst case over the class vs the bound")
    ax.legend(fontsize=6, ncol=2, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
