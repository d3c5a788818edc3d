"""``pyfed check``: the main job's front end -- runs the default suite (:mod:`pyfed.check`) and
the statement checkers (:mod:`pyfed.checkers`), prints one table per theorem and the statement table,
writes the JSON report; exit status 1 iff some verdict is violated."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import InputError
from ..exact import format_estimate, format_estimate_ratio, format_number, format_parameter
from ..resources import add_limit_arguments, limits_from_args, refuse_if_over
from . import STYLE, make_console, print_line
from .display import Stages, print_table

__all__ = ["register", "run", "run_file", "evidence", "summary_counts", "render_verdicts",
           "render_statement_verdicts", "render_profile"]

_fmt = format_number


def register(subparsers) -> None:
    """Add the ``check`` subcommand to an argparse subparsers object (sets ``func=run``)."""
    p = subparsers.add_parser("check", help="verdicts on the SCAFFOLD and FedAvg theorems over the default suite, or on the "
                                            "theorems of a Lean file (pyfed check PATH.lean)")
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
                   help="a smoke run: 64 replicates, and each statement checker's structured edge cases only "
                        "(search budget 0: no random draws)")
    p.add_argument("--json", metavar="PATH", help="also write a JSON report to PATH (checked before the run)")
    p.add_argument("--budget", type=int, default=None,
                   help="search budget per statement checker, >= 1: the number of random draws of its "
                        "search (each checker also tries its structured edge cases, and some refine each "
                        "draw by a local optimisation: the table's 'drawn' column counts them all); "
                        "default: each checker's own (its quick budget with --quick)")
    p.add_argument("--skip-statements", action="store_true",
                   help="only the theorem instances, not the statement checkers of checkers/")
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


def evidence(v) -> str:
    """What a theorem verdict rests on: exact rationals, a certified ball, a Monte Carlo
    interval (with its level and R: the ± in the left-side column is its half-width) or a
    numerical SDP (PEP)."""
    d = v.details or {}
    est = d.get("estimate")
    # conditional FedAvg lemmas: Monte Carlo from several round starts (joint level), or exact at
    # every round start
    where = f", {d['starts']} round starts (joint)" if d.get("starts") else ""
    every = ", every round start" if d.get("checked") else ""
    if est:
        level = d.get("joint_confidence", est["confidence"])
        return f"Monte Carlo {level:.1%} t-interval, R={est['replicates']}{where}"
    if "solver_tol" in d:
        return f"PEP SDP, numerical (tol {d['solver_tol']:g})"
    if str(d.get("engine", "")).startswith("adversarial search"):
        return f"search: {d.get('decided', 0)} instances decided exactly"
    arith = str(d.get("arithmetic", ""))
    if "ball" in arith:
        return "exact moments, certified ball" + every
    if arith:
        return "exact moments, exact rationals" + every
    return "exact" if v.exact else "-"


def _kind(v) -> str:
    """The short name of a verdict's evidence ("Monte Carlo", "PEP SDP", "exact moments", ...)."""
    return evidence(v).split(",")[0].split(" (")[0].replace(" 99.9% t-interval", "")


def summary_counts(verdicts) -> str:
    """One summary line for a list of verdicts, holds split into certified and numerical (with
    what the numerical ones rest on) and violated into exact and statistical/numerical, e.g.
    ``"3 holds (2 certified, 1 numerical: 1 Monte Carlo), 1 violated, 0 inconclusive"``."""
    holds = [v for v in verdicts if v.status == "holds"]
    violated = [v for v in verdicts if v.status == "violated"]
    inconclusive = sum(v.status == "inconclusive" for v in verdicts)
    numerical = [v for v in holds if not v.certified]
    kinds: dict[str, int] = {}
    for v in numerical:
        k = _kind(v)
        kinds[k] = kinds.get(k, 0) + 1
    num = f"{len(numerical)} numerical" + (": " + ", ".join(f"{n} {k}" for k, n in kinds.items()) if kinds else "")
    out = f"{len(holds)} holds ({len(holds) - len(numerical)} certified, {num}), {len(violated)} violated"
    loose = sum(not v.certified for v in violated)
    if loose:
        out += f" ({len(violated) - loose} exact, {loose} statistical or numerical)"
    return out + f", {inconclusive} inconclusive"


def render_verdicts(console: Console, verdicts, title: str) -> None:
    """Print one table per theorem: instance, hypotheses, LHS (± CI), RHS, ratio, verdict."""
    by_theorem: dict[str, list] = {}
    for v in verdicts:
        by_theorem.setdefault(v.statement, []).append(v)
    for theorem, vs in by_theorem.items():
        src = next((v.details.get("source") for v in vs if (v.details or {}).get("source")), None)
        name = theorem if (src or "." in theorem) else f"SCAFFOLD.{theorem}"
        t = Table(title=escape(f"{title}: {name}" + (f" ({src})" if src else "")), show_lines=False)
        # column widths from print_table: every word whole, cells wrapped between words, rows stacked
        # as "field: value" lines when the columns cannot fit
        for col in ("instance", "hypotheses", "left side", "right side", "ratio", "verdict", "evidence"):
            t.add_column(col)
        for v in vs:
            d = v.details
            hyps = d.get("hypotheses", [])
            bad = [h["statement"] for h in hyps if not h["holds"]]
            hyp = "all met" if not bad else escape("FAIL: " + ", ".join(bad))
            est = d.get("estimate")
            balls = getattr(v, "balls", None) or {}
            lhs = (format_estimate(est["mean"], est["upper"] - est["mean"]) if est
                   else _fmt(balls.get("lhs", v.lhs)))
            # the ratio of an estimate: no more significant digits than its printed mean has
            ratio = (format_estimate_ratio(v.ratio, est["mean"], est["upper"] - est["mean"]) if est
                     else _fmt(balls.get("ratio", v.ratio), 4))
            t.add_row(escape(str(d.get("instance", "-"))), hyp, lhs, _fmt(balls.get("rhs", v.rhs)),
                      ratio, f"[{STYLE.get(v.status, '')}]{v.label}[/]", evidence(v))
        print_table(console, t)
        for v in vs:
            d = v.details
            p = d.get("parameters")
            if p:
                print_line(console, "  [dim]" + escape(f"{d.get('instance')}: " + ", ".join(f"{k}={format_parameter(p[k])}" for k in p))
                              + "[/dim]")
            reason = getattr(v, "reason", "")
            if reason:
                print_line(console, f"  [yellow]{escape(str(d.get('instance')))}: {escape(str(reason))}[/yellow]")
            wt = d.get("witness_text")
            if v.status == "violated" and wt and not str(d.get("engine", "")).startswith("adversarial search"):
                print_line(console, f"  [red]{escape(str(d.get('instance')))}: {escape(str(wt))}[/red]")


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
    from ..report import report_json
    from ..errors import check_int, check_output_file

    check_int("--seed", args.seed, minimum=0)
    if args.replicates is not None:
        check_int("--replicates", args.replicates, minimum=2)
    if args.budget is not None:
        check_int("--budget", args.budget, minimum=1)
    if args.json is not None:
        check_output_file("--json", args.json)
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
    statements = []
    with Stages("pyfed check") as stages:
        verdicts = run_check(quick=args.quick, seed=args.seed, replicates=reps, progress=stages.start)
        if not args.skip_statements:
            from ..search import run_all

            statements = run_all(budget=args.budget, seed=args.seed, quick=args.quick,
                                 progress=lambda name: stages.start(f"statement checker {name}"))
    if args.json:       # first: a finished result is never lost to an error while printing
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(report_json(verdicts, seed=args.seed, quick=args.quick, replicates=reps,
                                     statements=statements) + "\n")
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
    print_line(console, "[dim]pyfed checks the Lean statements numerically on instances and by search; it proves "
                        "nothing in Lean (the statements' proofs are not part of pyfed).[/dim]")
    return 1 if any(v.status == "violated" for v in verdicts) or found else 0


def suite_cost(replicates: int, budget, quick: bool, skip_statements: bool):
    """(estimated :class:`pyfed.resources.Cost`, option to lower) of ``pyfed check`` on the
    default suite: its Monte Carlo instances with ``replicates`` replicates, then the statement
    checkers with ``budget`` random draws each (their own budgets when None)."""
    from .. import resources

    def estimate(**kw):
        cost = resources.default_suite(kw["--replicates"], quick)
        if not skip_statements:
            from ..checkers.registry import names
            cost = cost + resources.statement_checkers(names(), kw["--budget"], quick)
        return cost

    values = {"--replicates": replicates, "--budget": budget}
    defaults = {"--replicates": 64 if quick else 256, "--budget": None}
    return estimate(**values), resources.blame(estimate, values, defaults)


def file_cost(statements, replicates: int, budget: int, quick: bool, no_profile: bool):
    """(estimated :class:`pyfed.resources.Cost`, option to lower) of ``pyfed check PATH.lean``
    on the statements read: each statement's Monte Carlo instances with ``replicates``
    replicates, its search (``budget`` random draws) and constant profile
    (:func:`pyfed.engines.statement.profile_size` candidates)."""
    from .. import resources
    from ..engines.statement import profile_size

    def estimate(**kw):
        b = kw["--budget"]
        cands = sum(b + (0 if no_profile else profile_size(st, b)) for st in statements)
        return resources.statement_file(cands, kw["--replicates"], len(statements), quick)

    values = {"--replicates": replicates, "--budget": budget}
    defaults = {"--replicates": 64 if quick else 256, "--budget": 8 if quick else 24}
    return estimate(**values), resources.blame(estimate, values, defaults)


def render_statement_verdicts(console, results) -> None:
    """Print one row per statement of ``run_all``'s [(lean_name, Verdict)]: the search result
    (a counterexample, or none among N candidates), the verdict, the tightest lhs/rhs found,
    how each candidate was decided, and the search statistics."""
    from rich.table import Table

    style = {"holds": "bold green", "violated": "bold red", "inconclusive": "bold yellow"}
    t = Table(title="pyfed check: statement checkers (namespace SCAFFOLD unless qualified): adversarial search "
                    "per statement")
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
        t.add_row(escape(name), escape(str(result)), f"[{style.get(v.status, '')}]{v.label}[/]", _fmt(v.lhs), _fmt(v.rhs),
                  _fmt(v.ratio), decided, str(d.get("drawn", d.get("candidates", "-"))))
    print_table(console, t)
    print_line(console, "  [dim]A search that finds no counterexample does not prove a statement: such rows are "
                        "inconclusive by design (unlike the per-instance verdicts above). lhs/rhs = 1: the bound is "
                        "attained on the tightest instance; '-': both sides 0 (an identity). drawn = candidates "
                        "generated (structured edge cases + the budget's random draws + the candidates refined from them); "
                        "decided = those inside the hypotheses whose inequality was decided.[/dim]")




def _short(exact: str | None) -> str:
    """An exact rational for display: itself when short, else ~ its correctly rounded float."""
    if exact is None:
        return "-"
    if len(exact) <= 40:
        return exact
    from fractions import Fraction
    from ..exact import as_float
    try:
        return f"~{as_float(Fraction(exact)):.6g}"
    except (ValueError, ZeroDivisionError):
        return exact[:40] + "…"


def render_profile(console, profile) -> None:
    """Print a constant profile (see :func:`pyfed.engines.statement.constant_profile`):
    one line up front when the statement is already violated at its own constants, then one
    short row per constant. Thresholds print exactly when short, else as the engine's certified
    decimal rounded toward the safe side (``needed_decimal``); the JSON report has them exact."""
    from rich.markup import escape

    viol = profile.get("violated")
    if viol:
        console.print(f"  [red]{escape(profile['statement'])} is already violated at its own constants (candidate "
                      f"#{viol['index']}: {escape(viol['description'])}): the profile only shows how far each "
                      "constant would have to move to exclude the violations drawn.[/red]", highlight=False)
    t = Table(title=escape(f"constant profile: {profile['statement']} (seed {profile['seed']}, "
                           f"budget {profile['budget']})"))
    for col in ("constant", "where", "needed on the decided instances", "pinned by", "decided"):
        t.add_column(col, overflow="fold")
    for c in profile["constants"]:
        cmp = (">" if c["strict"] else ">=") if c["direction"] in ("at least", "between") else \
            ("<" if c["strict"] else "<=")
        if c.get("not_needed"):
            need = "not needed on these instances (any value >= 0 works)"
            if viol:    # the violations drawn do not depend on it: no value of it excludes them
                need += "; no value of it excludes the violations drawn"
        elif c["needed"] is None:
            need = c["note"]
        else:
            need = f"{cmp} {c.get('needed_display') or c['needed_decimal']}"
            if c["direction"] == "between":
                need += f" and {'<' if c.get('needed_high_strict') else '<='} {c['needed_high_decimal']}"
            if c.get("violated_at_own_value") and not viol:
                need += " (the statement's own value admits a violation)"
            if c.get("note"):       # e.g. not determined on some instances: the caveat stays with the number
                need += f" ({c['note']})"
        pin = c.get("pinned_by")
        where = c["description"] + (f" [{c['location']}]" if c["location"] else "")
        t.add_row(escape(c["constant"]), escape(where), escape(need),   # the user's text is not markup
                  escape(f"#{pin['index']}: {pin['description']}") if pin else "-", str(c["decided"]))
    print_table(console, t)
    for sk in profile.get("skipped") or ():
        print_line(console, f"  [dim]not varied: {escape(sk['numeral'])} at {escape(sk['location'])}: "
                            f"{escape(sk['why'])}[/dim]")
    console.print("  [dim]On finitely many exactly decided instances: evidence about the constants, not a proof. "
                  "Decimals are rounded toward the safe side; the JSON report has the exact values.[/dim]")


def _read_with_checkers(path, theorem=None):
    """(statements, []) of the file at ``path`` (only ``theorem`` if given): every theorem of the
    file through the one reader, whatever its shape (a run, a FedAvg run, a run-free lemma).
    Anything unsupported raises ReaderError; a missing ``theorem`` raises InputError naming
    ``--theorem``."""
    from ..statements import read_file

    return read_file(path, theorem=theorem), []


def _read_all(paths, theorem=None):
    """[(path, statements, lemma names)] for every file of ``paths``, all read before any
    computation (a ReaderError or unreadable file in any of them: exit 2 before the work).
    ``theorem`` applies to every file: with one file its absence is that file's error; with
    several, files without it contribute nothing (they are still read, so a syntax error or a
    missing ``import Pyfed`` is still reported) and it is an InputError naming ``--theorem``
    only when no file has it."""
    if len(paths) == 1:
        return [(paths[0], *_read_with_checkers(paths[0], theorem))]
    out = []
    available = []
    for path in paths:
        try:
            out.append((path, *_read_with_checkers(path, theorem)))
        except InputError as exc:
            if theorem is None or exc.argument != "--theorem":
                raise
            available += [f"{n} ({path})" for n in getattr(exc, "available", [])]
            out.append((path, [], []))
    if theorem is not None and not any(sts or lem for _, sts, lem in out):
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
    from ..report import statement_report_json
    from ..engines.statement import constant_profile, profile_size
    from ..parallel import Pool, check_workers

    paths = [args.path] if isinstance(args.path, str) else list(args.path)
    if args.budget is not None:
        from ..errors import check_int
        check_int("--budget", args.budget, minimum=1)
    workers, scheduler = check_workers(getattr(args, "workers", None), getattr(args, "scheduler", None))
    limits = limits if limits is not None else limits_from_args(args)
    if args.out:
        from ..search import prepare_out
        prepare_out(args.out)
    read = _read_all(paths, args.theorem)      # ReaderError: exit 2 with file:line:col
    reps = args.replicates if args.replicates is not None else default_replicates(args.quick)
    budget = default_budget(args.quick) if args.budget is None else args.budget
    sts = [st for _, statements, _ in read for st in statements]
    cost, option = file_cost(sts, reps, budget, args.quick, args.no_profile)
    refuse_if_over(cost, limits, option)
    console = make_console()
    results = []        # [(path, reports, checked lemmas)]
    with Stages("pyfed check") as stages, \
            Pool(workers=None if args.no_profile else workers, scheduler=None if args.no_profile else scheduler) \
            as pool:    # an unreachable --scheduler is an InputError here, before any work
        for path, statements, lemmas in read:
            reports = []
            for st in statements:
                rep = check_statement(st, quick=args.quick, seed=args.seed, replicates=reps, budget=args.budget,
                                      profile=False, out=args.out, progress=stages.start)
                if not args.no_profile and not rep.vacuous and getattr(st, "shape", "scaffold_run") == "scaffold_run":
                    # the profile's candidates through pyfed.parallel (the profile reads SCAFFOLD run statements)
                    stages.start(f"{st.name}: constant profile")
                    advance, close = stages.bar(f"{st.name}: constant profile", profile_size(st, budget))
                    rep.profile = constant_profile(st, seed=args.seed, budget=budget, pool=pool,
                                                   progress=lambda k, advance=advance: advance(k))
                    close()
                reports.append(rep)
            results.append((path, reports, list(lemmas)))
    all_reports = [r for _, reports, _ in results for r in reports]
    all_lemmas = [lem for _, _, lemmas in results for lem in lemmas]
    if args.json:       # first: a finished result is never lost to an error while printing
        try:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(statement_report_json(all_reports, seed=args.seed, quick=args.quick, replicates=reps,
                                               path=paths[0] if len(paths) == 1 else None, files=paths,
                                               lemmas=all_lemmas) + "\n")
        except OSError as exc:  # checked before the run; only a change since then gets here
            raise InputError("--json", f"cannot write {args.json!r}: {exc.strerror or exc}") from None
    for path, reports, checked_lemmas in results:
        _render_file(console, path, reports, checked_lemmas, args.theorem)
    if args.json:
        print_line(console, f"JSON report written to {escape(args.json)}")
    verdicts = [v for r in all_reports for v in r.verdicts] + [v for _, v in all_lemmas]
    for path, reports, checked_lemmas in results:
        vs = [v for r in reports for v in r.verdicts] + [v for _, v in checked_lemmas]
        vac = sum(bool(r.vacuous) for r in reports)
        print_line(console, f"{len(reports)} statement(s) from {escape(str(path))}: {summary_counts(vs)}"
                   + (f"; {vac} vacuous (hypotheses never hold)" if vac else ""))
    if len(results) > 1:
        print_line(console, f"all {len(results)} files, {len(all_reports)} statement(s): {summary_counts(verdicts)}")
    print_line(console, "[dim]pyfed checks the Lean statements numerically on instances and by search; it proves "
                        "nothing in Lean.[/dim]")
    return 1 if any(v.status == "violated" for v in verdicts) else 0


def _render_file(console, path, reports, checked_lemmas, theorem=None) -> None:
    """Print one file's part of ``pyfed check PATH.lean …``: the verdict table, PEP note,
    counterexample and constant profile of each statement, then the lemmas' checker table."""
    if not reports and not checked_lemmas:
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
            wording = s.details.get("witness_text") or (f"left side {_short(s.details.get('lhs_exact'))} > right side "
                                                        f"{_short(s.details.get('rhs_exact'))}")
            print_line(console, "  [red]" + escape(f"{rep.statement.name}: counterexample (candidate {s.details.get('index')}): "
                                             f"{s.details.get('description')}; {wording} (exact; the JSON report has "
                                             "every digit)") + "[/red]")
        for out in rep.exports:
            print_line(console, f"  counterexample written to {escape(str(out))}")
        if rep.profile is not None:
            render_profile(console, rep.profile)
    if checked_lemmas:
        names = ", ".join(name for name, _ in checked_lemmas)
        print_line(console, f"  [dim]{escape(names)}: not about a run; checked by their registered statement "
                      "checkers (checkers/), as in the default report[/dim]")
        render_statement_verdicts(console, checked_lemmas)
