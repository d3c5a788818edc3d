"""``pyfed profile``: the two-sided constant profile of one statement -- per constant, the values
violated by an exact witness (the adversarial search's threshold on its decided instances, and
the PEP row's re-verified witnesses) and the values with a verified PEP certificate over the
whole class, at one or several values of T or K (the statement's model computes it:
:meth:`pyfed.models.protocol.Model.two_sided_profile`).
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
from ..exact import outward_decimal, rational_str
from ..models.protocol import NotProvided
from . import COMMAND_HELP

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["register", "run", "resolve_statement", "parse_values", "interval_line", "MAX_SIZE"]

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
    from ..models.registry import read_file, read_text

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


def _short(x) -> str:
    return rational_str(Fraction(x)) if x is not None else "-"


def _num(x, up: bool) -> str:
    """An exact value as p/q when short, else a decimal rounded outward (``up``: rounded up)."""
    text = rational_str(Fraction(x))
    return text if len(text) <= 12 else outward_decimal(Fraction(x), up=up)


def interval_line(c: dict, point: dict, parameter: str) -> str:
    """One line of the report for constant ``c`` (an entry of the profile's ``constants``) at one
    parameter value (``point``: its PEP side): "9: violated below 0.0275222 (witness #144 of the
    search, seed 0), certified at 9/4096 and above (PEP certificate, N = 2, K = 2, T = 2, S = N)".
    Every printed digit is certified (decimals rounded toward the claim's safe side)."""
    pep = point["pep"]
    prm = pep["parameters"]
    size = pep.get("size_text") or (f"N = {prm['N']}, K = {prm['K']}, T = {prm['T']}, S = N, σ = 0" +
                                    (f", μ = {prm['mu']}" if prm["mu"] != "0" else ""))
    parts = []
    # the two-sided interval: witnesses and certificates at the same parameters (the PEP row's)
    if not pep["applies"]:
        parts.append(f"the PEP cannot speak to it ({pep['reason']}; {size})")
    else:
        up = pep.get("direction", "at least") == "at least"
        w = pep.get("largest_witness")
        cf = pep.get("certified_from")
        side = []
        if w is not None:
            more = (" and below" if up else " and above") if pep.get("monotone") else ""
            side.append(f"violated at {_num(w, not up)}{more} (exact witness)")
        if cf is None:
            side.append(f"no certificate up to {_short(pep.get('not_certified_at'))}")
        elif pep.get("monotone"):
            side.append(f"certified at {_num(cf, up)} and {'above' if up else 'below'} (PEP certificate)")
        else:
            pts = pep.get("certified_points") or [cf]
            shown = ", ".join(_num(x, up) for x in pts[:4]) + (f" (+{len(pts) - 4} more)" if len(pts) > 4 else "")
            extra = "; each at the largest step it admits only" if pep["kind"] == "hypothesis" else ""
            side.append(f"certified at these points: {shown} (PEP certificate{extra})")
        if w is None and cf is not None and pep.get("not_certified_at") is not None:
            side.append(f"not certified at {_num(pep['not_certified_at'], not up)} (no witness there)")
        if w is None and cf is not None and pep.get("not_certified_at") is None:
            side.append("no exact witness at these parameters")
        parts.append(f"at {size}: " + ", ".join(side) if not size.startswith("at ") else f"{size}: " + ", ".join(side))
    s = c.get("search")
    if s is not None:
        # the search's witnesses are at its own instances' parameters: said apart, never as one
        # interval with the certificates above
        where = "on the search's own instances (other σ, S and sizes: not comparable with the values above)"
        if s.get("not_needed"):
            parts.append(f"no witness on the search's {s['decided']} instances")
        elif s.get("needed") is None:
            text = s.get("statement") or "no threshold"
            if text.startswith(c["description"] + ": "):
                text = text[len(c["description"]) + 2:]
            parts.append(f"search: {text}")
        else:
            below = s["direction"] in ("at least", "between")
            rel = ("at and below" if below else "at and above") if s.get("strict") else ("below" if below else "above")
            parts.append(f"{where}: violated {rel} {s['needed_inner']} (witness #{s['pinned_index']}, seed "
                         f"{s['seed']}, budget {s['budget']})")
    return f"{c['constant']}: " + "; ".join(parts)


def _json_default(x):
    if isinstance(x, Fraction):
        return rational_str(x)
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


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
    try:
        tool = st.model.two_sided_profile(st)
    except NotProvided as exc:
        raise InputError("NAME|PATH.lean", str(exc)) from None
    keys = tool.resolve_constants(args.constant)
    tool.check_sizes(args.parameter, values, N=N, K=K, T=T, mu=mu)
    prepare_output_dir("--out", args.out)
    console = make_console()
    from .display import Stages
    total = (0 if args.no_search else 1) + len(keys) * len(values)
    with Stages("pyfed profile", total) as stages:
        search_bar = None
        if not args.no_search:
            search_bar = stages.bar(f"{st.name}: search candidates", tool.search_size(budget, keys))
        res = tool.profile(
            keys, text=text, parameter=args.parameter, values=values, N=N, K=K, T=T, mu=mu, seed=seed,
            budget=budget, search=not args.no_search, halvings=halvings, refine=refine, try_zero=args.try_zero,
            progress=lambda label: stages.note(f"PEP point: {label}"), stage=stages.start,
            search_progress=search_bar[0] if search_bar is not None else None)
        if search_bar is not None:
            search_bar[1]()
    res["source"] = str(source)
    path = os.path.join(args.out, "profile.json")
    with open(path, "w", encoding="utf-8") as fh:      # files first: a finished result is never lost
        fh.write(json.dumps(res, indent=1, ensure_ascii=False, default=_json_default) + "\n")
    pngs = []
    for c in res["constants"]:
        rows = [(p["value"], p["pep"]) for p in c["points"] if p["pep"]["applies"]]
        if not rows:
            continue
        s = c.get("search") or {}
        png = os.path.join(args.out, f"profile-{_safe_name(c['key'])}.png")
        tool.plot(rows, png, constant=c["constant"], parameter=args.parameter,
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
    searched = not args.no_search and any(c.get("search") for c in res["constants"])
    print_line(console, escape(("witnesses of the search are at its own instances' parameters (σ, S, sizes); "
                                if searched else "") +
                               "a PEP certificate proves the statement at its row's parameters only, for every "
                               "client function of the class"), highlight=False, style="dim")
    print_line(console, f"JSON written to {escape(path)}", highlight=False)
    for png in pngs:
        print_line(console, f"plot written to {escape(png)}", highlight=False)
    return EXIT_VIOLATED if res["violated_at_own_value"] else EXIT_OK
