"""``pyfed search``: front end of the adversarial counterexample search (:mod:`pyfed.search`)."""

from __future__ import annotations

import json

from ..errors import InputError
from ..parallel import check_workers
from ..search import prepare_out, search_to_dir, statement_options

__all__ = ["register", "run", "format_statement_options", "add_parallel_arguments"]


def format_statement_options(lean_name=None) -> str:
    """Plain text listing the valid ``--relax`` keys and ``--mutate`` names (``pyfed search --list``);
    only ``lean_name`` if given (InputError for an unknown name)."""
    from checkers.registry import get

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
    "and for exact counterexamples to the real statement also a Lean file stating the witness. "
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
    p.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    p.add_argument("--budget", type=int, default=None, help="search budget (default: the checker's)")
    p.add_argument("--relax", action="append", default=[], metavar="HYPOTHESIS",
                   help="hypothesis key to search beyond (repeatable), e.g. step_size; see --list")
    p.add_argument("--mutate", default=None, metavar="NAME",
                   help="check a mutated (deliberately wrong) statement; see --list. Writes JSON only, "
                        "no .lean file")
    p.add_argument("--out", default=None, metavar="DIR", help="output directory (required unless --list)")
    add_parallel_arguments(p, "the candidates")
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
    """Execute ``pyfed search``; returns 0 (the count of counterexamples is printed to stdout).

    Raises InputError for an unknown statement / mutation / relax key, a missing or
    uncreatable ``--out``.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from checkers.registry import get

    if getattr(args, "list_options", False):
        print(format_statement_options(args.lean_name))
        return 0
    if args.lean_name is None:
        raise InputError("lean_name", "missing statement name (e.g. ConvexFiniteRoundConvergence); "
                                      "`pyfed search --list` lists them")
    chk = get(args.lean_name)
    if args.mutate is not None:
        chk._mutation(args.mutate)
    chk.effective_relax(args.relax, args.mutate)
    if not args.out:
        raise InputError("--out", "required: the directory for the counterexample files")
    prepare_out(args.out)
    check_workers(args.workers, args.scheduler)
    budget = chk.default_budget if args.budget is None else args.budget
    progress_console = Console(stderr=True)
    console = Console()
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=progress_console, transient=True) as progress:
        task = progress.add_task(f"searching {chk.qualified_name}", total=None)
        paths = search_to_dir(chk.lean_name, seed=args.seed, budget=budget, out=args.out,
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
    console.print(f"{head}; seed {args.seed}, budget {budget}"
                  + (f"; written to {args.out}" if paths else ""), highlight=False, soft_wrap=True)
    if args.mutate:
        console.print("(--mutate run: JSON only, no .lean file -- the mutated statement is not the Lean "
                      "statement)", highlight=False, soft_wrap=True)
    for p in paths:
        console.print(f"  {p}", highlight=False, soft_wrap=True)
    return 0
