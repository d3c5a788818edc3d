"""``pyfed search``: front end of the adversarial counterexample search (:mod:`pyfed.search`)."""

from __future__ import annotations

import json

from rich.markup import escape

from ..errors import EXIT_OK, EXIT_VIOLATED, InputError, check_int
from ..exact import format_number
from ..parallel import check_workers
from ..search import prepare_out, search_to_dir, statement_options, summary_path

__all__ = ["register", "run", "format_statement_options", "add_parallel_arguments"]


def format_statement_options(lean_name=None) -> str:
    """Plain text listing the valid ``--relax`` keys and ``--mutate`` names (``pyfed search --list``);
    only ``lean_name`` if given (InputError for an unknown name)."""
    from pyfed.checkers.registry import get

    rows = statement_options()
    if lean_name is not None:
        bare = get(lean_name).lean_name
        rows = [r for r in rows if r[0] == bare]
    lines = []
    for name, keys, muts in rows:
        lines.append(get(name).qualified_name)
        lines.append("  --relax: " + (", ".join(keys) if keys else "(no hypotheses)"))
        if muts:
            lines.append("  --mutate:")
            lines.extend(f"    {k}: {d}" for k, d in muts.items())
        else:
            lines.append("  --mutate: (none)")
    return "\n".join(lines)


_DESCRIPTION = (
    "Adversarial counterexample search for one statement (checker registry: namespace SCAFFOLD, or FedAvg "
    "for the Field Guide statements, e.g. FedAvg.PerRoundProgress). "
    "Writes one JSON file per counterexample to --out (same seed and budget: byte-identical files), "
    "and for exact counterexamples to the real statement also a Lean file stating the witness; "
    "always a <stem>-summary.json of what was searched (statistics, tightest instance). "
    "--budget B: B random draws (the statement's structured edge cases are tried in addition, and "
    "some checkers refine each draw, so B = 1 can decide several candidates). "
    "Exit status 1 iff a counterexample to the (unrelaxed, unmutated) statement is found. "
    "--mutate runs write no .lean file: the mutated statement is not the Lean statement. "
    "Run pyfed search --list (or pyfed search NAME --list) for the valid --relax hypothesis "
    "keys and --mutate names of each statement.")


def register(subparsers) -> None:
    """Add the ``search`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser("search", help="adversarial counterexample search for one statement (JSON export)",
                              description=_DESCRIPTION)
    p.add_argument("lean_name", nargs="?", default=None,
                   help="statement, e.g. ConvexFiniteRoundConvergence (namespace SCAFFOLD) or "
                        "FedAvg.ConvexFedAvgConvergence")
    p.add_argument("--list", action="store_true", dest="list_options",
                   help="list the statements with their --relax keys and --mutate names, then exit")
    p.add_argument("--seed", type=int, default=0, help="seed of the search, >= 0 (default 0)")
    p.add_argument("--budget", type=int, default=None,
                   help="random draws of the search, >= 1 (default: the checker's); the structured edge "
                        "cases are tried in addition and some checkers refine each draw")
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


def run(args) -> int:
    """Execute ``pyfed search``; returns 1 if a counterexample to the statement itself (no
    ``--relax``, no ``--mutate``) is found, else 0. The count of counterexamples and the search
    statistics are printed to stdout; ``<stem>-summary.json`` is written in every case.

    Raises InputError (before any search) for an unknown statement / mutation / relax key, a
    negative ``--seed``, a ``--budget`` below 1, a missing or unusable ``--out``.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from . import make_console, make_progress

    from pyfed.checkers.registry import get

    if getattr(args, "list_options", False):
        print(format_statement_options(args.lean_name))
        return EXIT_OK
    if args.lean_name is None:
        raise InputError("lean_name", "missing statement name (e.g. ConvexFiniteRoundConvergence); "
                                      "`pyfed search --list` lists them")
    chk = get(args.lean_name)
    try:  # the library names them relax / mutate; on the command line they are flags
        if args.mutate is not None:
            chk._mutation(args.mutate)
        chk.effective_relax(args.relax, args.mutate)
    except InputError as exc:
        if exc.argument in ("relax", "mutate"):
            raise InputError(f"--{exc.argument}", exc.reason) from None
        raise
    seed = check_int("--seed", args.seed, minimum=0)
    if args.budget is not None:
        check_int("--budget", args.budget, minimum=1)
    if args.out is None or not str(args.out).strip():
        raise InputError("--out", "required: the directory for the counterexample files and the summary")
    prepare_out(args.out)
    check_workers(args.workers, args.scheduler)
    budget = chk.default_budget if args.budget is None else args.budget
    from .. import resources
    resources.refuse_if_over(resources.checker_search(chk.qualified_name, budget), resources.limits_from_args(args),
                             "--budget")
    console = make_console()
    with make_progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TimeElapsedColumn()) as progress:
        task = progress.add_task(f"searching {chk.qualified_name}", total=None)
        paths = search_to_dir(chk.lean_name, seed=seed, budget=budget, out=args.out,
                              relax=args.relax, mutate=args.mutate,
                              progress=lambda n: progress.advance(task, n),
                              workers=args.workers, scheduler=args.scheduler)
    what = chk.qualified_name + (f" (mutation {args.mutate})" if args.mutate else "")
    kinds = []
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            kinds.append("exact" if json.load(fh).get("exact") else "statistical")
    split = (f" ({kinds.count('exact')} exact, {kinds.count('statistical')} statistical)"
             if "statistical" in kinds else "")
    if args.relax:
        head = (f"{len(paths)} instance(s) beyond hypothesis {', '.join(args.relax)} where the inequality of "
                f"{what} fails{split} (not counterexamples to the theorem, which assumes it)")
    else:
        head = f"{len(paths)} counterexample(s) to {what}{split}"
    console.print(escape(f"{head}; seed {seed}, budget {budget}" + (f"; written to {args.out}" if paths else "")),
                  highlight=False, soft_wrap=True)
    if args.mutate:
        console.print("(--mutate run: JSON only, no .lean file -- the mutated statement is not the Lean "
                      "statement)", highlight=False, soft_wrap=True)
    for p in paths:
        console.print(f"  {escape(str(p))}", highlight=False, soft_wrap=True)
    spath = summary_path(args.out, chk.lean_name, seed, budget, args.relax, args.mutate)
    with open(spath, encoding="utf-8") as fh:
        summary = json.load(fh)
    st = summary["statistics"]
    console.print(f"searched {st['drawn']} candidates ({st['structured']} structured edge cases, {budget} random "
                  f"draw(s) and their refinements), {st['candidates']} distinct: {st['holds']} hold, "
                  f"{st['violated']} violated, {st['inconclusive']} inconclusive, {st['vacuous']} outside the "
                  "hypotheses", highlight=False, soft_wrap=True)
    tight = summary.get("tightest")
    if tight:
        ratio = tight.get("ratio") or {}
        r = ratio.get("exact") or ratio.get("decimal") or ratio.get("mpmath") or ratio.get("float")
        console.print(f"tightest holding instance: lhs/rhs = {format_number(r) if r is not None else '-'} "
                      "(1 = the bound is attained)", highlight=False, soft_wrap=True)
    console.print(f"summary written to {escape(str(spath))}", highlight=False, soft_wrap=True)
    return EXIT_VIOLATED if paths and not args.relax and not args.mutate else EXIT_OK
