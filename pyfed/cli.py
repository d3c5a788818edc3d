"""Command line: pyfed check | search | lean | tightness | worst-case.

``pyfed check`` is the main job (see :mod:`pyfed.check`). Other subcommands live in their own
modules, each exposing ``register(subparsers)``; this file only wires them.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from rich.console import Console
from rich.table import Table

from . import __version__
from .errors import InputError
from .exact import format_number

#: Modules that add subcommands (each has ``register(subparsers)``).
SUBCOMMAND_MODULES: list[str] = ["pyfed.search", "pyfed.lean.cli", "pyfed.tightness", "pyfed.worst_case_cli"]


_fmt = format_number


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


def make_console() -> Console:
    """A rich console; when the output is not a terminal (a file, CI log) use 140 columns so
    numbers in tables are not wrapped."""
    return Console() if sys.stdout.isatty() else Console(width=140)


STYLE = {"holds": "bold green", "violated": "bold red", "inconclusive": "bold yellow"}


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
            lhs = f"{_fmt(est['mean'])} ± {_fmt(est['upper'] - est['mean'], 3)}" if est else _fmt(v.lhs)
            label = v.status + (" (statistical)" if v.status == "violated" and not v.exact else "")
            t.add_row(d.get("instance", "-"), hyp, lhs, _fmt(v.rhs), _fmt(v.ratio, 4),
                      f"[{STYLE.get(v.status, '')}]{label}[/]", evidence(v))
        console.print(t)
        for v in vs:
            d = v.details
            p = d.get("parameters")
            if p:
                console.print(f"  [dim]{d.get('instance')}: " + ", ".join(f"{k}={p[k]}" for k in p) + "[/dim]")
            reason = getattr(v, "reason", "")
            if reason:
                console.print(f"  [yellow]{d.get('instance')}: {reason}[/yellow]")


def _cmd_check(args) -> int:
    from rich.progress import Progress

    from pathlib import Path

    from .check import default_replicates, report_json, run_check
    from .errors import check_int

    check_int("--seed", args.seed, minimum=0)
    if args.replicates is not None:
        check_int("--replicates", args.replicates, minimum=2)
    if args.json and not Path(args.json).resolve().parent.is_dir():
        raise InputError("--json", f"directory {str(Path(args.json).resolve().parent)!r} does not exist")
    console = make_console()
    reps = args.replicates if args.replicates is not None else default_replicates(args.quick)
    statements = []
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("pyfed check", total=None)

        def tick(label):
            progress.update(task, description=f"running {label}")

        verdicts = run_check(quick=args.quick, seed=args.seed, replicates=reps, progress=tick)
        if not args.skip_statements:
            from .search import run_all

            tick("statement checkers (checkers/)")
            statements = run_all(budget=args.budget, seed=args.seed)
    render_verdicts(console, verdicts, "pyfed check")
    if statements:
        from .search import render_statement_verdicts

        render_statement_verdicts(console, statements)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            fh.write(report_json(verdicts, seed=args.seed, quick=args.quick, replicates=reps,
                                 statements=statements) + "\n")
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pyfed",
        description="Verification companion for federated optimization theory (SCAFFOLD, FedAvg, Local SGD): "
                    "honest verdicts (holds / violated / inconclusive) on the Lean statements.")
    parser.add_argument("--version", action="version", version=f"pyfed {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="verdicts on the SCAFFOLD theorems over the default suite")
    p.add_argument("--seed", type=int, default=0, help="seed of every random generator (default 0)")
    p.add_argument("--replicates", type=int, default=None,
                   help="Monte Carlo replicates per instance (default 256, 64 with --quick)")
    p.add_argument("--quick", action="store_true", help="shorter horizons and fewer replicates")
    p.add_argument("--json", metavar="PATH", help="also write a JSON report to PATH")
    p.add_argument("--budget", type=int, default=None,
                   help="search budget per statement checker (default: each checker's own)")
    p.add_argument("--skip-statements", action="store_true",
                   help="only the theorem instances, not the statement checkers of checkers/")
    p.set_defaults(func=_cmd_check)
    for mod in SUBCOMMAND_MODULES:
        importlib.import_module(mod).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pyfed`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"pyfed: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
