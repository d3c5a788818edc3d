"""``pyfed check``: the main job's front end -- runs the default suite (:mod:`pyfed.check`) and
the statement checkers (:mod:`checkers`), prints one table per theorem and the statement table,
writes the JSON report; exit status 1 iff some verdict is violated."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ..errors import InputError
from ..exact import format_number
from . import STYLE, make_console

__all__ = ["register", "run", "evidence", "render_verdicts", "render_statement_verdicts"]

_fmt = format_number


def register(subparsers) -> None:
    """Add the ``check`` subcommand to an argparse subparsers object (sets ``func=run``)."""
    p = subparsers.add_parser("check", help="verdicts on the SCAFFOLD theorems over the default suite")
    p.add_argument("--seed", type=int, default=0, help="seed of every random generator (default 0)")
    p.add_argument("--replicates", type=int, default=None,
                   help="Monte Carlo replicates per instance (default 256, 64 with --quick)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: shorter horizons (T = 4), 64 replicates, and each statement checker's quick "
                        "budget (its structured edge cases and one random draw; the finite-round theorem "
                        "checkers: their structured instances only)")
    p.add_argument("--json", metavar="PATH", help="also write a JSON report to PATH (checked before the run)")
    p.add_argument("--budget", type=int, default=None,
                   help="search budget per statement checker, >= 1: the number of random draws of its "
                        "search (each checker also tries its structured edge cases, and some refine each "
                        "draw by a local optimisation: the table's 'drawn' column counts them all); "
                        "default: each checker's own (its quick budget with --quick)")
    p.add_argument("--skip-statements", action="store_true",
                   help="only the theorem instances, not the statement checkers of checkers/")
    p.set_defaults(func=run)


def evidence(v) -> str:
    """What a theorem verdict rests on: exact rationals, a certified ball, a Monte Carlo
    interval (with its level and R: the ± in the left-side column is its half-width) or a
    numerical SDP (PEP)."""
    d = v.details or {}
    est = d.get("estimate")
    if est:
        return f"Monte Carlo {est['confidence']:.1%} t-interval, R={est['replicates']}"
    if "solver_tol" in d:
        return f"PEP SDP, numerical (tol {d['solver_tol']:g})"
    arith = str(d.get("arithmetic", ""))
    if "ball" in arith:
        return "exact moments, certified ball"
    if arith:
        return "exact moments, exact rationals"
    return "exact" if v.exact else "-"


def render_verdicts(console: Console, verdicts, title: str) -> None:
    """Print one table per theorem: instance, hypotheses, LHS (± CI), RHS, ratio, verdict."""
    by_theorem: dict[str, list] = {}
    for v in verdicts:
        by_theorem.setdefault(v.statement, []).append(v)
    for theorem, vs in by_theorem.items():
        t = Table(title=f"{title}: SCAFFOLD.{theorem}", show_lines=False)
        for col in ("instance", "hypotheses", "left side", "right side", "ratio", "verdict", "evidence"):
            t.add_column(col, overflow="fold")
        for v in vs:
            d = v.details
            hyps = d.get("hypotheses", [])
            bad = [h["statement"] for h in hyps if not h["holds"]]
            hyp = "all met" if not bad else "FAIL: " + ", ".join(bad)
            est = d.get("estimate")
            balls = getattr(v, "balls", None) or {}
            lhs = (f"{_fmt(est['mean'])} ± {_fmt(est['upper'] - est['mean'], 3)}" if est
                   else _fmt(balls.get("lhs", v.lhs)))
            label = v.status + (" (statistical)" if v.status == "violated" and not v.exact else "")
            t.add_row(d.get("instance", "-"), hyp, lhs, _fmt(balls.get("rhs", v.rhs)),
                      _fmt(balls.get("ratio", v.ratio), 4), f"[{STYLE.get(v.status, '')}]{label}[/]", evidence(v))
        console.print(t)
        for v in vs:
            d = v.details
            p = d.get("parameters")
            if p:
                console.print(f"  [dim]{d.get('instance')}: " + ", ".join(f"{k}={p[k]}" for k in p) + "[/dim]")
            reason = getattr(v, "reason", "")
            if reason:
                console.print(f"  [yellow]{d.get('instance')}: {reason}[/yellow]")


def run(args) -> int:
    """Execute ``pyfed check``; returns 1 if some verdict is violated, else 0.

    Every argument is validated before any computation (InputError naming the flag, exit 2):
    ``--seed`` >= 0, ``--replicates`` >= 2, ``--budget`` >= 1, ``--json`` a creatable file path
    (not empty, not a directory, in an existing writable directory).
    """
    from rich.progress import Progress

    from ..check import default_replicates, report_json, run_check
    from ..errors import check_int, check_output_file

    check_int("--seed", args.seed, minimum=0)
    if args.replicates is not None:
        check_int("--replicates", args.replicates, minimum=2)
    if args.budget is not None:
        check_int("--budget", args.budget, minimum=1)
    if args.json is not None:
        check_output_file("--json", args.json)
    console = make_console()
    reps = args.replicates if args.replicates is not None else default_replicates(args.quick)
    statements = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("pyfed check", total=None)

        def tick(label):
            progress.update(task, description=f"running {label}")

        verdicts = run_check(quick=args.quick, seed=args.seed, replicates=reps, progress=tick)
        if not args.skip_statements:
            from ..search import run_all

            statements = run_all(budget=args.budget, seed=args.seed, quick=args.quick,
                                 progress=lambda name: tick(f"statement checker {name}"))
    render_verdicts(console, verdicts, "pyfed check")
    if statements:
        render_statement_verdicts(console, statements)
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(report_json(verdicts, seed=args.seed, quick=args.quick, replicates=reps,
                                     statements=statements) + "\n")
        except OSError as exc:  # checked before the run; only a change since then gets here
            raise InputError("--json", f"cannot write {args.json!r}: {exc.strerror or exc}") from None
        console.print(f"JSON report written to {args.json}")
    counts = {s: sum(v.status == s for v in verdicts) for s in ("holds", "violated", "inconclusive")}
    kinds: dict[str, int] = {}
    for v in verdicts:
        if v.status == "holds":
            k = evidence(v).split(",")[0].split(" (")[0]
            kinds[k] = kinds.get(k, 0) + 1
    by = ", ".join(f"{n} {k}" for k, n in kinds.items())
    console.print(f"theorem instances: {counts['holds']} holds ({by}), {counts['violated']} violated, "
                  f"{counts['inconclusive']} inconclusive")
    found = sum(v.status == "violated" for _, v in statements)
    if statements:
        console.print(f"statements: {len(statements)} searched, {found} with a counterexample")
    console.print("[dim]pyfed checks the Lean statements numerically on instances and by search; it proves "
                  "nothing in Lean (the statements' proofs are not part of pyfed).[/dim]")
    return 1 if counts["violated"] or found else 0


def render_statement_verdicts(console, results) -> None:
    """Print one row per statement of ``run_all``'s [(lean_name, Verdict)]: the search result
    (a counterexample, or none among N candidates), the verdict, the tightest lhs/rhs found,
    how each candidate was decided, and the search statistics."""
    from rich.table import Table

    style = {"holds": "bold green", "violated": "bold red", "inconclusive": "bold yellow"}
    t = Table(title="pyfed check: statement checkers (namespace SCAFFOLD): adversarial search per statement")
    t.add_column("statement", no_wrap=True)
    for col in ("search result", "verdict", "tightest lhs", "rhs", "lhs/rhs", "candidates decided", "drawn"):
        t.add_column(col, no_wrap=True)
    for name, v in results:
        d = v.details or {}
        if v.status == "violated":
            result = "[bold red]COUNTEREXAMPLE[/]"
        else:
            result = d.get("search_result", "-")
        how = "exactly" if d.get("tightest_exact", v.exact) else "mpmath"
        decided = f"{d.get('holds', '-')} ({how})" if v.status != "violated" else "-"
        t.add_row(name, result, f"[{style.get(v.status, '')}]{v.status}[/]", _fmt(v.lhs), _fmt(v.rhs),
                  _fmt(v.ratio), decided, str(d.get("drawn", d.get("candidates", "-"))))
    console.print(t)
    console.print("  [dim]A search that finds no counterexample does not prove a statement: such rows are "
                  "inconclusive by design (unlike the per-instance verdicts above). lhs/rhs = 1: the bound is "
                  "attained on the tightest instance; '-': both sides 0 (an identity). drawn = candidates "
                  "generated (structured edge cases + the budget's random draws + the candidates refined from them); "
                  "decided = those inside the hypotheses whose inequality was decided.[/dim]")


