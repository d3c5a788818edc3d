"""``pyfed check --replay FILE.json [PATH.lean]``: re-decide a recorded counterexample exactly.

Reads a counterexample record (schema ``pyfed.counterexample/1``, written by ``pyfed check
PATH.lean --out DIR`` or ``pyfed search NAME --out DIR``; see
:func:`pyfed.export.counterexample_record`), re-reads the statement from the
recorded source file (``file.path``, relative to the record's directory; records written before
that are read relative to the working directory) or from ``PATH.lean`` when given (with the record's ``--mutate`` edit and
``--relax``-ed hypotheses applied to the Lean text, for a search record of one of pyfed's own
statements), checks that the file is the one the record was made from (its SHA-256; ``--force``
accepts a changed file), and re-decides the recorded instance exactly: the exact-moment engine
for a SCAFFOLD run (:func:`pyfed.models.scaffold.exact.decide_exact`), the statement's own terms for
a run-free statement, by shape (:func:`pyfed.models.protocol.Model.recheck`).
Prints the verdict with both sides and the margin in full (every digit), and whether they equal
the recorded ones.

Exit status: 1 when the violation is re-confirmed (0 for a record of an edited statement: the
violation is what ``pyfed search --mutate`` / ``--relax`` looks for), 0 when the statement holds on the instance
(or the theorem claims nothing there: a hypothesis fails, reported), 2 for a record that cannot
be read (one line naming the file and the field), a missing statement file, or a file whose hash
differs (without ``--force``).
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

from ..errors import InputError
from ..exact import fraction_from_text

# The engines are imported inside the functions that run them (pyfed.commands: a fast --help).

__all__ = ["run", "load_record", "replay"]


def _bad(file, field, why):
    return InputError(f"--replay {file}", f"field `{field}`: {why}")


def load_record(file) -> dict:
    """The JSON record of ``file``, checked for the fields a replay needs.

    Raises InputError (argument ``--replay FILE``, the reason naming the field) for an unreadable
    file, invalid JSON, an unknown ``schema`` or a missing/ill-typed ``statement`` / ``instance``
    / ``source``."""
    from ..export import WITNESS_SCHEMA
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"--replay {file}", f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"--replay {file}", f"not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(rec, dict):
        raise _bad(file, "$", "expected a JSON object (a counterexample record)")
    if "schema" not in rec and "lean_declaration" in rec and "file" not in rec and "source" not in rec:
        raise InputError(f"--replay {file}", _search_record_hint(rec))
    schema = rec.get("schema", WITNESS_SCHEMA)     # records before the schema field: same layout
    if schema != WITNESS_SCHEMA:
        raise _bad(file, "schema", f"unsupported {schema!r} (this pyfed reads {WITNESS_SCHEMA!r})")
    for key, typ in (("statement", str), ("instance", dict)):
        if not isinstance(rec.get(key), typ):
            raise _bad(file, key, "missing" if key not in rec else f"expected a {typ.__name__}")
    if not isinstance(rec.get("source"), str) and not isinstance((rec.get("file") or {}).get("path"), str):
        raise _bad(file, "file.path", "missing (no recorded statement file: give PATH.lean)")
    return rec


def _search_record_hint(rec) -> str:
    """What to do with a record written by ``pyfed search`` (a checker's search, not a statement
    file's): the command that reproduces it."""
    name = str(rec.get("statement", "NAME"))
    cmd = f"pyfed search {name} --seed {rec.get('seed', 'S')} --budget {rec.get('budget', 'B')}"
    for key in rec.get("relax") or ():
        cmd += f" --relax {key}"
    if rec.get("mutate"):
        cmd += f" --mutate {rec['mutate']}"
    return (f"a record of `pyfed search {name}` (a built-in checker's search): --replay re-decides records "
            "written by `pyfed check PATH.lean --out DIR`; this one is reproduced by running "
            f"`{cmd} --out DIR` again (its files are byte-identical for the same seed and budget)")


def _recorded_path(rec, record_file=None) -> str | None:
    f = rec.get("file")
    if isinstance(f, dict) and isinstance(f.get("path"), str):
        path = f["path"]
        tries = []
        if record_file is not None and not os.path.isabs(path):
            tries.append(os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(record_file)), path)))
        if isinstance(f.get("as_read"), str):
            tries.append(f["as_read"])
        tries.append(path)          # records written before: relative to the working directory
        return next((p for p in tries if os.path.isfile(p)), tries[0])
    src = rec.get("source")
    if isinstance(src, str) and ":" in src:
        return src.rsplit(":", 1)[0]
    return None


def replay(file, lean_path=None, *, force: bool = False):
    """(record, statement, instance, verdict, notes) of a replay (see the module docstring).

    Raises InputError for the exit-2 cases. ``notes``: warnings to print (a hash accepted with
    ``--force``)."""
    from ..export import file_sha256
    from ..models.protocol import RecheckError
    from ..models.registry import read_file

    rec = load_record(file)
    notes = []
    path = lean_path or _recorded_path(rec, file)
    if not lean_path and path and not Path(path).is_file() and rec.get("lean_declaration"):
        # a record of one of pyfed's own statements: its file in pyfed's Lean sources
        from ..checkers.registry import catalogue
        entry = next((e for e in catalogue() if e.name == rec["lean_declaration"] and path.endswith(e.file)), None)
        if entry is not None:
            path = entry.path
    if not path:
        raise _bad(file, "file.path", "missing (no recorded statement file: give PATH.lean)")
    if not Path(path).is_file():
        raise InputError("PATH.lean" if lean_path else f"--replay {file}",
                         f"statement file {path!r} not found" + ("" if lean_path else
                                                                 " (give its current path as PATH.lean)"))
    want = (rec.get("file") or {}).get("sha256") if isinstance(rec.get("file"), dict) else None
    have = file_sha256(path)
    if want is not None and have != want:
        if not force:
            raise InputError("PATH.lean" if lean_path else f"--replay {file}",
                             f"{path} has SHA-256 {have[:16]}… but the record was made from {want[:16]}… "
                             "(the file changed; --force re-decides with the file as it is now)")
        notes.append(f"{path} differs from the recorded file (SHA-256); re-decided with --force")
    name = rec["statement"]
    base = name.split(".")[0]              # conjunct statements are named `Theorem.1`, `Theorem.2`
    edited = bool(rec.get("mutate") or rec.get("relax"))
    try:
        if edited and not lean_path:       # a search record of one of pyfed's statements, edited
            from ..checkers.registry import statements_of
            sts = [s for s in statements_of(rec.get("lean_declaration") or base, mutate=rec.get("mutate"),
                                            relax=tuple(rec.get("relax") or ())) if s.name == name]
            notes.append("statement re-read with the record's "
                         + " and ".join(x for x in (f"mutation {rec['mutate']}" if rec.get("mutate") else "",
                                                    f"relaxed {', '.join(rec['relax'])}" if rec.get("relax") else "")
                                        if x))
        else:
            sts = [s for s in read_file(path, theorem=base) if s.name == name]
    except InputError as exc:
        if exc.argument not in ("--theorem", "lean_name"):   # ReaderError: the file's own file:line:col
            raise
        sts = []
    if not sts:
        raise _bad(file, "statement", f"no statement {name!r} in {path}")
    st = sts[0]
    decl = rec.get("lean_declaration")
    if decl is not None and decl != st.qualified_name:
        if not force:
            raise _bad(file, "lean_declaration", f"recorded {decl!r} but {path} declares {st.qualified_name!r} "
                       "(--force re-decides anyway)")
        notes.append(f"declaration {st.qualified_name} (recorded {decl})")
    if not isinstance(rec.get("instance"), dict):
        raise _bad(file, "instance", "missing")
    try:
        verdict = st.model.recheck(st, {"instance": rec["instance"]})
    except RecheckError as exc:
        raise _bad(file, exc.argument, exc.reason) from None
    except (InputError, KeyError, TypeError, ValueError) as exc:
        raise _bad(file, "instance", f"cannot be decided: {getattr(exc, 'reason', exc)}") from None
    return rec, st, rec["instance"], verdict, notes


def _full(v) -> str:
    """A side or margin in full: the exact text, preceded by its certified decimal when the text is
    long or not a plain rational (a 5,000-digit fraction, ``3/4 - log(4)``), so sign and size read
    at a glance."""
    from ..exact import decimal_str, precision, rational_str, to_arb
    text = rational_str(v) if isinstance(v, Fraction) else str(v)
    if isinstance(v, Fraction) and len(text) <= 40:
        return text
    try:
        with precision(256):        # a rational is rounded exactly, anything else from its certified ball
            approx = decimal_str(v if isinstance(v, Fraction) else to_arb(v), 12)
    except (InputError, TypeError, ValueError):
        return text
    return f"{approx} (exactly {text})"


def _recorded(rec, key):
    side = rec.get(key)
    if isinstance(side, dict) and side.get("exact") is not None:
        try:
            return fraction_from_text(side["exact"])
        except (TypeError, ValueError, ZeroDivisionError):
            return None
    return None


def _print_balls(console, st, rec, balls) -> None:
    """Both sides and the margin of a verdict decided in certified balls (python-flint arb): each
    ball in full, and whether its certified rational bounds equal the recorded ones."""
    from rich.markup import escape

    from ..export import ball_side_json
    margin = balls.get("margin")
    if margin is None:
        margin = balls["rhs"] - balls["lhs"]
    console.print(f"  left side  {escape(st.lhs.text)} in {balls['lhs'].str(40, radius=True)} (certified ball)",
                  soft_wrap=True)
    console.print(f"  right side {escape(st.rhs.text)} in {balls['rhs'].str(40, radius=True)} (certified ball)",
                  soft_wrap=True)
    weak = str(st.relation).startswith("≤") or st.relation == "="
    console.print(f"  margin rhs - lhs in {margin.str(40, radius=True)} ({st.relation} needs "
                  f"{'≥ 0' if weak else '> 0'})", soft_wrap=True)
    now = [ball_side_json(balls["lhs"]), ball_side_json(balls["rhs"])]
    old = [rec.get("lhs"), rec.get("rhs")]
    console.print("  both sides' certified bounds equal the recorded ones exactly" if now == old else
                  "  [yellow]the sides' certified bounds differ from the recorded ones (the record was edited, or "
                  "the statement changed)[/yellow]")


def run(args) -> int:
    """Front end of ``pyfed check --replay FILE.json [PATH.lean] [--force]``: prints the verdict,
    both sides and the margin exactly; returns 1 (violation re-confirmed) or 0 (see the module
    docstring); InputError (exit 2) for the bad-input cases."""
    from rich.markup import escape

    from . import STYLE, make_console

    file = args.replay
    lean_path = getattr(args, "path", None) or None
    if isinstance(lean_path, (list, tuple)):
        if len(lean_path) > 1:
            raise InputError("PATH.lean", f"--replay takes at most one statement file, got {len(lean_path)}")
        lean_path = lean_path[0] if lean_path else None
    rec, st, inst, v, notes = replay(file, lean_path, force=bool(getattr(args, "force", False)))
    import sys
    console = make_console(sys.stderr if getattr(args, "json", None) == "-" else None)
    for n in notes:
        console.print(f"[yellow]{escape(str(n))}[/yellow]")
    console.print(f"replay of {escape(str(file))}: {escape(st.qualified_name)} ({escape(str(st.source))}), candidate {rec.get('index')} "
                  f"of seed {rec.get('seed')}")
    status = v.status
    how = st.model.recheck_method(v)
    console.print(f"verdict: [{STYLE.get(status, '')}]{status}[/] ({how})")
    balls = getattr(v, "balls", None) or {}
    if balls.get("lhs") is not None and balls.get("rhs") is not None:
        _print_balls(console, st, rec, balls)
    elif v.lhs is not None and v.rhs is not None:
        margin = v.rhs - v.lhs
        console.print(f"  left side  {escape(st.lhs.text)} = {_full(v.lhs)}", soft_wrap=True)
        console.print(f"  right side {escape(st.rhs.text)} = {_full(v.rhs)}", soft_wrap=True)
        weak = str(st.relation).startswith("≤")
        need = "= 0" if st.relation == "=" else ("≥ 0" if weak else "> 0")
        console.print(f"  margin rhs - lhs = {_full(margin)} ({st.relation} needs the margin {need})",
                      soft_wrap=True)
        old = (_recorded(rec, "lhs"), _recorded(rec, "rhs"))
        if None not in old:
            same = old == (v.lhs, v.rhs)
            console.print("  both sides equal the recorded ones exactly" if same else
                          "  [yellow]the sides differ from the recorded ones (the record was edited, or the "
                          "statement changed)[/yellow]")
    elif getattr(v, "vectors", None) is not None:       # points compared: both exact vectors
        lv, rv = v.vectors
        console.print(f"  left side  {escape(st.lhs.text)} = ({', '.join(lv)})", soft_wrap=True)
        console.print(f"  right side {escape(st.rhs.text)} = ({', '.join(rv)})", soft_wrap=True)
        old = ((rec.get("lhs") or {}).get("vector"), (rec.get("rhs") or {}).get("vector"))
        if None not in old:
            console.print("  both sides equal the recorded ones exactly" if old == (list(lv), list(rv)) else
                          "  [yellow]the sides differ from the recorded ones (the record was edited, or the "
                          "statement changed)[/yellow]")
    reason = getattr(v, "reason", "")
    if reason:
        console.print(f"  [yellow]{escape(str(reason))}[/yellow]")
    edited = bool(rec.get("mutate") or rec.get("relax"))
    if edited:
        # a deliberately edited statement (pyfed search --mutate / --relax): its violation is the
        # point of the search, not a verdict on the Lean statement
        console.print("  (the record is of an edited statement: exit 0, as `pyfed search` with --mutate or --relax)")
    code = 0 if edited else (1 if status == "violated" else 0)
    if getattr(args, "json", None):
        from ..outputs import write_output
        write_output("--json", args.json, replay_json(file, rec, st, v, notes, code) + "\n")
        if args.json != "-":
            console.print(f"replay result written to {escape(str(args.json))}")
    return code


def replay_json(file, rec, st, v, notes, code) -> str:
    """The result of a replay as JSON (schema ``pyfed-replay/1``): the record replayed, the
    statement and its source, the verdict (:meth:`pyfed.verdicts.Verdict.to_json`, every exact
    side in full), whether both sides equal the recorded ones, the notes and the exit status."""
    from ..exact import rational_str

    def text(x):
        return None if x is None else rational_str(x) if isinstance(x, Fraction) else str(x)

    old = (_recorded(rec, "lhs"), _recorded(rec, "rhs"))
    lhs, rhs = getattr(v, "lhs", None), getattr(v, "rhs", None)
    same = None if None in old or lhs is None else old == (lhs, rhs)
    verdict = {"status": v.status, "lhs": text(lhs), "rhs": text(rhs),
               "margin": text(rhs - lhs) if lhs is not None and rhs is not None else None,
               "reason": str(getattr(v, "reason", "") or "") or None}
    doc = {"schema": "pyfed-replay/1", "record": str(file), "statement": st.qualified_name, "source": st.source,
           "candidate": rec.get("index"), "seed": rec.get("seed"), "verdict": verdict,
           "sides_equal_recorded": same, "edited_statement": bool(rec.get("mutate") or rec.get("relax")),
           "notes": [str(n) for n in notes], "exit_status": code}
    return json.dumps(doc, indent=2, sort_keys=True, default=str)
