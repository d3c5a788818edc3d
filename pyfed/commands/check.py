"""``pyfed check``: the main job's front end -- runs the default suite (:mod:`pyfed.check`) and
the statement catalogue (:mod:`pyfed.checkers.registry`), or the theorems of the given Lean
files, prints the tables (:mod:`pyfed.commands.render`), writes the JSON report; exit status 1
iff some verdict is violated."""

from __future__ import annotations

import os

from rich.markup import escape

from ..engines.search.space import reach_text
from ..errors import InputError
from ..resources import add_limit_arguments, limits_from_args, refuse_if_over
from ..verdicts import violation_wording
from . import COMMAND_HELP, make_console, print_line
from .display import Stages
from .render import (
    _short,
    render_profile,
    render_statement_verdicts,
    render_verdicts,
    summary_counts,
)

__all__ = ["register", "run", "run_file"]


def register(subparsers) -> None:
    """Add the ``check`` subcommand to an argparse subparsers object (sets ``func=run``)."""
    p = subparsers.add_parser("check", help=COMMAND_HELP["check"])
    p.add_argument("path", nargs="*", metavar="PATH.lean",
                   help="check the theorems of these Lean files (they import Pyfed) instead of the default suite; "
                        "all files are read before any computation")
    p.add_argument("--theorem", metavar="NAME", help="with PATH.lean: only this theorem (in every file that has it)")
    p.add_argument("--out", metavar="DIR", help="with PATH.lean: write counterexamples (JSON + Lean) to DIR")
    p.add_argument("--no-profile", action="store_true", help="with PATH.lean: skip the constant profile")
    p.add_argument("--seed", type=int, default=0, help="seed of every random generator (default 0)")
    p.add_argument("--replicates", type=int, default=None,
                   help="Monte Carlo replicates per instance (default 256, 64 with --quick)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 64 replicates (32 per round start in the conditional FedAvg lemmas), T = 8 "
                        "on the built-in instances and a small search budget "
                        "(2 random draws per statement of the default report, 8 per statement of a file)")
    p.add_argument("--json", metavar="PATH", help="also write a JSON report to PATH (checked before the run); "
                                                  "it holds no clock readings unless --timing is given")
    p.add_argument("--timing", action="store_true",
                   help="with --json: add the engines' wall-clock figures under the report's 'timing' key "
                        "(without it the same command writes a byte-identical report for any --workers)")
    p.add_argument("--budget", type=int, default=None,
                   help="random draws of the adversarial search per statement, >= 1 (after its structured "
                        "cases; refinements of a draw are counted in the table's 'drawn' column); default 8 "
                        "(2 with --quick) on the default report, 24 (8 with --quick) on a file")
    p.add_argument("--skip-statements", action="store_true",
                   help="only the built-in theorem instances, not the statements of pyfed's Lean files")
    p.add_argument("--replay", metavar="FILE.json",
                   help="re-decide a counterexample written by --out exactly (statement from the recorded file, "
                        "or PATH.lean); exit 1 if the violation is re-confirmed")
    p.add_argument("--force", action="store_true", help="with --replay: accept a statement file that changed")
    p.add_argument("--implementation", metavar="ADAPTER",
                   help="run the statements that apply to a conforming implementation (pyfed conform ADAPTER) on its "
                        "own trajectories (Monte Carlo rows)")
    from .search import add_parallel_arguments
    add_parallel_arguments(p, "the constant profile's candidates (with PATH.lean)")
    add_limit_arguments(p)
    p.set_defaults(func=run)


def run(args) -> int:
    """Execute ``pyfed check``; returns 1 if some verdict is violated, else 0.

    Every argument is validated before any computation (InputError naming the flag, exit 2):
    ``--seed`` >= 0, ``--replicates`` >= 2, ``--budget`` >= 1, ``--json`` a creatable file path
    (not empty, not a directory, in an existing writable directory).
    """
    if getattr(args, "implementation", None):
        from .conform import run_implementation
        return run_implementation(args)
    if getattr(args, "replay", None):
        from .replay import run as run_replay
        return run_replay(args)
    if getattr(args, "force", False):
        raise InputError("--force", "only applies with --replay")
    from ..check import default_replicates, run_check
    from ..errors import check_int, check_output_file
    from ..report import report_json

    check_int("--seed", args.seed, minimum=0)
    if args.replicates is not None:
        check_int("--replicates", args.replicates, minimum=2)
    if args.budget is not None:
        check_int("--budget", args.budget, minimum=1)
    if args.json is not None:
        check_output_file("--json", args.json)
    if getattr(args, "timing", False) and not args.json:
        raise InputError("--timing", "only applies with --json PATH")
    limits = limits_from_args(args)
    if getattr(args, "path", None):
        return run_file(args, limits)
    for opt in ("theorem", "out", "workers", "scheduler"):
        if getattr(args, opt, None) is not None:      # --workers 0 too: no silent acceptance
            raise InputError(f"--{opt}", "only applies with a PATH.lean to check")
    if getattr(args, "no_profile", False):
        raise InputError("--no-profile", "only applies with a PATH.lean to check")
    reps = args.replicates if args.replicates is not None else default_replicates(args.quick)
    cost, option = suite_cost(reps, args.budget, args.quick, args.skip_statements)
    refuse_if_over(cost, limits, option)
    console = make_console()
    statements, statement_files = [], []
    statement_budget = None
    with Stages("pyfed check") as stages:
        verdicts = run_check(quick=args.quick, seed=args.seed, replicates=reps, progress=stages.start)
        if not args.skip_statements:
            from ..lean.paths import theorem_files
            from ..search import default_statement_budget, run_all

            statement_budget = default_statement_budget(args.quick) if args.budget is None else args.budget
            statement_files = [rel for rel, _ in theorem_files()]
            statements = run_all(budget=args.budget, seed=args.seed, quick=args.quick,
                                 progress=lambda name: stages.start(f"statement {name}"))
    if args.json:       # first: a finished result is never lost to an error while printing
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(report_json(verdicts, seed=args.seed, quick=args.quick, replicates=reps,
                                     budget=statement_budget, statements=statements, files=statement_files,
                                     timing=getattr(args, "timing", False)) + "\n")
        except OSError as exc:  # checked before the run; only a change since then gets here
            raise InputError("--json", f"cannot write {args.json!r}: {exc.strerror or exc}") from None
    render_verdicts(console, verdicts, "pyfed check")
    if statements:
        render_statement_verdicts(console, statements)
    if args.json:
        print_line(console, f"JSON report written to {escape(args.json)}")
    print_line(console, f"theorem instances: {summary_counts(verdicts)}")
    found = sum(v.status == "violated" for _, v in statements)
    if statements:
        print_line(console, f"statements: {len(statements)} searched, {found} with a counterexample")
        # every verdict of the report, the search rows included: the JSON summary's counts, and
        # counted as a file report counts them (a search without a counterexample is inconclusive)
        print_line(console, f"all verdicts (theorem instances and statement searches, as in the JSON summary): "
                            f"{summary_counts(list(verdicts) + [v for _, v in statements])}")
    print_line(console, "[dim]pyfed checks the Lean statements numerically on instances and by search; it proves "
                        "nothing in Lean (the statements' proofs are not part of pyfed).[/dim]")
    return 1 if any(v.status == "violated" for v in verdicts) or found else 0


def suite_cost(replicates: int, budget, quick: bool, skip_statements: bool):
    """(estimated :class:`pyfed.resources.Cost`, option to lower) of ``pyfed check`` on the
    default suite: its Monte Carlo instances with ``replicates`` replicates, then the searches of
    pyfed's statements with ``budget`` random draws each (the default budget when None)."""
    from .. import resources
    from ..search import default_statement_budget

    def estimate(**kw):
        cost = resources.default_suite(kw["--replicates"], quick)
        if not skip_statements:
            from ..checkers.registry import names
            b = kw["--budget"] if kw["--budget"] is not None else default_statement_budget(quick)
            cost = cost + resources.statement_searches(names(), b, quick)
        return cost

    values = {"--replicates": replicates, "--budget": budget}
    defaults = {"--replicates": 64 if quick else 256, "--budget": None}
    return estimate(**values), resources.blame(estimate, values, defaults)


def file_cost(statements, replicates: int, budget: int, quick: bool, no_profile: bool):
    """(estimated :class:`pyfed.resources.Cost`, option to lower) of ``pyfed check PATH.lean``
    on the statements read: each statement's Monte Carlo instances with ``replicates``
    replicates (only the statements the built-in instances apply to: none for a run-free
    statement), its search (``budget`` random draws, then the search by optimisation's points) and
    constant profile
    (:func:`pyfed.engines.statement.profile_size` candidates)."""
    from .. import resources

    from ..engines.search.optimise import DEFAULT_DECISIONS, QUICK_DECISIONS
    with_runs = sum(st.model.builtin_applies(st) is None for st in statements)
    points = QUICK_DECISIONS if quick else DEFAULT_DECISIONS      # the search by optimisation's, at most

    def estimate(**kw):
        b = kw["--budget"]
        cands = sum(b + points + (st.model.profile_size(st, b) if not no_profile and st.model.profiles(st) is None
                                  else 0) for st in statements)
        return resources.statement_file(cands, kw["--replicates"], with_runs, quick)

    values = {"--replicates": replicates, "--budget": budget}
    defaults = {"--replicates": 64 if quick else 256, "--budget": 8 if quick else 24}
    return estimate(**values), resources.blame(estimate, values, defaults)


def _read_all(paths, theorem=None):
    """[(path, statements)] for every file of ``paths`` (:func:`pyfed.statements.read_file`: one
    reader for every shape), all read before any
    computation (a ReaderError or unreadable file in any of them: exit 2 before the work).
    ``theorem`` applies to every file: with one file its absence is that file's error; with
    several, files without it contribute nothing (they are still read, so a syntax error or a
    missing ``import Pyfed`` is still reported) and it is an InputError naming ``--theorem``
    only when no file has it."""
    from ..models.registry import read_file

    if len(paths) == 1:
        return [(paths[0], read_file(paths[0], theorem=theorem))]
    out = []
    available = []
    for path in paths:
        try:
            out.append((path, read_file(path, theorem=theorem)))
        except InputError as exc:
            if theorem is None or exc.argument != "--theorem":
                raise
            available += [f"{n} ({path})" for n in getattr(exc, "available", [])]
            out.append((path, []))
    if theorem is not None and not any(sts for _, sts in out):
        from ..statements.reader import missing_theorem_message
        raise InputError("--theorem", missing_theorem_message(theorem, "any of " + ", ".join(map(str, paths)),
                                                              available))
    return out


def run_file(args, limits=None) -> int:
    """``pyfed check PATH.lean [PATH.lean ...]``: read every file's theorems (all files before
    any computation), decide each with every engine, print the default report's table per
    theorem (plus the constant profile) file by file, write one JSON report with every
    statement and the counterexample files; exit 1 iff some verdict of some file is violated
    (2 for an unreadable file, before any work). ``args.path`` is a list of paths (a single
    string is accepted as one file). The
    constant profile's candidates go through :mod:`pyfed.parallel` (``--workers`` /
    ``--scheduler``, validated before any work; the output does not depend on them), with a
    progress bar over them. The estimated cost (:func:`pyfed.resources.statement_file`) is
    checked against ``limits`` (default: from ``--max-memory`` / ``--max-seconds``) once the
    files are read, before any work."""
    from ..check import check_statement, default_budget, default_replicates
    from ..parallel import Pool, check_workers
    from ..report import statement_report_json

    paths = [args.path] if isinstance(args.path, str) else list(args.path)
    if args.budget is not None:
        from ..errors import check_int
        check_int("--budget", args.budget, minimum=1)
    workers, scheduler = check_workers(getattr(args, "workers", None), getattr(args, "scheduler", None))
    limits = limits if limits is not None else limits_from_args(args)
    if args.out is not None:          # `--out ""` too: refused here, before any reading or search
        from ..search import prepare_out
        prepare_out(args.out)
    read = _read_all(paths, args.theorem)      # ReaderError: exit 2 with file:line:col
    reps = args.replicates if args.replicates is not None else default_replicates(args.quick)
    budget = default_budget(args.quick) if args.budget is None else args.budget
    sts = [st for _, statements in read for st in statements]
    cost, option = file_cost(sts, reps, budget, args.quick, args.no_profile)
    refuse_if_over(cost, limits, option)
    console = make_console()
    results = []        # [(path, reports)]
    with Stages("pyfed check") as stages, \
            Pool(workers=None if args.no_profile else workers, scheduler=None if args.no_profile else scheduler) \
            as pool:    # an unreachable --scheduler is an InputError here, before any work
        for path, statements in read:
            reports = []
            # several files: each stage names its file (two files may state theorems of the same name)
            where = f"{os.path.basename(str(path))}: " if len(read) > 1 else ""
            for st in statements:
                rep = check_statement(st, quick=args.quick, seed=args.seed, replicates=reps, budget=args.budget,
                                      profile=False, out=args.out,
                                      progress=lambda label, where=where: stages.start(where + str(label)))
                if not args.no_profile and not rep.vacuous and st.model.profiles(st) is None:
                    # the profile's candidates through pyfed.parallel
                    stages.start(f"{where}{st.name}: constant profile")
                    advance, close = stages.bar(f"{where}{st.name}: constant profile",
                                                st.model.profile_size(st, budget))
                    rep.profile = st.model.constant_profile(st, seed=args.seed, budget=budget, pool=pool,
                                                            progress=lambda k, advance=advance: advance(k))
                    close()
                reports.append(rep)
            results.append((path, reports))
    all_reports = [r for _, reports in results for r in reports]
    if args.json:       # first: a finished result is never lost to an error while printing
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(statement_report_json(all_reports, seed=args.seed, quick=args.quick, replicates=reps,
                                               budget=budget, files=paths,
                                               timing=getattr(args, "timing", False)) + "\n")
        except OSError as exc:  # checked before the run; only a change since then gets here
            raise InputError("--json", f"cannot write {args.json!r}: {exc.strerror or exc}") from None
    for path, reports in results:
        _render_file(console, path, reports, args.theorem)
    if args.json:
        print_line(console, f"JSON report written to {escape(args.json)}")
    verdicts = [v for r in all_reports for v in r.verdicts]
    for path, reports in results:
        vs = [v for r in reports for v in r.verdicts]
        vac = sum(bool(r.vacuous) for r in reports)
        print_line(console, f"{len(reports)} statement(s) from {escape(str(path))}: {_statement_counts(reports)}; "
                            f"rows: {summary_counts(vs)}" + (f"; {vac} vacuous (hypotheses never hold)" if vac else ""))
    if len(results) > 1:
        print_line(console, f"all {len(results)} files, {len(all_reports)} statement(s): "
                            f"{_statement_counts(all_reports)}; rows: {summary_counts(verdicts)}")
    print_line(console, "[dim]pyfed checks the Lean statements numerically on instances and by search; it proves "
                        "nothing in Lean.[/dim]")
    return 1 if any(v.status == "violated" for v in verdicts) else 0


def _statement_counts(reports) -> str:
    """The statements by :func:`pyfed.report.statement_status` (the JSON report's
    ``summary.statements``): "1 violated, 1 holding on every row, 2 inconclusive". One violated row
    makes a statement false; rows that hold (an instance, a PEP certificate at stated parameters)
    do not make it true. Vacuous statements are not counted here (the summary line counts them
    apart)."""
    from ..report import statement_status
    counts = {s: 0 for s in ("violated", "holds", "inconclusive")}
    for r in reports:
        if not r.vacuous:       # counted apart ("1 vacuous"); the JSON entry says vacuous too
            counts[statement_status(r.verdicts)] += 1
    return f"{counts['violated']} violated, {counts['holds']} holding on every row, {counts['inconclusive']} inconclusive"


def _render_file(console, path, reports, theorem=None) -> None:
    """Print one file's part of ``pyfed check PATH.lean …``: the verdict table, PEP note,
    counterexample and constant profile of each statement."""
    if not reports:
        print_line(console, f"  [dim]{escape(str(path))}: no theorem {escape(str(theorem))} (nothing to check)[/dim]")
        return
    for rep in reports:
        note = rep.vacuity_note()
        if rep.vacuous:   # nothing was run on it: the note is all there is to say
            print_line(console, f"  [bold yellow]{escape(note)}[/bold yellow]")
            continue
        render_verdicts(console, rep.verdicts, f"pyfed check {path}")
        if note:
            print_line(console, f"  [bold yellow]{escape(note)}[/bold yellow]")
        for v in rep.verdicts:
            red = (v.details or {}).get("step_reduced")
            if red:
                print_line(console, "  " + escape(f"{rep.statement.name}: {v.details.get('instance')}: {red['text']} "
                                                  f"(h = K ηl ηg = {red['h']})"))
        for name, why in rep.skipped:
            print_line(console, f"  [yellow]{escape(f'{rep.statement.name}: built-in instance {name} not used: {why}')}[/yellow]")
        if rep.pep_note:
            print_line(console, f"  [yellow]{escape(f'{rep.statement.name}: {rep.pep_note}')}[/yellow]")
        s = rep.search.verdict
        if s.status == "violated":
            rel = rep.statement.relation if rep.statement.relation in ("≤", "<", "=") else "≤"
            wording = s.details.get("witness_text") or violation_wording(
                rel, _short(s.details.get("lhs_exact")), _short(s.details.get("rhs_exact")),
                s.details.get("lhs_exact") == s.details.get("rhs_exact"))
            print_line(console, "  [red]" + escape(f"{rep.statement.name}: counterexample (candidate {s.details.get('index')}): "
                                             f"{s.details.get('description')}; {wording} "
                                             + ("(certified ball enclosures; the JSON report has their bounds)"
                                                if getattr(s, "balls", None) else
                                                "(exact; the JSON report has every digit)")) + "[/red]")
        elif (s.details or {}).get("reach"):      # how far a search without counterexample went
            print_line(console, "  [dim]" + escape(f"{rep.statement.name}: {reach_text(s.details['reach'])}") + "[/dim]")
        for out in rep.exports:
            print_line(console, f"  counterexample written to {escape(str(out))}")
        if rep.profile is not None:
            render_profile(console, rep.profile)
