"""The report renderers of ``pyfed check`` (default suite, statement files, an implementation's
trajectories): one row per verdict, the statement tables, the constant profile, the summary
counts. They print what the engines computed; the engines never print."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..engines.proof.proof import LABELS
from ..engines.search.space import reach_text
from ..exact import format_estimate, format_estimate_ratio, format_number, format_parameter
from ..verdicts import Evidence, violation_wording
from . import STYLE, print_line
from .display import print_table

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["evidence", "summary_counts", "render_verdicts", "render_statement_verdicts", "render_profile",
           "statement_counts", "render_proof", "render_file"]

_fmt = format_number


def _apart(lhs, rhs, ratio, apart: bool) -> tuple[str, str, str]:
    """The two sides and their ratio for a table row; ``apart`` (a violated row): with as many
    digits as it takes for the printed sides to differ and the ratio not to read 1 (up to 30;
    balls print only their certified digits), so a violation never reads "3651.07 > 3651.07"."""
    digits = 6
    while True:
        a, b, r = _fmt(lhs, digits), _fmt(rhs, digits), _fmt(ratio, max(4, digits - 2))
        if not apart or (a != b and r != "1") or digits >= 30:
            return a, b, r
        digits += 4


def evidence(v) -> str:
    """What a theorem verdict rests on: exact rationals, a certified ball, a Monte Carlo
    interval (with its level and R: the ± in the left-side column is its half-width) or a
    numerical SDP (PEP)."""
    f = v.facts
    inst, mc, search, pep = f.instance, f.monte_carlo, f.search, f.pep
    # conditional FedAvg lemmas: Monte Carlo from several round starts (joint level), or exact at
    # every round start
    if mc is not None:
        where = f", {mc.starts} round starts (joint)" if mc.starts else ""
        return f"Monte Carlo {mc.level:.1%} t-interval, R={mc.replicates}{where}"
    if getattr(v, "evidence", None) is Evidence.PEP_CERTIFICATE:
        return "PEP certificate over the class, exact"
    if pep is not None and v.status == "violated" and pep.reproduced:   # the SDP's violation, decided again exactly
        return "PEP worst case, re-verified in exact rationals"
    if pep is not None and pep.solver_tol is not None:
        return f"PEP SDP, numerical (tol {pep.solver_tol:g})"
    if search is not None:
        n, b = search.decided, search.decided_in_balls
        if b:
            return f"search: {n} instance{'' if n == 1 else 's'} decided ({n - b} exactly, {b} in certified balls)"
        return f"search: {n} instance{'' if n == 1 else 's'} decided exactly"
    every = ", every round start" if inst.every_round_start else ""
    if "ball" in inst.arithmetic:
        return "exact moments, certified ball" + every
    if inst.arithmetic:
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
        src = next((v.facts.source for v in vs if v.facts.source), None)
        ours = not src or str(src).startswith("lean/Pyfed/Scaffold/")      # pyfed's SCAFFOLD statements
        name = f"SCAFFOLD.{theorem}" if ours and "." not in theorem else theorem
        t = Table(title=escape(f"{title}: {name}" + (f" ({src})" if src else "")), show_lines=False)
        # column widths from print_table: every word whole, cells wrapped between words, rows stacked
        # as "field: value" lines when the columns cannot fit
        for col in ("instance", "hypotheses", "left side", "right side", "ratio", "verdict", "evidence"):
            t.add_column(col)
        for v in vs:
            f = v.facts
            bad = [h.statement for h in f.instance.hypotheses if not h.holds]
            if bad:
                hyp = escape("FAIL: " + ", ".join(bad))
            elif not f.instance.hypotheses and f.search is not None and f.search.decided == 0:
                met = f.search.in_hypotheses        # candidates inside the hypotheses (conclusion undecided)
                hyp = f"met on {met} of {f.search.candidates}" if met else "none met"
            else:
                hyp = "all met"
            mc = f.monte_carlo
            balls = getattr(v, "balls", None) or {}
            lhs, rhs, ratio = _apart(balls.get("lhs", v.lhs), balls.get("rhs", v.rhs), balls.get("ratio", v.ratio),
                                     v.status == "violated")
            if mc:      # the ratio of an estimate: no more significant digits than its printed mean has
                lhs, ratio = format_estimate(mc.mean, mc.half_width), format_estimate_ratio(v.ratio, mc.mean,
                                                                                            mc.half_width)
            t.add_row(escape(str(f.instance.instance or "-")), hyp, lhs, rhs,
                      ratio, f"[{STYLE.get(v.status, '')}]{v.label}[/]", evidence(v))
        print_table(console, t)
        for v in vs:
            f = v.facts
            p = f.instance.parameters
            if p:
                print_line(console, "  [dim]" + escape(f"{f.instance.instance}: "
                                                       + ", ".join(f"{k}={format_parameter(p[k])}" for k in p))
                           + "[/dim]")
            reason = getattr(v, "reason", "")
            if reason:
                print_line(console, f"  [yellow]{escape(str(f.instance.instance))}: {escape(str(reason))}[/yellow]")
            wt = f.witness_text if f.search is None else None     # a search's witness is printed under its file
            if v.status == "violated" and wt:
                print_line(console, f"  [red]{escape(str(f.instance.instance))}: {escape(str(wt))}[/red]")


def render_statement_verdicts(console, results) -> None:
    """Print one row per statement of ``run_all``'s [(lean_name, Verdict)]: the search result
    (a counterexample, or none among N candidates), the verdict, the tightest lhs/rhs found,
    how each candidate was decided, and the search statistics."""
    from rich.table import Table

    style = {"holds": "bold green", "violated": "bold red", "inconclusive": "bold yellow"}
    t = Table(title="pyfed check: the statements of lean/Pyfed (namespace SCAFFOLD unless qualified): adversarial "
                    "search per statement")
    t.add_column("statement", no_wrap=True)
    for col in ("search result", "verdict", "tightest lhs", "rhs", "lhs/rhs", "candidates decided", "drawn"):
        t.add_column(col, no_wrap=True)
    for name, v in results:
        sf = v.facts.search
        if v.status == "violated":
            result = "[bold red]COUNTEREXAMPLE[/]"
        else:
            result = (sf.result if sf is not None else "") or "-"
        exactly = v.exact if sf is None or sf.tightest_exact is None else sf.tightest_exact
        how = "exactly" if exactly else "in certified balls" if sf is not None and sf.lhs_ball else "mpmath"
        held = sf.holds if sf is not None and sf.holds is not None else "-"
        decided = f"{held} ({how})" if v.status != "violated" else "-"
        drawn = "-" if sf is None else (sf.drawn if sf.drawn is not None else sf.candidates)
        proof = getattr(v, "proof", None)
        if proof is not None and proof.complete and v.status != "violated":
            verdict = f"[{style['holds']}]{LABELS[proof.kind]}[/]"      # the statement's, not the search's
        else:
            verdict = f"[{style.get(v.status, '')}]{v.label}[/]"
        lhs, rhs, ratio = _apart(v.lhs, v.rhs, v.ratio, v.status == "violated")
        t.add_row(escape(name), escape(str(result)), verdict, lhs, rhs, ratio, decided, str(drawn))
    print_table(console, t)
    print_line(console, "  [dim]verdict: the statement's. A `holds` verdict is a proof of the whole statement (the JSON "
                        "report has its steps); otherwise the search's: a search that finds no counterexample proves "
                        "nothing, so such a statement is inconclusive by design (unlike the per-instance verdicts "
                        "above). lhs/rhs = 1: the bound is attained on the tightest instance; '-': no ratio (the "
                        "right side is 0 or negative, where lhs/rhs says nothing about tightness). drawn = candidates "
                        "generated (structured edge cases + the budget's random draws + the candidates refined from "
                        "them); decided = those inside the hypotheses whose inequality was decided.[/dim]")


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
    """Print a constant profile (see :func:`pyfed.models.scaffold.profile.constant_profile`):
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


def statement_counts(reports) -> str:
    """The statements by :func:`pyfed.report.statement_status` (the JSON report's
    ``summary.statements``): "1 violated, 2 hold (1 published, proved; 1 vacuously), 2
    inconclusive". One violated row makes a statement false; only a complete proof makes it hold
    (rows that hold, an instance or a PEP certificate at stated parameters, do not)."""
    counts = {s: 0 for s in ("violated", "holds", "inconclusive")}
    kinds: dict = {}
    for r in reports:
        st = r.status
        counts[st] += 1
        if st == "holds":
            kinds[r.proof.kind] = kinds.get(r.proof.kind, 0) + 1
    how = "; ".join(f"{n} {LABELS[k].removeprefix('holds ').strip('()')}" for k, n in sorted(kinds.items()))
    return (f"{counts['violated']} violated, {counts['holds']} hold" + (f" ({how})" if how else "")
            + f", {counts['inconclusive']} inconclusive")


def render_proof(console, rep) -> None:
    """The proof engine's lines for one statement: the complete proof (green), else the partial
    proofs with their scopes and the first attempts that failed, with why."""
    name = rep.statement.name
    if rep.proof is not None and rep.status == "violated":
        print_line(console, "  [red]" + escape(f"{name}: a proof ({rep.proof.label}) and a violated row disagree: one of "
                                               "them rests on a wrong reading of the statement or a wrong engine; "
                                               "please report it") + "[/red]")
    if rep.proof is not None:
        print_line(console, "  [green]" + escape(f"{name}: {rep.proof.text()}") + "[/green]")
        src = rep.proof.source.get("proof")
        if src:
            print_line(console, "  " + escape(f"{name}: proof of {rep.proof.source.get('lean_name')}: {src}"))
        if rep.proof.kind in ("reduction", "certificate"):
            for step in rep.proof.steps:
                if step.detail and step.method != "published, accepted proof":
                    print_line(console, "  [dim]" + escape(f"  {step.claim}: {step.detail}") + "[/dim]")
        return
    if rep.status == "violated":     # a witness settles it: the proofs that were not found say nothing more
        return
    for part in rep.outcome.partial:
        print_line(console, "  [yellow]" + escape(f"{name}: {part.text()}") + "[/yellow]")
    for att in rep.outcome.attempts[:2]:
        print_line(console, "  [dim]" + escape(f"{name}: not proven by {att.kind} to {att.against}: {att.reason}")
                   + "[/dim]")


def render_file(console, path, reports, theorem=None) -> None:
    """Print one file's part of ``pyfed check PATH.lean …``: the verdict table, PEP note,
    counterexample and constant profile of each statement."""
    if not reports:
        print_line(console, f"  [dim]{escape(str(path))}: no theorem {escape(str(theorem))} (nothing to check)[/dim]")
        return
    for rep in reports:
        note = rep.vacuity_note()
        if rep.vacuous:   # nothing was run on it: the note is all there is to say
            print_line(console, f"  [bold yellow]{escape(note)}[/bold yellow]")
            render_proof(console, rep)
            continue
        render_verdicts(console, rep.verdicts, f"pyfed check {path}")
        render_proof(console, rep)
        if note:
            print_line(console, f"  [bold yellow]{escape(note)}[/bold yellow]")
        for v in rep.verdicts:
            red = v.facts.instance.step_reduced
            if red:
                print_line(console, "  " + escape(f"{rep.statement.name}: {v.facts.instance.instance}: {red['text']} "
                                                  f"(h = K ηl ηg = {red['h']})"))
        for name, why in rep.skipped:
            print_line(console, f"  [yellow]{escape(f'{rep.statement.name}: built-in instance {name} not used: {why}')}[/yellow]")
        if rep.pep_note:
            print_line(console, f"  [yellow]{escape(f'{rep.statement.name}: {rep.pep_note}')}[/yellow]")
        s = rep.search.verdict
        sf = s.facts.search
        if s.status == "violated" and sf is not None:
            rel = rep.statement.relation if rep.statement.relation in ("≤", "<", "=") else "≤"
            wording = sf.witness_text or violation_wording(rel, _short(sf.lhs_exact), _short(sf.rhs_exact),
                                                           sf.lhs_exact == sf.rhs_exact)
            print_line(console, "  [red]" + escape(f"{rep.statement.name}: counterexample (candidate {sf.index}): "
                                             f"{sf.description}; {wording} "
                                             + ("(certified ball enclosures; the JSON report has their bounds)"
                                                if getattr(s, "balls", None) else
                                                "(exact; the JSON report has every digit)")) + "[/red]")
        elif sf is not None and sf.reach:      # how far a search without counterexample went
            print_line(console, "  [dim]" + escape(f"{rep.statement.name}: {reach_text(sf.reach)}") + "[/dim]")
        for out in rep.exports:
            print_line(console, f"  counterexample written to {escape(str(out))}")
        for out in rep.proof_files:
            print_line(console, f"  proof artefact written to {escape(str(out))}")
        if rep.profile is not None:
            render_profile(console, rep.profile)
