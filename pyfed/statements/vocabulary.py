"""The model's vocabulary, read from the model's own Lean files: every ``def``, ``abbrev``,
``structure`` and ``inductive`` of ``lean/Pyfed`` with its binders, result type and body.

The Lean files are the contract: what a model definition means for pyfed is what its Lean body
says. :func:`model_declarations` scans ``Pyfed/**/*.lean`` (pyfed's own sources, located by
:func:`pyfed.lean.paths.source_lean_dir`) and returns, for each qualified name
(``SCAFFOLD.objective``, ``FedAvg.driftRHS``, ``FedAvgProcedure.fedAvgRound`` …), a
:class:`ModelDecl`. Bodies are read in the forms the model uses:

* a term (``objective``, ``sampleAverage``, ``uniformSampleMean``, ``optionTwoControl``, …);
* equations by cases on the last natural-number argument (``| 0 => a | k + 1 => b``:
  ``localPath``, ``fedAvg``, ``scaffold``, ``localSGD``), possibly on a constructor
  (``match opt with | ControlOption.optionI => … | ControlOption.optionII => …``);
* a structure value given field by field (``where x := … c := …``, or ``{ x := …, c := … }``).

A body outside these forms (or a ``Prop``-valued definition such as ``Convexity``, decided by the
engines from its meaning) has ``body = None``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..lean import terms
from ..lean.paths import source_lean_dir
from ..lean.terms import Binder, LeanSyntaxError, Node

__all__ = ["ModelDecl", "Case", "model_declarations", "model_namespaces", "MODEL_NAMESPACES", "lookup", "read_decl"]

#: The namespaces of pyfed's first models, in the order a hint names them when a name lives in
#: several; :func:`model_namespaces` adds every other namespace the Lean sources declare.
MODEL_NAMESPACES = ("SCAFFOLD", "FedAvg", "FedAvgProcedure")


@dataclass
class Case:
    """One alternative of a definition by cases: ``pattern`` is ``("nat0",)``, ``("succ", k)`` or
    ``("ctor", constructor name, [bound names])``; ``body`` a parsed term or a structure value
    (dict field -> term)."""

    pattern: tuple
    body: object


@dataclass
class ModelDecl:
    """A declaration of the model.

    name : qualified name; kind : ``def``, ``abbrev``, ``structure`` or ``inductive``;
    binders : list[:class:`~pyfed.lean.terms.Binder`] (implicit, instance and explicit, in order);
    result : the result type (Node) or None; body : a term (Node), a structure value (dict field ->
    Node), or None; cases : for a definition by cases, ``(scrutinee name, [Case])``;
    fields : for a structure, ``[(field, type Node)]``; constructors : for an inductive, their
    names (qualified); path, line : where it is declared; error : for a def read with
    ``strict=True`` (a file's own def), the :class:`~pyfed.lean.terms.LeanSyntaxError` met in its
    header or body (reported where the def is used), else None; context : for a file's own def, the
    :class:`~pyfed.statements.declarations.Context` it is declared in (None for the model's).
    """

    name: str
    kind: str
    binders: list = field(default_factory=list)
    result: Node | None = None
    body: object = None
    cases: tuple | None = None
    fields: list = field(default_factory=list)
    constructors: list = field(default_factory=list)
    path: str = ""
    line: int = 0
    error: object = None
    context: object = None

    @property
    def bare(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def explicit(self) -> list:
        return [b for b in self.binders if b.style == "explicit"]

    @property
    def implicit(self) -> list:
        return [b for b in self.binders if b.style in ("implicit", "strict")]


_HEAD = re.compile(r"(?m)^(?:@\[[^\]]*\]\s*)?((?:(?:noncomputable|private|protected)\s+)*)"
                   r"(def|abbrev|structure|inductive|theorem|lemma)\s+([^\s({\[⦃:]+)")


def _namespace_at(clean: str, offset: int) -> str:
    """The namespace in force at ``offset`` (``namespace X`` … ``end X``; sections ignored)."""
    stack: list = []
    for m in re.finditer(r"(?m)^(namespace|section|end|noncomputable section)\b[ \t]*(\S*)", clean[:offset]):
        kw, arg = m.group(1), m.group(2)
        if kw == "namespace":
            stack.append(("ns", arg))
        elif kw in ("section", "noncomputable section"):
            stack.append(("sec", arg))
        elif stack:
            stack.pop()
    return ".".join(a for k, a in stack if k == "ns")


def _split_decls(clean: str) -> list:
    """[(kind, name, start, end)] of the top-level declarations of a file."""
    heads = list(_HEAD.finditer(clean))
    stops = [m.start() for m in re.finditer(r"(?m)^(?:end\b|namespace\b|section\b|noncomputable section\b|open\b|"
                                            r"variable\b|universe\b|/-)", clean)]
    out = []
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(clean)
        later = [s for s in stops if m.end() < s < end]
        if later:
            end = later[0]
        out.append((m.group(2), m.group(3), m.start(), end))
    return out


def _parse_term_at(text: str, clean: str, offset: int, path: str) -> Node:
    line, col = terms.position_of(clean, offset)
    return terms.parse_term(text, path=path, line=line, col=col)


def _header(text: str, clean: str, offset: int, path: str):
    """(binders, result type Node or None, rest after the header) of a declaration's text."""
    toks = terms.tokenize(text, line=terms.position_of(clean, offset)[0], col=terms.position_of(clean, offset)[1],
                          path=path)
    p = terms.Parser(toks, path=path, stop={":=", "where", "|"}, src=text)
    binders = p.binders()
    result = None
    if p.at(":"):
        p.take(":")
        result = p.term(0)
    return binders, result


_FIELD = re.compile(r"(?m)^\s+([^\W\d][\w']*)\s*:=")


def _structure_value(text: str, clean: str, offset: int, path: str) -> dict:
    """Fields of a ``where`` block or of ``{ f := t, … }``: field name -> parsed term."""
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        inner = t[1:-1]
        base = offset + text.index("{") + 1
        depth, marks = 0, []
        for i, ch in enumerate(inner):
            if ch in "([{⟨":
                depth += 1
            elif ch in ")]}⟩":
                depth -= 1
            elif depth == 0:
                m = re.match(r"([^\W\d][\w']*)\s*:=", inner[i:])
                before = inner[:i].rstrip()
                if m and (not before or before.endswith(",")) and (i == 0 or not (inner[i - 1].isalnum() or inner[i - 1] in "_'")):
                    marks.append((i, m))
        out = {}
        for k, (i, m) in enumerate(marks):
            end = marks[k + 1][0] if k + 1 < len(marks) else len(inner)
            val = inner[i + m.end():end].rstrip().rstrip(",")
            lead = len(val) - len(val.lstrip())
            out[m.group(1)] = _parse_term_at(val.strip(), clean, base + i + m.end() + lead, path)
        return out
    marks = list(_FIELD.finditer(text))
    out = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        val = text[m.end():end]
        lead = len(val) - len(val.lstrip())
        out[m.group(1)] = _parse_term_at(val.strip(), clean, offset + m.end() + lead, path)
    return out


def _pattern(text: str) -> tuple:
    p = text.strip()
    if p == "0":
        return ("nat0",)
    m = re.fullmatch(r"([^\W\d][\w']*)\s*\+\s*1", p)
    if m:
        return ("succ", m.group(1))
    parts = p.split()
    return ("ctor", parts[0], parts[1:])


def _cases(text: str, clean: str, offset: int, path: str) -> list:
    """Alternatives ``| pattern => body`` (top-level ``|`` at the start of a line)."""
    marks = list(re.finditer(r"(?m)^\s*\|\s*(.*?)\s*=>", text))
    out = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body_text = text[m.end():end]
        lead = len(body_text) - len(body_text.lstrip())
        stripped = body_text.strip()
        start = offset + m.end() + lead
        if stripped.startswith("{"):
            body = _structure_value(stripped, clean, start, path)
        else:
            body = _parse_term_at(stripped, clean, start, path)
        out.append(Case(_pattern(m.group(1)), body))
    return out


def read_decl(kind, name, text, clean, offset, namespace, path, strict: bool = False) -> ModelDecl:
    """The :class:`ModelDecl` of one declaration's text. A header or body outside the grammar gives
    ``body = None`` (the model's ``Prop``-valued and tactic definitions), or with ``strict`` the
    error kept in ``error`` (a file's own def: what Lean would reject is reported where it is used)."""
    full = name if name.startswith("_root_.") else (f"{namespace}.{name}" if namespace else name)
    full = full.removeprefix("_root_.")
    line = terms.position_of(clean, offset)[0]
    decl = ModelDecl(full, kind, path=path, line=line)
    m = re.match(r"\s*(?:@\[[^\]]*\]\s*)?(?:(?:noncomputable|private|protected)\s+)*\w+\s+\S+", text)
    rest_off = offset + m.end()
    rest = text[m.end():]
    if kind == "inductive":
        head, _, after = rest.partition("where")
        decl.binders, _ = _header(head, clean, rest_off, path)
        decl.constructors = [f"{full}.{c}" for c in re.findall(r"(?m)^\s*\|\s*([^\W\d][\w']*)", after)]
        return decl
    if kind == "structure":
        head, _, after = rest.partition("where")
        decl.binders, _ = _header(head, clean, rest_off, path)
        base = rest_off + len(head) + len("where")
        for fm in re.finditer(r"(?m)^\s+([^\W\d][\w']*)\s*:\s*(.+)$", after):
            try:
                decl.fields.append((fm.group(1), _parse_term_at(fm.group(2).strip(), clean,
                                                                  base + fm.start(2), path)))
            except LeanSyntaxError:
                decl.fields.append((fm.group(1), None))
        return decl
    header, body = terms.cut_at_assign(rest)
    wm = re.search(r"(?m)\bwhere[ \t]*$", rest)
    if wm is not None and wm.start() < len(header):
        header, body = rest[:wm.start()] + "where", None
    if body is None:
        eq = re.search(r"(?m)^\s*\|", rest)
        if eq is not None:
            header = rest[:eq.start()]
    where_body = None
    if body is None and header.endswith("where"):
        header = header[:-len("where")]
        where_body = rest[len(header) + len("where"):]
    try:
        decl.binders, decl.result = _header(header, clean, rest_off, path)
    except LeanSyntaxError as exc:
        if strict:
            decl.error = exc
        return decl
    if where_body is not None:
        decl.body = _structure_value(where_body, clean, rest_off + len(header) + len("where"), path)
        return decl
    body_off = rest_off + len(header) + 2
    text_body = body if body is not None else rest[len(header):]
    try:
        if body is None:            # equations `| 0 => … | k + 1 => …` right after the header
            cases = _cases(text_body, clean, rest_off + len(header), path)
            if cases:
                nat_binders = [b.name for b in decl.binders if b.style == "explicit"]
                decl.cases = (None, cases, nat_binders)
            return decl
        stripped = body.strip()
        lead = len(body) - len(body.lstrip())
        m2 = re.match(r"match\s+([^\W\d][\w']*)\s+with\b", stripped)
        if m2:
            decl.cases = (m2.group(1), _cases(stripped[m2.end():], clean, body_off + lead + m2.end(), path), None)
        elif stripped.startswith("{"):
            decl.body = _structure_value(stripped, clean, body_off + lead, path)
        elif stripped and not stripped.startswith("by"):
            decl.body = _parse_term_at(stripped, clean, body_off + lead, path)
    except LeanSyntaxError as exc:
        decl.body = None
        if strict:
            decl.error = exc
    return decl


def _scan_file(path: Path, rel: str) -> dict:
    text = path.read_text(encoding="utf-8")
    clean = terms.strip_comments(text)
    out = {}
    for kind, name, start, end in _split_decls(clean):
        if kind in ("theorem", "lemma"):
            continue
        ns = _namespace_at(clean, start)
        decl = read_decl(kind, name, clean[start:end], clean, start, ns, rel)
        out[decl.name] = decl
    return out


@functools.lru_cache(maxsize=4)
def _declarations(lean_dir: str) -> dict:
    base = Path(lean_dir)
    out: dict = {}
    for path in sorted((base / "Pyfed").rglob("*.lean")):
        rel = "lean/" + path.relative_to(base).as_posix()
        out.update(_scan_file(path, rel))
    return out


def model_declarations(lean_dir=None) -> dict:
    """``{qualified name: ModelDecl}`` of every model declaration under ``lean_dir/Pyfed``
    (default: pyfed's own Lean sources). Cached per directory."""
    if lean_dir is None:
        lean_dir = source_lean_dir()
    return _declarations(str(Path(lean_dir).resolve()))


def model_namespaces(lean_dir=None) -> tuple:
    """The top-level namespaces of the model's declarations under ``lean_dir/Pyfed`` (default:
    pyfed's own sources): :data:`MODEL_NAMESPACES` first, then the others sorted (a new
    procedure's namespace, ``FedProxProcedure``, without an edit here). The model's definitions are
    elaborated with all of them open, and a bare model name written where none is open gets a hint
    naming its namespace."""
    if lean_dir is None:
        lean_dir = source_lean_dir()
    return _namespaces(str(Path(lean_dir).resolve()))


@functools.lru_cache(maxsize=4)
def _namespaces(lean_dir: str) -> tuple:
    found = {name.split(".", 1)[0] for name in _declarations(lean_dir) if "." in name}
    return tuple(ns for ns in MODEL_NAMESPACES if ns in found) + tuple(sorted(found - set(MODEL_NAMESPACES)))


def lookup(written: str, namespace: str, opens, lean_dir=None) -> ModelDecl | None:
    """The model declaration a name written in a statement refers to, resolved as Lean does:
    qualified (``SCAFFOLD.objective``), then through the enclosing namespaces innermost first, then
    the opened ones (None when it is not a model name; the caller reports ambiguity)."""
    decls = model_declarations(lean_dir)
    w = written.removeprefix("_root_.")
    if w in decls:
        return decls[w]
    parts = namespace.split(".") if namespace else []
    for k in range(len(parts), 0, -1):
        full = ".".join(parts[:k]) + "." + w
        if full in decls:
            return decls[full]
    hits = [decls[f"{o}.{w}"] for o in opens if f"{o}.{w}" in decls]
    return hits[0] if hits else None




Binder = Binder
