"""``pyfed check``: the main job's front end -- runs the default suite (:mod:`pyfed.check`) and
the statement catalogue (:mod:`pyfed.checkers.registry`), or the theorems of the given Lean
files, prints the tables (:mod:`pyfed.commands.render`), writes the reports (JSON, JUnit XML,
HTML: :mod:`pyfed.report_formats`, atomically: :mod:`pyfed.outputs`); exit status 1 iff some
verdict is violated. ``-k PATTERN`` selects theorems by name (:func:`theorem_filter`)."""

from __future__ import annotations

import os
from types import SimpleNamespace

from rich.markup import escape

from ..errors import InputError
from ..report import statement_status
from ..resources import add_limit_arguments, limits_from_args, refuse_if_over
from . import COMMAND_HELP, make_console, print_line
from .display import Stages
from .render import render_file, render_statement_verdicts, render_verdicts, statement_counts, summary_counts

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run", "run_file", "theorem_filter", "DESCRIPTION"]

#: ``pyfed check --help``'s description.
DESCRIPTION = """\
Decide Lean statements about federated optimization (SCAFFOLD, FedAvg, Local SGD, run-free lemmas)
on instances, by adversarial search and over function classes (PEP), and print one verdict per row:
holds (certified, or numerical evidence), violated (with a witness that re-checks exactly) or
inconclusive (with the reason).

Without PATH.lean it checks pyfed's built-in suite and every theorem of pyfed's own Lean files.
With PATH.lean it checks the theorems of those files (they import Pyfed or one of its modules).
Exit status: 0 nothing violated; 1 some verdict violated; 2 bad input (one line naming it);
3 internal error; 5 a numerical library failed. Defaults for the options can be set in a
[tool.pyfed] table of pyproject.toml, or in pyfed.toml (found from the current directory upwards);
options on the command line win."""

_EPILOG = """\
examples:
  pyfed check examples/statements/young_small_constant.lean
  pyfed check my_bounds.lean -k "Young and not Relaxed" --quick --junit-xml report.xml --html report.html
  pyfed check my_bounds.lean --out counterexamples --json -
  pyfed check --replay counterexamples/YoungHalfConstant-s0-c0.json"""


def register(subparsers) -> None:
    """Add the ``check`` subcommand to an argparse subparsers object (sets ``func=run``)."""
    import argparse

    p = subparsers.add_parser("check", help=COMMAND_HELP["check"], description=DESCRIPTION, epilog=_EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", nargs="*", metavar="PATH.lean",
                   help="check the theorems of these Lean files (they import Pyfed) instead of the default suite; "
                        "all files are read before any computation")
    p.add_argument("--theorem", metavar="NAME", help="with PATH.lean: only this theorem (in every file that has it)")
    p.add_argument("-k", metavar="PATTERN", dest="select",
                   help="only the theorems whose name matches PATTERN: a substring (case-insensitive), or an "
                        "expression of substrings with and, or, not and parentheses, as pytest's -k "
                        "(e.g. -k \"Young and not Relaxed\")")
    p.add_argument("--out", metavar="DIR", help="with PATH.lean: write counterexamples (JSON + Lean) to DIR")
    p.add_argument("--no-profile", action="store_true", help="with PATH.lean: skip the constant profile")
    p.add_argument("--seed", type=int, default=None, help="seed of every random generator (default 0)")
    p.add_argument("--replicates", type=int, default=None,
                   help="Monte Carlo replicates per instance (default 256, 64 with --quick)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 64 replicates (32 per round start in the conditional FedAvg lemmas), T = 8 "
                        "on the built-in instances and a small search budget "
                        "(2 random draws per statement of the default report, 8 per statement of a file)")
    p.add_argument("--json", metavar="PATH", help="also write a JSON report to PATH ('-': standard output, the tables "
                                                  "then go to standard error); checked before the run, written "
                                                  "atomically; it holds no clock readings unless --timing is given")
    p.add_argument("--junit-xml", metavar="PATH", dest="junit_xml",
                   help="also write a JUnit XML report for CI servers: one test case per statement (violated: a "
                        "failure with the witness; inconclusive: skipped with the reason; holds: passed)")
    p.add_argument("--html", metavar="PATH",
                   help="also write a self-contained HTML report (tables, plots, witnesses, certificates)")
    p.add_argument("--timing", action="store_true",
                   help="with --json/--junit-xml/--html: add the engines' wall-clock figures (the JSON report's "
                        "'timing' key; without it the same command writes a byte-identical report for any --workers)")
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
    if getattr(args, "replay", None):
        _refuse_with_replay(args)
        from .replay import run as run_replay
        return run_replay(args)
    if getattr(args, "seed", None) is None:
        args.seed = 0
    if getattr(args, "implementation", None):
        from .conform import run_implementation
        return run_implementation(args)
    if getattr(args, "force", False):
        raise InputError("--force", "only applies with --replay")
    from ..check import default_replicates, run_check
    from ..errors import check_int
    from ..report import report_json

    if args.seed is None:
        args.seed = 0
    check_int("--seed", args.seed, minimum=0)
    if args.replicates is not None:
        check_int("--replicates", args.replicates, minimum=2)
    if args.budget is not None:
        check_int("--budget", args.budget, minimum=1)
    check_outputs(args)
    select = theorem_filter(args.select) if getattr(args, "select", None) is not None else None
    limits = limits_from_args(args)
    if getattr(args, "path", None):
        return run_file(args, limits)
    for opt in ("theorem", "out", "workers", "scheduler"):
        if getattr(args, opt, None) is not None:      # --workers 0 too: no silent acceptance
            raise InputError(f"--{opt}", "only applies with a PATH.lean to check")
    if getattr(args, "no_profile", False):
        raise InputError("--no-profile", "only applies with a PATH.lean to check")
    if select is not None and args.skip_statements:
        raise InputError("-k", "selects theorems of the statement table, which --skip-statements leaves out")
    reps = args.replicates if args.replicates is not None else default_replicates(args.quick)
    cost, option = suite_cost(reps, args.budget, args.quick, args.skip_statements)
    refuse_if_over(cost, limits, option)
    console = make_console(report_stream(args))
    statements, statement_files = [], []
    statement_budget = None
    with Stages("pyfed check") as stages:
        # -k selects theorems: the built-in theorem instances (the default suite's rows) are then left out
        verdicts = [] if select is not None else run_check(quick=args.quick, seed=args.seed, replicates=reps,
                                                           progress=stages.start)
        if not args.skip_statements:
            from ..checkers.registry import catalogue
            from ..lean.paths import theorem_files
            from ..search import default_statement_budget, run_all

            statement_budget = default_statement_budget(args.quick) if args.budget is None else args.budget
            statement_files = [rel for rel, _ in theorem_files()]
            chosen = [e for e in catalogue() if select is None or select(e.display, e.name)]
            if not chosen:
                raise InputError("-k", f"no theorem of pyfed's Lean files matches {args.select!r}; their names: "
                                       + ", ".join(e.display for e in catalogue()))
            stages.units(len(chosen), "statements")
            statements = run_all(budget=args.budget, seed=args.seed, quick=args.quick,
                                 select=None if select is None else (lambda e: select(e.display, e.name)),
                                 progress=lambda name: stages.start(f"statement {name}", unit=True))
    problems = write_reports(args, lambda: report_json(
        verdicts, seed=args.seed, quick=args.quick, replicates=reps, budget=statement_budget, statements=statements,
        files=statement_files, timing=getattr(args, "timing", False)))    # first: never lost to a printing error
    if verdicts:
        render_verdicts(console, verdicts, "pyfed check")
    else:
        print_line(console, f"built-in theorem instances left out: -k {escape(args.select)} selects theorems of the "
                            "statement table")
    if statements:
        render_statement_verdicts(console, statements)
    _say_written(console, args, problems)
    print_line(console, f"theorem instances: {summary_counts(verdicts)}")
    found = sum(v.status == "violated" for _, v in statements)
    if statements:
        # the statements as a file report counts them (the JSON's summary.statements), then every row
        proofs = [(v, getattr(v, "proof", None)) for _, v in statements]
        rows = [SimpleNamespace(status=statement_status([v], proof), proof=proof) for v, proof in proofs]
        print_line(console, f"statements: {len(statements)} searched, {found} with a counterexample; "
                            f"{statement_counts(rows)} (only a proof makes a statement hold; the JSON report has "
                            "each proof)")
        print_line(console, f"rows (theorem instances and statement searches, as in the JSON summary.verdicts): "
                            f"{summary_counts(list(verdicts) + [v for _, v in statements])}")
    print_line(console, "[dim]pyfed checks the Lean statements numerically on instances and by search; it proves "
                        "nothing in Lean (the statements' proofs are not part of pyfed).[/dim]")
    return _status(any(v.status == "violated" for v in verdicts) or found, problems)


# ------------------------------------------------------------------------------------------
# outputs, selection, replay's options
# ------------------------------------------------------------------------------------------

#: The report files of ``pyfed check``: (flag, attribute).
REPORT_OPTIONS = (("--json", "json"), ("--junit-xml", "junit_xml"), ("--html", "html"))


def check_outputs(args) -> None:
    """Validate every report path before the run (:func:`pyfed.outputs.check_output`), refuse two
    outputs on one path or on the ``--out`` directory, and ``--timing`` without a report."""
    from ..outputs import check_distinct, check_output

    given = {flag: getattr(args, attr, None) for flag, attr in REPORT_OPTIONS}
    for flag, path in given.items():
        if path is not None:
            check_output(flag, path)
    check_distinct(given, out_dir=getattr(args, "out", None))
    if getattr(args, "timing", False) and not any(given.values()):
        raise InputError("--timing", "only applies with --json, --junit-xml or --html")


def report_stream(args):
    """Where the tables go: standard error when a report goes to standard output (``-``)."""
    import sys
    return sys.stderr if any(getattr(args, attr, None) == "-" for _, attr in REPORT_OPTIONS) else None


def write_reports(args, make_json) -> list:
    """Write the reports asked for (JSON, JUnit XML, HTML; the last two from the JSON document),
    each atomically; returns the :class:`pyfed.outputs.OutputNotWritten` errors (each report saved
    elsewhere), so every other report is still written and the tables still printed."""
    wanted = [(flag, getattr(args, attr, None)) for flag, attr in REPORT_OPTIONS if getattr(args, attr, None)]
    if not wanted:
        return []
    import json

    from ..outputs import OutputNotWritten, write_output
    from ..report_formats import html_report, junit_xml

    text = make_json()
    doc = json.loads(text) if any(flag != "--json" for flag, _ in wanted) else None
    problems = []
    for flag, path in wanted:
        if flag == "--json":
            body = text + "\n"
        elif flag == "--junit-xml":
            body = junit_xml(doc)
        else:
            body = html_report(doc, base_dir=os.path.dirname(os.path.abspath(path)) if path != "-" else None)
        try:
            write_output(flag, path, body)
        except OutputNotWritten as exc:
            problems.append(exc)
    return problems


def _say_written(console, args, problems) -> None:
    import sys

    failed = {p.argument for p in problems}
    for flag, attr in REPORT_OPTIONS:
        path = getattr(args, attr, None)
        if path and path != "-" and flag not in failed:
            print_line(console, f"{ {'--json': 'JSON', '--junit-xml': 'JUnit XML', '--html': 'HTML'}[flag]} report "
                                f"written to {escape(path)}")
    for p in problems:
        print(f"pyfed: error: {p}", file=sys.stderr)


def _status(violated: bool, problems) -> int:
    """1 iff some verdict is violated; 2 when a report could not be written (it was saved elsewhere)."""
    from ..errors import EXIT_INPUT
    if problems:
        return EXIT_INPUT
    return 1 if violated else 0


#: Options of ``pyfed check`` that a replay does not take, with why: given with ``--replay`` they
#: are refused (exit 2), never silently ignored.
_NOT_WITH_REPLAY = {
    "seed": ("--seed", "a replay draws nothing: it re-decides the recorded instance exactly"),
    "quick": ("--quick", "a replay re-decides one recorded instance exactly; there is nothing to shorten"),
    "budget": ("--budget", "a replay runs no search"),
    "replicates": ("--replicates", "a replay runs no Monte Carlo"),
    "theorem": ("--theorem", "the record names its statement"),
    "select": ("-k", "the record names its statement"),
    "out": ("--out", "a replay writes no counterexample files (use --json for its result)"),
    "no_profile": ("--no-profile", "a replay runs no constant profile"),
    "skip_statements": ("--skip-statements", "a replay checks one recorded statement"),
    "junit_xml": ("--junit-xml", "a replay's result is written with --json"),
    "html": ("--html", "a replay's result is written with --json"),
    "timing": ("--timing", "a replay has no engine timings"),
    "workers": ("--workers", "a replay re-decides one instance in this process"),
    "scheduler": ("--scheduler", "a replay re-decides one instance in this process"),
    "implementation": ("--implementation", "not with --replay"),
}


def _refuse_with_replay(args) -> None:
    """Refuse (InputError, exit 2, one line) every option given with ``--replay`` that a replay
    does not honour; ``--json`` (the replay's result), ``PATH.lean`` and ``--force`` are honoured."""
    for attr, (flag, why) in _NOT_WITH_REPLAY.items():
        value = getattr(args, attr, None)
        if value not in (None, False):
            raise InputError(flag, f"does not apply with --replay: {why}")
    if getattr(args, "json", None) is not None:
        from ..outputs import check_output
        check_output("--json", args.json)


def theorem_filter(pattern: str):
    """A predicate ``select(*names) -> bool`` for ``-k PATTERN``, as pytest's ``-k``: a word
    matches a theorem when it is a case-insensitive substring of one of its names (bare or
    qualified); words combine with ``and``, ``or``, ``not`` and parentheses. InputError (``-k``)
    for an empty or malformed expression."""
    import re

    text = str(pattern).strip()
    if not text:
        raise InputError("-k", "is empty: give a substring of a theorem name, e.g. -k Young")
    tokens = re.findall(r"\(|\)|[^\s()]+", text)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def expr():
        left = conj()
        while peek() == "or":
            take()
            right = conj()
            left = (lambda a, b: lambda names: a(names) or b(names))(left, right)
        return left

    def conj():
        left = neg()
        while peek() == "and":
            take()
            right = neg()
            left = (lambda a, b: lambda names: a(names) and b(names))(left, right)
        return left

    def neg():
        if peek() == "not":
            take()
            inner = neg()
            return lambda names: not inner(names)
        return atom()

    def atom():
        tok = peek()
        if tok is None or tok in (")", "and", "or"):
            raise InputError("-k", f"malformed expression {text!r}: expected a name "
                                   + (f"before {tok!r}" if tok else "at its end"))
        take()
        if tok == "(":
            inner = expr()
            if peek() != ")":
                raise InputError("-k", f"malformed expression {text!r}: missing ')'")
            take()
            return inner
        word = tok.lower()
        return lambda names: any(word in str(n).lower() for n in names)

    predicate = expr()
    if peek() is not None:
        raise InputError("-k", f"malformed expression {text!r}: unexpected {peek()!r}")
    return lambda *names: bool(predicate(names))


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
    constant profile (:meth:`pyfed.models.protocol.Model.profile_size` candidates), a candidate
    costing the evaluation of the statement at the search's largest sizes
    (:meth:`pyfed.models.protocol.Model.evaluation_steps`)."""
    from .. import resources
    from ..engines.search.optimise import DEFAULT_DECISIONS, QUICK_DECISIONS
    with_runs = sum(st.model.builtin_applies(st) is None for st in statements)
    per_candidate = [resources.candidate_seconds(st.model.evaluation_steps(st)) for st in statements]
    points = QUICK_DECISIONS if quick else DEFAULT_DECISIONS      # the search by optimisation's, at most

    def estimate(**kw):
        b = kw["--budget"]
        cands = [b + points + (st.model.profile_size(st, b) if not no_profile and st.model.profiles(st) is None
                               else 0) for st in statements]
        seconds = sum(n * s for n, s in zip(cands, per_candidate))
        return resources.statement_file(sum(cands), kw["--replicates"], with_runs, quick,
                                        seconds / sum(cands) if sum(cands) else None)

    values = {"--replicates": replicates, "--budget": budget}
    defaults = {"--replicates": 64 if quick else 256, "--budget": 8 if quick else 24}
    return estimate(**values), resources.blame(estimate, values, defaults)


def _read_all(paths, theorem=None):
    """[(path, statements)] for every file of ``paths`` (:func:`pyfed.read_file`: one
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
    if getattr(args, "seed", None) is None:
        args.seed = 0
    check_outputs(args)
    select = theorem_filter(args.select) if getattr(args, "select", None) is not None else None
    if args.budget is not None:
        from ..errors import check_int
        check_int("--budget", args.budget, minimum=1)
    workers, scheduler = check_workers(getattr(args, "workers", None), getattr(args, "scheduler", None))
    limits = limits if limits is not None else limits_from_args(args)
    if args.out is not None:          # `--out ""` too: refused here, before any reading or search
        from ..search import prepare_out
        prepare_out(args.out)
    read = _read_all(paths, args.theorem)      # ReaderError: exit 2 with file:line:col
    if select is not None:
        names = [f"{st.name} ({path})" for path, sts in read for st in sts]
        read = [(path, [st for st in sts if select(st.name, st.qualified_name)]) for path, sts in read]
        if not any(sts for _, sts in read):
            raise InputError("-k", f"no theorem matches {args.select!r}; the files' theorems: "
                                   + (", ".join(names) or "none"))
    reps = args.replicates if args.replicates is not None else default_replicates(args.quick)
    budget = default_budget(args.quick) if args.budget is None else args.budget
    sts = [st for _, statements in read for st in statements]
    cost, option = file_cost(sts, reps, budget, args.quick, args.no_profile)
    refuse_if_over(cost, limits, option)
    console = make_console(report_stream(args))
    results = []        # [(path, reports)]
    with Stages("pyfed check") as stages, \
            Pool(workers=None if args.no_profile else workers, scheduler=None if args.no_profile else scheduler) \
            as pool:    # an unreachable --scheduler is an InputError here, before any work
        stages.units(len(sts), "statements")
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
                stages.unit_done()
                reports.append(rep)
            results.append((path, reports))
    all_reports = [r for _, reports in results for r in reports]
    problems = write_reports(args, lambda: statement_report_json(    # first: never lost to a printing error
        all_reports, seed=args.seed, quick=args.quick, replicates=reps, budget=budget, files=paths,
        timing=getattr(args, "timing", False)))
    for path, reports in results:
        render_file(console, path, reports, args.theorem)
    _say_written(console, args, problems)
    verdicts = [v for r in all_reports for v in r.verdicts]
    for path, reports in results:
        vs = [v for r in reports for v in r.verdicts]
        vac = sum(bool(r.vacuous) for r in reports)
        print_line(console, f"{len(reports)} statement(s) from {escape(str(path))}: {statement_counts(reports)}; "
                            f"rows: {summary_counts(vs)}" + (f"; {vac} vacuous (hypotheses never hold)" if vac else ""))
    if len(results) > 1:
        print_line(console, f"all {len(results)} files, {len(all_reports)} statement(s): "
                            f"{statement_counts(all_reports)}; rows: {summary_counts(verdicts)}")
    print_line(console, "[dim]pyfed checks the Lean statements numerically on instances and by search, and proves "
                        "that a statement holds only with an exact proof (a reduction to a published statement with "
                        "an accepted proof, exact certificates); it checks no proof in Lean.[/dim]")
    return _status(any(v.status == "violated" for v in verdicts), problems)
