"""Declarations of the Lean sources with their explicit arity and structure fields.

Interoperability with the published formalization (``prove2me/formalpedia``, ``envs/c5ea003``)
means that a term written against the published model elaborates against ours: every published
declaration must exist here under the same namespace-qualified name, take the same number of
explicit arguments in the same order, and every published structure must have the same fields in
the same order. This module reads that information from the Lean text (no Lean toolchain):

* :func:`declarations` — ``{qualified name: Declaration}`` for every ``def``, ``abbrev``,
  ``structure``, ``class``, ``inductive``, ``theorem`` and ``lemma`` under ``lean/``;
* :func:`interface_mismatch` — compares a list of expected declarations (name, kind, explicit
  arity, fields) with them and returns one line per difference.

Explicit arity counts the explicit binders ``(a b : T)`` before the colon, the explicit
``variable`` binders the declaration uses (Lean includes a section variable in a declaration
when its name occurs there), and, for ``theorem``/``lemma``, the explicit arguments of the
statement's leading telescope: each ``∀ (x y : T)`` or ``∀ x`` name, each ``∀ x < n`` (a name and
a hypothesis) and each top-level ``→``. Implicit ``{}``, strict-implicit ``⦃⦄`` and instance
``[]`` binders do not count. A statement ``(A) ∧ (B)`` has arity 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .inventory import is_restatement, lean_files, strip_comments

__all__ = ["Declaration", "declarations", "interface_mismatch", "explicit_binder_count",
           "telescope_arity"]

KINDS = ("def", "abbrev", "structure", "class", "inductive", "theorem", "lemma")

_MODIFIERS = r"(?:(?:noncomputable|private|protected|partial|nonrec|unsafe)\s+)*"
_DECL_RE = re.compile(
    r"(?m)^(?:@\[[^\]]*\]\s*)?" + _MODIFIERS
    + r"(?P<kind>def|abbrev|structure|class|inductive|theorem|lemma)\s+(?P<name>[^\s({\[⦃:]+)")
_SCOPE_RE = re.compile(
    r"(?m)^(?:noncomputable[ \t]+)?(?P<kind>namespace|section|end)\b[ \t]*(?P<name>[\w.']*)")
_VARIABLE_RE = re.compile(r"(?m)^variable\b")
#: Lines at column 0 that start a new command (used to delimit a declaration's text).
_COMMAND_RE = re.compile(
    r"(?m)^(?=(?:@\[|/-|#|noncomputable\b|private\b|protected\b|def\b|abbrev\b|structure\b|"
    r"class\b|inductive\b|theorem\b|lemma\b|instance\b|example\b|end\b|namespace\b|section\b|"
    r"variable\b|open\b|universe\b|attribute\b|set_option\b|notation\b|macro\b|import\b))")

_OPEN = {"(": ")", "{": "}", "[": "]", "⦃": "⦄"}
_CLOSE = {v: k for k, v in _OPEN.items()}


@dataclass(frozen=True)
class Declaration:
    """One Lean declaration.

    name : namespace-qualified name (``SCAFFOLD.Run``); kind : ``def``, ``structure``, ...;
    explicit_arity : number of explicit arguments (see the module docstring); fields : the field
    names of a ``structure``/``class`` in order (empty otherwise); file : path relative to lean/.
    """

    name: str
    kind: str
    explicit_arity: int
    fields: tuple = ()
    file: str = ""
    binders: tuple = field(default=(), compare=False)


def _groups(text: str):
    """Top-level bracket groups of a binder list: ``[(opening bracket, inner text)]``; a bare
    identifier (``∀ x y,``) yields ``("", name)``. Raises ValueError on unbalanced brackets."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch in _OPEN:
            depth, j = 0, i
            while j < n:
                if text[j] in _OPEN:
                    depth += 1
                elif text[j] in _CLOSE:
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= n:
                raise ValueError(f"unbalanced binder {text[i:i + 60]!r}")
            out.append((ch, text[i + 1:j]))
            i = j + 1
            continue
        m = re.match(r"[^\s()\[\]{}⦃⦄]+", text[i:])
        out.append(("", m.group(0)))
        i += m.end()
    return out


def _names_of(inner: str) -> list:
    """Names bound by the inside of one binder group ``a b : T`` (``[inst : C]`` -> ``inst``)."""
    head = inner.split(":", 1)[0] if ":" in inner else inner
    return head.split()


def explicit_binder_count(binders: str) -> int:
    """Explicit arguments bound by a binder list such as ``{d N : ℕ} (P : Problem d N) (S : ℕ)``."""
    n = 0
    for opening, inner in _groups(binders):
        if opening == "(":
            n += len(_names_of(inner)) if ":" in inner else 1
        elif opening == "":
            n += 1
    return n


def _split_top(text: str, sep: str) -> list:
    """Split ``text`` at occurrences of ``sep`` outside brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return parts


def telescope_arity(statement: str) -> int:
    """Explicit arguments of a proposition's leading telescope (``∀`` binders and ``→``)."""
    s = statement.strip()
    if not s:
        return 0
    if s.startswith("∀"):
        pieces = _split_top(s[1:], ",")
        if len(pieces) < 2:
            raise ValueError(f"∀ without a comma: {s[:60]!r}")
        head, rest = pieces[0], ",".join(pieces[1:])
        # a binder predicate `∀ x < n` / `∀ x ≤ n` binds x and a hypothesis
        m = re.fullmatch(r"\s*([^\s(){}\[\]⦃⦄:,]+)\s*(<|≤|>|≥|∈|∉|⊆)\s*.+", head, re.S)
        if m:
            return 2 + telescope_arity(rest)
        m = re.fullmatch(r"\s*([^(){}\[\]⦃⦄:,]+?)\s*:\s*(.+)", head, re.S)
        if m and not head.strip().startswith(("(", "{", "[", "⦃")):
            return len(m.group(1).split()) + telescope_arity(rest)
        return explicit_binder_count(head) + telescope_arity(rest)
    parts = _split_top(s, "→")
    for i, part in enumerate(parts):
        if i and part.strip().startswith("∀"):
            # a `∀` binds everything after it, including its own arrows
            return i + telescope_arity("→".join(parts[i:]))
    return len(parts) - 1


def _header_end(code: str, start: int) -> int:
    """Index where a declaration header ends: the top-level ``:=``, ``where``, or a newline
    followed by an indented ``|`` (equations by pattern matching)."""
    depth, i, n = 0, start, len(code)
    while i < n:
        ch = code[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0:
            if code.startswith(":=", i):
                return i
            if re.match(r"\bwhere\b", code[i:i + 6]) and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] in "_.'")):
                return i
            if ch == "\n" and re.match(r"\n[ \t]+\|", code[i:]):
                return i
        i += 1
    return n


def _split_signature(header: str) -> tuple:
    """``(binders, type)``: the header split at its top-level colon (type ``""`` if none)."""
    depth = 0
    for i, ch in enumerate(header):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0 and ch == ":" and not header.startswith(":=", i):
            return header[:i], header[i + 1:]
    return header, ""


def _structure_fields(body: str) -> tuple:
    """Field names of a structure body (the text after ``where``), in order."""
    lines = body.split("\n")
    indent = None
    out = []
    for line in lines[1:] if lines and not lines[0].strip() else lines:
        if not line.strip():
            continue
        lead = len(line) - len(line.lstrip())
        if indent is None:
            indent = lead
        if lead == indent:
            m = re.match(r"\s*([^\s:(]+)\s*(?:\(|:)", line)
            if m:
                out.append(m.group(1))
        elif lead < indent:
            break
    return tuple(out)


def _identifiers(text: str) -> set:
    """Identifiers of ``text``, each dotted one also by its first component (``P.f`` -> ``P``)."""
    out = set()
    for tok in re.findall(r"[^\W\d][\w'.]*", text):
        out.add(tok)
        out.add(tok.split(".")[0])
    return out


def _file_declarations(code: str, rel: str) -> list:
    events = [(m.start(), "scope", m) for m in _SCOPE_RE.finditer(code)]
    events += [(m.start(), "variable", m) for m in _VARIABLE_RE.finditer(code)]
    events += [(m.start(), "decl", m) for m in _DECL_RE.finditer(code)]
    command_starts = sorted(m.start() for m in _COMMAND_RE.finditer(code)) + [len(code)]

    def next_command(after):
        for s in command_starts:
            if s > after:
                return s
        return len(code)

    stack = [["root", [], []]]      # [kind, namespace parts, variables [(name, kind)]]
    out = []
    for pos, what, m in sorted(events, key=lambda e: e[0]):
        if what == "scope":
            kind, name = m.group("kind"), m.group("name")
            if kind in ("namespace", "section"):
                stack.append([kind, name.split(".") if kind == "namespace" else [], []])
            elif len(stack) > 1:
                stack.pop()
            continue
        end = next_command(pos)
        if what == "variable":
            text = code[m.end():end]
            for opening, inner in _groups(text):
                if opening in ("[", ""):
                    continue          # instance binders never count as explicit arguments
                names = _names_of(inner)
                if ":" not in inner:
                    # binder update `variable {P ν}`: change the kind of existing variables
                    for frame in stack:
                        frame[2] = [(v, opening if v in names else k) for v, k in frame[2]]
                    continue
                stack[-1][2].extend((v, opening) for v in names)
            continue
        kind, name = m.group("kind"), m.group("name")
        hdr_end = _header_end(code, m.end())
        header = code[m.end():hdr_end]
        binders, typ = _split_signature(header)
        arity = explicit_binder_count(binders)
        if kind in ("theorem", "lemma"):
            arity += telescope_arity(typ)
        decl_text = code[m.end():end]
        used = _identifiers(decl_text)
        own = {v for _, inner in _groups(binders) for v in _names_of(inner)}
        variables = [v for frame in stack for v in frame[2]]
        arity += sum(1 for v, k in variables if k == "(" and v in used and v not in own)
        fields = ()
        if kind in ("structure", "class") and code.startswith("where", hdr_end):
            fields = _structure_fields(code[hdr_end + len("where"):end])
        ns = [p for frame in stack for p in frame[1]]
        qualified = ".".join(ns + [name]) if not name.startswith("_root_.") else name[len("_root_."):]
        out.append(Declaration(qualified, kind, arity, fields, rel, tuple(_groups(binders))))
    return out


def declarations(lean_dir, sources: dict | None = None, include_tests: bool = False) -> dict:
    """``{qualified name: Declaration}`` of the Lean files under ``lean_dir`` (comments stripped).

    ``include_tests``: also read the test library ``PyfedTest/`` and the published statements
    ``PyfedPublished/`` (off by default: they restate statements on purpose). ``sources`` (``{relative path: text}``) overrides or adds
    files. A qualified name declared twice raises ValueError.
    """
    lean_dir = Path(lean_dir)
    files = set(lean_files(lean_dir)) | set(sources or {})
    out = {}
    for rel in sorted(files):
        if not include_tests and is_restatement(rel):
            continue
        text = sources[rel] if sources and rel in sources else (lean_dir / rel).read_text(encoding="utf-8")
        for d in _file_declarations(strip_comments(text), rel):
            if d.name in out:
                raise ValueError(f"{d.name} declared twice (second time in lean/{rel})")
            out[d.name] = d
    return out


def interface_mismatch(expected, lean_dir, sources: dict | None = None) -> list:
    """Differences between ``expected`` and the declarations under ``lean_dir``.

    ``expected``: iterable of ``(qualified name, kind, explicit arity)`` or
    ``(qualified name, kind, explicit arity, fields)`` (fields: the structure's field names in
    order). ``kind`` ``"theorem"`` also accepts ``lemma``; ``"def"`` also accepts ``abbrev``
    (both are definitions to a user). Returns one human-readable line per difference (empty:
    every expected declaration is declared as expected).
    """
    have = declarations(lean_dir, sources)
    same_kind = {"def": {"def", "abbrev"}, "abbrev": {"def", "abbrev"}, "theorem": {"theorem", "lemma"},
                 "structure": {"structure"}, "class": {"class"}, "inductive": {"inductive"}}
    out = []
    for entry in expected:
        name, kind, arity = entry[:3]
        fields = tuple(entry[3]) if len(entry) > 3 else None
        d = have.get(name)
        if d is None:
            out.append(f"{name}: not declared")
            continue
        if d.kind not in same_kind.get(kind, {kind}):
            out.append(f"{name}: declared as {d.kind}, expected {kind}")
        if d.explicit_arity != arity:
            out.append(f"{name}: {d.explicit_arity} explicit arguments, expected {arity}")
        if fields is not None and d.fields != fields:
            missing = [f for f in fields if f not in d.fields]
            extra = [f for f in d.fields if f not in fields]
            out.append(f"{name}: fields differ (missing {missing}, unexpected {extra}"
                       + (", order differs" if not missing and not extra else "") + ")")
    return out
