"""``pyfed profile``: the two-sided constant profile of one statement -- per constant, the values
violated by an exact witness (the adversarial search's threshold on its decided instances, and
the PEP row's re-verified witnesses) and the values with a verified PEP certificate over the
whole class, at one or several values of T or K (:mod:`pyfed.engines.statement.pep_profile`).
This module parses and validates the command line (every check before any solve), shows
progress on stderr, prints one line per constant and parameter value, and writes
``profile.json`` (exact rationals as strings) and one PNG per constant."""

from __future__ import annotations

import json
import os
import re
from fractions import Fraction
from pathlib import Path

from rich.markup import escape

from ..errors import EXIT_OK, EXIT_VIOLATED, InputError, check_int, prepare_output_dir
from . import COMMAND_HELP
from ..exact import rational_str

__all__ = ["register", "run", "resolve_statement", "resolve_constants", "parse_values", "interval_line",
           "profile_statement", "MAX_SIZE"]

#: Largest N·K·T of a PEP row the command accepts (its SDP grows with N, K and T; issue 21's scale).
MAX_SIZE = 60

_DESCRIPTION = (
    "Two-sided constant profile of one statement (a theorem of pyfed's Lean files by name, or PATH.lean): "
    "for each constant of the right side (the model's 9 and 12 inside convexRHS, the file's numerals) and of "
    "each step-size hypothesis (the 81 of h <= 1/(81 beta)), the values violated by an exact witness (the "
    "adversarial search's threshold on its instances, seed --seed, budget --budget) and the values with a "
    "verified exact PEP certificate over every beta-smooth convex client set at fixed small parameters "
    "(sigma = 0, S = N; halving, then bisection on the constant, each point one certificate). A right-side "
    "constant is 'certified at c and above' only when the right side is checked to be monotone in it; a "
    "hypothesis constant is certified at the points listed, each at the largest step it admits only. Writes "
    "profile.json (exact rationals as strings; same seed: byte-identical) and profile-<constant>.png "
    "(bounds against --parameter) to --out.")


def register(subparsers) -> None:
    """Add the ``profile`` subcommand to an argparse subparsers object (sets ``func=run``)."""
    p = subparsers.add_parser("profile", help=COMMAND_HELP["profile"],
                              description=_DESCRIPTION)
    p.add_argument("statement", metavar="NAME|PATH.lean",
                   help="a statement of pyfed's Lean files (e.g. ConvexFiniteRoundConvergence) or a Lean file")
    p.add_argument("--theorem", metavar="NAME", help="with PATH.lean: the theorem to profile (required when the "
                                                     "file states several)")
    p.add_argument("--constant", action="append", default=[], metavar="KEY",
                   help="constant to profile (repeatable): its key (e.g. convexRHS.potential=9, step_size:81@36:34), "
                        "its value when unique (9, 12, 81) or its model name (potential, noise); default: every "
                        "constant of the statement")
    p.add_argument("--parameter", default="T", choices=["T", "K"], help="parameter the plot runs over (default T)")
    p.add_argument("--values", default=None, metavar="V,V,...",
                   help="values of --parameter, integers >= 1 (default: the value of --T / --K)")
    p.add_argument("--N", type=int, default=2, help="clients of the PEP row, S = N (default 2)")
    p.add_argument("--K", type=int, default=2, help="local steps of the PEP row (default 2)")
    p.add_argument("--T", type=int, default=2, help="rounds of the PEP row (default 2)")
    p.add_argument("--mu", default="0", help="μ >= 0 of the PEP row's class, a rational (default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed of the search side, >= 0 (default 0)")
    p.add_argument("--budget", type=int, default=4, help="random draws of the search side, >= 1 (default 4)")
    p.add_argument("--no-search", action="store_true", help="PEP side only (no adversarial search)")
    p.add_argument("--halvings", type=int, default=8,
                   help="largest number of halvings (or doublings) of a constant before bisection (default 8)")
    p.add_argument("--refine", type=int, default=4, help="bisection steps after the halvings (default 4)")
    p.add_argument("--try-zero", action="store_true",
                   help="when every halving of a right-side constant is certified, also try the value 0 (one "
                        "more point, often slow)")
    p.add_argument("--out", default=None, metavar="DIR", help="directory for profile.json and the PNGs (required)")
    p.set_defaults(func=run)


def parse_values(text, name: str = "--values") -> list:
    """``"2,3,4"`` -> [2, 3, 4]: distinct integers >= 1, in the order given. InputError naming
    ``name`` otherwise (empty, not an integer, below 1, repeated)."""
    parts = [x.strip() for x in str(text).split(",")]
    if not parts or any(not x for x in parts):
        raise InputError(name, f"must be a comma-separated list of integers >= 1 such as 2,3,4, got {text!r}")
    out = []
    for x in parts:
        if not re.fullmatch(r"\+?\d+", x):
            raise InputError(name, f"must be a comma-separated list of integers >= 1 such as 2,3,4, got {x!r}")
        v = int(x)
        if v < 1:
            raise InputError(name, f"values must be >= 1, got {v}")
        if v in out:
            raise InputError(name, f"{v} is given twice")
        out.append(v)
    return out


def resolve_statement(target: str, theorem=None):
    """(statement, Lean text, source path) of ``target``: a ``.lean`` path (with ``--theorem``
    when it states several theorems) or the name of a theorem of pyfed's Lean files. InputError
    naming ``NAME|PATH.lean`` or ``--theorem`` otherwise (before any solve); a conjunction must be
    narrowed to one conjunct (``--theorem NAME.1``)."""
    from ..statements import read_file, read_text

    target = str(target)
    if target.endswith(".lean") or os.path.isfile(target):
        sts = read_file(target, theorem=theorem.split(".")[0] if theorem else None)
        text = Path(target).read_text(encoding="utf-8").removeprefix("\ufeff")
        source = target
    else:
        from pyfed.checkers.registry import get

        try:
            entry = get(target)
        except InputError as exc:
            raise InputError("NAME|PATH.lean", exc.reason) from None
        text = entry.text()
        sts = read_text(text, entry.file, theorem=entry.bare)
        source = entry.file
    if theorem is not None and "." in theorem and len(sts) > 1:
        sts = [s for s in sts if s.name == theorem or s.name.endswith("." + theorem.split(".", 1)[1])
               and s.name.split(".")[0] == theorem.split(".")[0]]
    if len(sts) != 1:
        names = ", ".join(s.name for s in sts) or "none"
        raise InputError("--theorem", f"{target} states {len(sts)} statements ({names}): pick one with --theorem")
    return sts[0], text, source


def resolve_constants(st, wanted) -> list:
    """The :func:`~pyfed.engines.statement.constants.literals` keys to profile: every constant of
    ``st`` when ``wanted`` is empty, else each given key, value (when one constant has it) or model
    name (``potential``). InputError naming ``--constant`` for an unknown or ambiguous one."""
    from ..engines.statement.constants import literals

    lits = literals(st)
    if not lits:
        raise InputError("--constant", f"{st.name} has no constant to profile")
    if not wanted:
        return [lit.key for lit in lits]
    out = []
    for w in wanted:
        w = str(w).strip()
        hits = [lit for lit in lits if lit.key == w]
        if not hits:
            hits = [lit for lit in lits if lit.model is not None and lit.model[1] == w]
        if not hits:
            try:
                v = Fraction(w)
                hits = [lit for lit in lits if lit.value == v]
            except (ValueError, ZeroDivisionError):
                hits = []
        if len(hits) != 1:
            why = "is ambiguous" if hits else "is not a constant of the statement"
            raise InputError("--constant", f"{w!r} {why}; the constants of {st.name} are "
                                           f"{', '.join(lit.key for lit in lits)}")
        if hits[0].key not in out:
            out.append(hits[0].key)
    return out


def _short(x) -> str:
    return rational_str(Fraction(x)) if x is not None else "-"


def _num(x, up: bool) -> str:
    """An exact value as p/q when short, else a decimal rounded outward (``up``: rounded up)."""
    from ..engines.statement.profile import outward_decimal
    text = rational_str(Fraction(x))
    return text if len(text) <= 12 else outward_decimal(Fraction(x), up=up)


def interval_line(c: dict, point: dict, parameter: str) -> str:
    """One line of the report for constant ``c`` (an entry of :func:`profile_statement`) at one
    parameter value (``point``: its PEP side): "9: violated below 0.0275222 (witness #144 of the
    search, seed 0), certified at 9/4096 and above (PEP certificate, N = 2, K = 2, T = 2, S = N)".
    Every printed digit is certified (decimals rounded toward the claim's safe side)."""
    pep = point["pep"]
    prm = pep["parameters"]
    size = f"N = {prm['N']}, K = {prm['K']}, T = {prm['T']}, S = N, σ = 0" + \
        (f", μ = {prm['mu']}" if prm["mu"] != "0" else "")
    parts = []
    s = c.get("search")
    if s is not None:
        if s.get("not_needed"):
            parts.append(f"no witness on the search's {s['decided']} instances")
        elif s.get("needed") is None:
            text = s.get("statement") or "no threshold"
            if text.startswith(c["description"] + ": "):
                text = text[len(c["description"]) + 2:]
            parts.append(f"search: {text}")
        elif s["direction"] in ("at least", "between"):
            rel = "at and below" if s.get("strict") else "below"
            parts.append(f"violated {rel} {s['needed_inner']} (witness #{s['pinned_index']} of the search, seed "
                         f"{s['seed']}, budget {s['budget']})")
        else:
            rel = "at and above" if s.get("strict") else "above"
            parts.append(f"violated {rel} {s['needed_inner']} (witness #{s['pinned_index']} of the search, seed "
                         f"{s['seed']}, budget {s['budget']})")
    if not pep["applies"]:
        parts.append(f"the PEP cannot speak to it ({pep['reason']}; {size})")
    else:
        up = pep.get("direction", "at least") == "at least"
        w = pep.get("largest_witness")
        if w is not None:
            side = (" and below" if up else " and above") if pep.get("monotone") else ""
            parts.append(f"violated at {_num(w, not up)}{side} (exact witness of the PEP row, {size})")
        cf = pep.get("certified_from")
        if cf is None:
            parts.append(f"no certificate up to {_short(pep.get('not_certified_at'))} ({size})")
        elif pep.get("monotone"):
            parts.append(f"certified at {_num(cf, up)} and {'above' if up else 'below'} (PEP certificate, {size})")
        else:
            pts = pep.get("certified_points") or [cf]
            shown = ", ".join(_num(x, up) for x in pts[:4]) + (f" (+{len(pts) - 4} more)" if len(pts) > 4 else "")
            extra = "; each at the largest step it admits only" if pep["kind"] == "hypothesis" else ""
            parts.append(f"certified at these points: {shown} (PEP certificate, {size}{extra})")
        if w is None and cf is not None and pep.get("not_certified_at") is not None:
            parts.append(f"not certified at {_num(pep['not_certified_at'], not up)} (no witness there)")
    return f"{c['constant']}: " + ", ".join(parts)


def _json_default(x):
    if isinstance(x, Fraction):
        return rational_str(x)
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def profile_statement(st, keys, *, text, parameter="T", values=(2,), N=2, K=2, T=2, mu=0, seed=0, budget=4,
                      search=True, halvings=8, refine=4, try_zero=False, progress=None,
                      search_progress=None, stage=None) -> dict:
    """The two-sided profile of the constants ``keys`` of ``st`` (the command's JSON): the search
    side once (:func:`pyfed.engines.statement.profile.constant_profile`, ``search_progress(k)`` as
    k more candidates finish), the PEP side per value of ``parameter`` (:func:`constant_pep_profile`,
    ``progress(label)`` before each PEP point); ``stage(label)`` at the start of the search and of
    each constant's PEP side at each value. Returns {"format": "pyfed.profile/1", "statement",
    "seed", "budget", "parameter", "values", "fixed", "violated_at_own_value", "own_violation" (when
    violated: the search's candidate "index" and "description", or the PEP row's witness), "constants": [{"key",
    "constant", "description", "where", "search" (None without search), "points": [{"value", "pep"}]}]}
    with exact rationals as strings."""
    from ..engines.statement.constants import literals
    from ..engines.statement.pep_profile import constant_pep_profile, search_side

    lits = {lit.key: lit for lit in literals(st)}
    entries = {}
    violated = False
    own_violation = None
    if search:
        from ..engines.statement.profile import constant_profile
        if stage is not None:
            stage("search side")
        prof = constant_profile(st, seed=seed, budget=budget, only=list(keys), progress=search_progress)
        entries = {e["key"]: e for e in prof["constants"]}
        violated = prof["violated"] is not None
        own_violation = prof["violated"]
    out = {"format": "pyfed.profile/1", "statement": st.name, "seed": seed, "budget": budget if search else None,
           "parameter": parameter, "values": list(values),
           "fixed": {"N": N, "K": K, "T": T, "S": "N", "sigma": "0", "beta": "1", "eta_g": "1", "mu": rational_str(mu)},
           "halvings": halvings, "refine": refine, "try_zero": try_zero, "constants": []}
    for key in keys:
        lit = lits[key]
        c = {"key": key, "constant": rational_str(lit.value), "description": lit.description, "where": lit.where,
             "search": search_side(entries[key], seed, budget) if key in entries else None, "points": []}
        for v in values:
            kw = dict(N=N, K=K, T=T, mu=mu)
            kw[parameter] = v

            def tick(value, key=key, v=v):
                if progress is not None:
                    progress(f"{lit.value} at {parameter} = {v}: c = {rational_str(value)}")

            if lits[key].node is None:
                kw["try_zero"] = try_zero
            if stage is not None:
                stage(f"{rational_str(lit.value)} at {parameter} = {v}: PEP certificates")
            pep = constant_pep_profile(st, key, text=text, halvings=halvings, refine=refine, progress=tick, **kw)
            if any(p["result"] == "witness" and Fraction(p["value"]) == lit.value for p in pep["points"]):
                violated = True
                own_violation = own_violation or {"description": f"the PEP row's exact witness at {parameter} = {v}"}
            c["points"].append({"value": v, "pep": pep})
        out["constants"].append(c)
    out["violated_at_own_value"] = violated
    if own_violation is not None:
        out["own_violation"] = {k: own_violation[k] for k in ("index", "description") if k in own_violation}
    return out


def _safe_name(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", key).strip("_")


def run(args) -> int:
    """Execute ``pyfed profile``; returns 1 if the statement is violated at its own constants (a
    witness of the search inside its hypotheses, or of a PEP row at the statement's value), else
    0. Every argument is validated before any solve (InputError naming it, exit 2): the statement
    (it must have a PEP row at every requested size: the reason otherwise), ``--constant``,
    ``--values``, the sizes (N·K·T <= :data:`MAX_SIZE`), ``--mu``, ``--seed``, ``--budget``,
    ``--out``."""
    from . import make_console, print_line

    N = check_int("--N", args.N, minimum=1)
    K = check_int("--K", args.K, minimum=1)
    T = check_int("--T", args.T, minimum=1)
    seed = check_int("--seed", args.seed, minimum=0)
    budget = check_int("--budget", args.budget, minimum=1)
    halvings = check_int("--halvings", args.halvings, minimum=0)
    refine = check_int("--refine", args.refine, minimum=0)
    try:
        mu = Fraction(str(args.mu))
    except (ValueError, ZeroDivisionError):
        raise InputError("--mu", f"must be a rational number such as 0 or 1/10, got {args.mu!r}") from None
    if mu < 0:
        raise InputError("--mu", f"must be >= 0, got {args.mu}")
    values = parse_values(args.values) if args.values is not None else [T if args.parameter == "T" else K]
    for v in values:
        sizes = {"N": N, "K": K, "T": T, args.parameter: v}
        if sizes["N"] * sizes["K"] * sizes["T"] > MAX_SIZE:
            raise InputError("--values" if args.values is not None else f"--{args.parameter}",
                             f"N·K·T = {sizes['N'] * sizes['K'] * sizes['T']} at {args.parameter} = {v} exceeds "
                             f"{MAX_SIZE} (the PEP row's SDP grows with N, K and T)")
    if args.out is None or not str(args.out).strip():
        raise InputError("--out", "required: the directory for profile.json and the plots")
    st, text, source = resolve_statement(args.statement, args.theorem)
    if getattr(st, "shape", None) != "scaffold_run":
        raise InputError("NAME|PATH.lean", f"{st.name} is a {st.family}: the PEP profile is for statements about a "
                                           "SCAFFOLD run")
    keys = resolve_constants(st, args.constant)
    from ..engines.statement.pep import NoPEP, pep_plan
    for v in values:
        kw = dict(N=N, K=K, T=T, mu=mu)
        kw[args.parameter] = v
        try:
            pep_plan(st, **kw)
        except NoPEP as exc:
            hint = "; set the PEP row's sizes with --N, --K, --T" if "problem size" in str(exc) else ""
            raise InputError("NAME|PATH.lean", f"the PEP does not apply to {st.name} at {args.parameter} = {v}: "
                                               f"{exc}{hint}") from None
    prepare_output_dir("--out", args.out)
    console = make_console()
    from .display import Stages
    total = (0 if args.no_search else 1) + len(keys) * len(values)
    with Stages("pyfed profile", total) as stages:
        search_bar = None
        if not args.no_search:
            from ..engines.statement.profile import profile_size
            search_bar = stages.bar(f"{st.name}: search candidates", profile_size(st, budget, only=keys))
        res = profile_statement(
            st, keys, text=text, parameter=args.parameter, values=values, N=N, K=K, T=T, mu=mu, seed=seed,
            budget=budget, search=not args.no_search, halvings=halvings, refine=refine, try_zero=args.try_zero,
            progress=lambda label: stages.note(f"PEP point: {label}"), stage=stages.start,
            search_progress=search_bar[0] if search_bar is not None else None)
        if search_bar is not None:
            search_bar[1]()
    res["source"] = str(source)
    path = os.path.join(args.out, "profile.json")
    with open(path, "w", encoding="utf-8") as fh:      # files first: a finished result is never lost
        fh.write(json.dumps(res, indent=1, ensure_ascii=False, default=_json_default) + "\n")
    from ..engines.statement.pep_profile import plot_certificate_profile
    pngs = []
    for c in res["constants"]:
        rows = [(p["value"], p["pep"]) for p in c["points"] if p["pep"]["applies"]]
        if not rows:
            continue
        s = c.get("search") or {}
        png = os.path.join(args.out, f"profile-{_safe_name(c['key'])}.png")
        plot_certificate_profile(rows, png, constant=c["constant"], parameter=args.parameter,
                                 search_needed=s.get("needed") if s.get("direction") == "at least" else None,
                                 title=f"{st.name}: {c['constant']} ({c['key']})")
        pngs.append(png)
    print_line(console, escape(f"{st.name} ({source}): two-sided constant profile"), highlight=False)
    own = res.get("own_violation")
    if own:     # exit status 1: say why first
        at = f"candidate #{own['index']} of the search: " if "index" in own else ""
        print_line(console, escape(f"{st.name} is violated at its own constants ({at}{own['description']}): the "
                                   "intervals show how far each constant would have to move"), highlight=False,
                   style="red")
    for c in res["constants"]:
        for p in c["points"]:
            head = f"[{args.parameter} = {p['value']}] " if len(values) > 1 else ""
            print_line(console, escape(head + interval_line(c, p, args.parameter)), highlight=False)
    print_line(console, escape(("witnesses of the search are at its own instances' parameters (σ, S, sizes); "
                                if not args.no_search else "") +
                               "a PEP certificate proves the statement at its row's parameters only, for every "
                               "client function of the class"), highlight=False, style="dim")
    print_line(console, f"JSON written to {escape(path)}", highlight=False)
    for png in pngs:
        print_line(console, f"plot written to {escape(png)}", highlight=False)
    return EXIT_VIOLATED if res["violated_at_own_value"] else EXIT_OK
