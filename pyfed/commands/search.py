"""``pyfed search``: front end of the adversarial counterexample search (:mod:`pyfed.search`)."""

from __future__ import annotations

import json

from rich.markup import escape

from ..errors import EXIT_OK, EXIT_VIOLATED, InputError, check_int
from ..exact import format_number
from ..parallel import check_workers
from ..search import prepare_out, search_to_dir, statement_options, summary_path
from . import COMMAND_HELP

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run", "format_statement_options", "add_parallel_arguments"]


def format_statement_options(lean_name=None) -> str:
    """Plain text listing the valid ``--relax`` keys and ``--mutate`` names (``pyfed search --list``);
    only ``lean_name`` if given (InputError for an unknown name)."""
    from pyfed.checkers.registry import get

    rows = statement_options()
    if lean_name is not None:
        name = get(lean_name).name
        rows = [r for r in rows if r[0] == name]
    lines = []
    for name, keys, muts in rows:
        lines.append(name)
        lines.append("  --relax: " + (", ".join(keys) if keys else "(no hypotheses)"))
        if muts:
            lines.append("  --mutate:")
            lines.extend(f"    {k}: {d}" for k, d in muts.items())
        else:
            lines.append("  --mutate: (none)")
    return "\n".join(lines)


_DESCRIPTION = (
    "Adversarial counterexample search for one of pyfed's statements (a theorem of its Lean files, e.g. "
    "ConvexFiniteRoundConvergence, YoungInner or FedAvg.PerRoundProgress), read through the same reader as "
    "`pyfed check PATH.lean`. Writes one JSON file per counterexample to --out (same seed and budget: "
    "byte-identical files) and, when the witness has exact sides (or certified rational bounds), a Lean file "
    "stating the instance: for every statement without --relax or --mutate, and with --relax for a statement "
    "about a FedAvg run (its Lean file says the instance lies outside the relaxed hypothesis; other relaxed "
    "statements and every --mutate run: JSON only, no .lean file); the paths written are printed. Always a "
    "<stem>-summary.json of what was searched (statistics, tightest instance, the files written). "
    "--budget B: B random draws (the structured edge cases are tried in addition, and each candidate may be "
    "refined, so B = 1 can decide several candidates). --mutate NAME: a deliberately wrong edit of the "
    "statement's Lean text; --relax KEY: the hypothesis KEY removed. "
    "Exit status 1 iff a counterexample to the (unrelaxed, unmutated) statement is found. "
    "Run pyfed search --list (or pyfed search NAME --list) for the valid --relax hypothesis "
    "keys and --mutate names of each statement.")


def register(subparsers) -> None:
    """Add the ``search`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser("search", help=COMMAND_HELP["search"],
                              description=_DESCRIPTION)
    p.add_argument("lean_name", nargs="?", default=None,
                   help="statement, e.g. ConvexFiniteRoundConvergence (namespace SCAFFOLD) or "
                        "FedAvg.ConvexFedAvgConvergence")
    p.add_argument("--list", action="store_true", dest="list_options",
                   help="list the statements with their --relax keys and --mutate names, then exit")
    p.add_argument("--seed", type=int, default=0, help="seed of the search, >= 0 (default 0)")
    p.add_argument("--budget", type=int, default=None,
                   help="random draws of the search, >= 1 (default 8); the structured edge cases are tried in "
                        "addition and each candidate may be refined")
    p.add_argument("--relax", action="append", default=[], metavar="HYPOTHESIS",
                   help="hypothesis key to search beyond (repeatable), e.g. step_size; see --list")
    p.add_argument("--mutate", default=None, metavar="NAME",
                   help="check a mutated (deliberately wrong) statement; see --list. Writes JSON only, "
                        "no .lean file")
    p.add_argument("--out", default=None, metavar="DIR", help="output directory (required unless --list)")
    add_parallel_arguments(p, "the candidates")
    from ..resources import add_limit_arguments
    add_limit_arguments(p)
    p.set_defaults(func=run)


def add_parallel_arguments(p, what: str) -> None:
    """``--workers N`` / ``--scheduler ADDRESS`` (pyfed.parallel), shared by search, tightness
    and worst-case."""
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help=f"evaluate {what} on a local Dask cluster of N worker processes (default: serial, "
                        "in-process); the output does not depend on N")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help=f"evaluate {what} on an existing Dask cluster, e.g. tcp://127.0.0.1:8786")


def _record_kind(path) -> str:
    """How a written record's sides were decided: ``"exact"`` (rationals), ``"in certified balls"``
    (certified rational bounds, no exact value) or ``"statistical"``."""
    with open(path, encoding="utf-8") as fh:
        rec = json.load(fh)
    if rec.get("exact"):
        return "exact"
    sides = [rec.get(k) for k in ("lhs", "rhs")]
    if all(isinstance(x, dict) and (x.get("exact") is not None or {"lower", "upper"} <= set(x)) for x in sides):
        return "in certified balls"
    return "statistical"


def run(args) -> int:
    """Execute ``pyfed search``; returns 1 if a counterexample to the statement itself (no
    ``--relax``, no ``--mutate``) is found, else 0. The count of counterexamples and the search
    statistics are printed to stdout; ``<stem>-summary.json`` is written in every case.

    Raises InputError (before any search) for an unknown statement / mutation / relax key, a
    negative ``--seed``, a ``--budget`` below 1, a missing or unusable ``--out``.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from pyfed.checkers.registry import get, statements_of

    from ..search import default_statement_budget
    from . import make_console, make_progress

    if getattr(args, "list_options", False):
        print(format_statement_options(args.lean_name))
        return EXIT_OK
    if args.lean_name is None:
        raise InputError("lean_name", "missing statement name (e.g. ConvexFiniteRoundConvergence); "
                                      "`pyfed search --list` lists them")
    entry = get(args.lean_name)
    try:  # the library names them relax / mutate; on the command line they are flags
        statements_of(entry.name, mutate=args.mutate, relax=args.relax)
    except InputError as exc:
        if exc.argument in ("relax", "mutate", "mutation"):
            raise InputError(f"--{'mutate' if exc.argument == 'mutation' else exc.argument}", exc.reason) from None
        raise
    seed = check_int("--seed", args.seed, minimum=0)
    if args.budget is not None:
        check_int("--budget", args.budget, minimum=1)
    if args.out is None or not str(args.out).strip():
        raise InputError("--out", "required: the directory for the counterexample files and the summary")
    prepare_out(args.out)
    check_workers(args.workers, args.scheduler)
    budget = default_statement_budget() if args.budget is None else args.budget
    from .. import resources
    resources.refuse_if_over(resources.statement_search(entry.name, budget), resources.limits_from_args(args),
                             "--budget")
    console = make_console()
    with make_progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn()) as progress:
        task = progress.add_task(f"searching {entry.name}", total=None)
        paths = search_to_dir(entry.name, seed=seed, budget=budget, out=args.out,
                              relax=args.relax, mutate=args.mutate,
                              progress=lambda n: progress.advance(task, n),
                              workers=args.workers, scheduler=args.scheduler)
    what = entry.name + (f" (mutation {args.mutate})" if args.mutate else "")
    kinds = [_record_kind(p) for p in paths]
    split = (" (" + ", ".join(f"{kinds.count(k)} {k}" for k in ("exact", "in certified balls", "statistical")
                              if k in kinds) + ")" if set(kinds) - {"exact"} else "")
    if args.relax:
        head = (f"{len(paths)} instance(s) beyond hypothesis {', '.join(args.relax)} where the inequality of "
                f"{what} fails{split} (not counterexamples to the theorem, which assumes it)")
    else:
        head = f"{len(paths)} counterexample(s) to {what}{split}"
    console.print(escape(f"{head}; seed {seed}, budget {budget}" + (f"; written to {args.out}" if paths else "")),
                  highlight=False, soft_wrap=True)
    spath = summary_path(args.out, entry.name, seed, budget, args.relax, args.mutate)
    with open(spath, encoding="utf-8") as fh:
        summary = json.load(fh)
    if args.mutate:
        console.print("(--mutate run: JSON only, no .lean file -- the mutated statement is not the Lean "
                      "statement)", highlight=False, soft_wrap=True)
    elif args.relax and paths and not summary.get("lean_files"):
        console.print("(--relax run on a statement that is not about a FedAvg run: JSON only, no .lean file -- the "
                      "relaxed statement is not the Lean statement)", highlight=False, soft_wrap=True)
    import os
    lean = set(summary.get("lean_files") or ())
    for p in paths:
        stem = os.path.basename(str(p))[:-len(".json")]
        extra = f" and {os.path.join(os.path.dirname(str(p)), stem + '.lean')}" if stem + ".lean" in lean else ""
        console.print(f"  {escape(str(p) + extra)}", highlight=False, soft_wrap=True)
    st = summary["statistics"]
    per = (f" (one record per {'conjunct' if len(summary['conjuncts']) > 1 else 'statement'}: its first violation "
           "in candidate order)" if st["violated"] > len(paths) else "")
    console.print(f"searched {st['drawn']} candidates (the structured edge cases, {budget} random draw(s) and their "
                  f"refinements): {st['holds']} hold, {st['violated']} violated{per}, {st['undecided']} undecided, "
                  f"{st['outside_hypotheses']} outside the hypotheses", highlight=False, soft_wrap=True)
    tight = summary.get("tightest")
    if tight and tight.get("lhs") and tight.get("rhs"):
        try:
            from fractions import Fraction
            r = Fraction(tight["lhs"]) / Fraction(tight["rhs"])
            console.print(f"tightest holding instance: lhs/rhs = {format_number(r)} (1 = the bound is attained)",
                          highlight=False, soft_wrap=True)
        except (ValueError, ZeroDivisionError):
            pass
    console.print(f"summary written to {escape(str(spath))}", highlight=False, soft_wrap=True)
    return EXIT_VIOLATED if paths and not args.relax and not args.mutate else EXIT_OK
