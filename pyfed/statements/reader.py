"""Lean statement reader: the theorems of a Lean file -> :class:`~pyfed.statements.Statement` objects.

:func:`read_file` reads a ``.lean`` file that imports the model (``import Pyfed``, or the
published ``import Definitions.Def_SCAFFOLD_Model``), finds its ``theorem`` declarations and
hands each one (a :class:`~pyfed.statements.statement.TheoremSource`) to the first model that
claims it (:mod:`pyfed.models`; the public entry points are :func:`pyfed.read_file` and
:func:`pyfed.read_text`, which pass the registry's models); :func:`read_text` does the same for a
string. Both binder shapes are read, and mixtures of them:

* binders after the colon (seed 000): ``theorem X : ∀ (d N : ℕ) (P : Problem d N) …, H₁ → H₂ →
  ∀ A : Run P ν S K T ηl ηg (some c0), LHS ≤ RHS``;
* binders before the colon: ``theorem X {d N : ℕ} (P : Problem d N) … (h₁ : H₁) (A : Run …) :
  LHS ≤ RHS``.

Terms are parsed by the one grammar of :mod:`pyfed.lean.terms` and then *elaborated*: every
name is resolved (the statement's binders, the model's definitions of
:mod:`pyfed.statements.model`, the file's own ``def`` s and ``variable`` s) and every arithmetic
subterm gets Lean's type (ℕ or ℝ, by Lean's rule for ``binop%`` trees: the leaves of a tree of
``+ - * /`` and comparisons are coerced to the largest type among them and the expected type;
an exponent is elaborated on its own, so ``x ^ (2 / 3)`` has the natural-number exponent 0 as in
Lean). Natural-number arithmetic is evaluated as Lean does it (truncated subtraction, floor
division).

Everything outside the supported subset raises :class:`ReaderError` listing each problem as
``file:line:col: unsupported <construct>: …; supported: …`` (never a silent skip). Positions are
1-based lines and columns.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..lean import terms
from ..lean.terms import LeanSyntaxError
from . import model
from .declarations import (
    Context,
    Declarations,
    ReaderError,
    run_namespace,
    theorem_header,
)
from .elaborate import read_declarations
from .statement import Statement, TheoremSource

__all__ = ["ReaderError", "read_file", "read_text", "read_declarations", "Declarations", "missing_theorem_message",
           "not_utf8", "run_namespaces", "TheoremSource"]


def _check_imports(decls: Declarations):
    ok = any(imp == m or imp.startswith(m + ".") for imp in decls.imports for m in model.MODEL_IMPORTS)
    if not ok:
        where = decls.imports and "the file's imports: " + ", ".join(decls.imports) or "no import"
        raise ReaderError([LeanSyntaxError("file without the model's import", where, line=1, col=1, path=decls.path,
                                           supported="import Pyfed, one of its modules (Pyfed.Scaffold.Model, Pyfed.FedAvg.Model, …) "
                                                     "or the published Definitions.Def_SCAFFOLD_Model / "
                                                     "Definitions.Def_FedAvg_Model")],
                          decls.path)


def run_namespaces(name, namespace, cmd, variables, decls, clean, path) -> frozenset:
    """The namespaces of the ``Run`` types theorem ``name`` quantifies over (binders before or
    after the colon, ``∀``/``∃`` binders, ``(x : T) →`` binders), each as Lean resolves the name
    where the theorem stands; ``""`` for a ``Run`` that no namespace in scope resolves (the
    reader of the model that claims it names what is missing)."""
    ctx = decls.contexts.get(name, Context(namespace))
    binders, ty, _ = theorem_header(name, cmd, clean, path)
    found = []
    for b in list(binders) + list(variables):
        found.append(b.type)
    for n in ty.walk():
        if n.kind in ("forall", "exists"):
            found.extend(b.type for b in n.value)
        if n.kind == "binop" and n.value == "→" and n.args[0].kind == "cast":
            found.append(n.args[0].args[1])
    kinds = set()
    for t in found:
        if t is None:
            continue
        ns = run_namespace(t, ctx)
        if ns is None and (t.head_name() or "").removeprefix("_root_.") == "Run":
            ns = ""
        if ns is not None:
            kinds.add(ns)
    return frozenset(kinds)


def missing_theorem_message(theorem: str, where: str, names) -> str:
    """The error of ``--theorem NAME`` when no file has NAME: where it was looked for, the
    theorems available there and how to pick one."""
    names = list(names)
    avail = ", ".join(names) if names else "none"
    return (f"no theorem {theorem!r} in {where}; available theorems: {avail}"
            + (f" (pick one with --theorem NAME, e.g. --theorem {names[0].split(' (')[0]}, or omit --theorem to check them all)"
               if names else ""))


def not_utf8(path: str, raw: bytes, exc: UnicodeDecodeError) -> InputError:
    """The error of a file that is not UTF-8: ``path:line:col`` of the first byte that is not
    (line and column counted in characters of the valid text before it), and the byte."""
    head = raw[:exc.start].decode("utf-8")
    line = head.count("\n") + 1
    col = len(head) - (head.rfind("\n") + 1) + 1
    bad = raw[exc.start:exc.end].hex(" ")
    return InputError(f"{path}:{line}:{col}", f"the file is not UTF-8 (byte {bad}); Lean reads UTF-8 source "
                      "files only: save it as UTF-8")


def read_text(text: str, path: str = "<text>", *, models, theorem: str | None = None,
              require_import: bool = True, skip=()) -> list[Statement]:
    """Statements of every theorem in ``text`` (or only ``theorem``), in file order, each read by
    the first of ``models`` (:class:`pyfed.models.protocol.Model` objects, in the registry's order)
    that claims it.

    Raises :class:`ReaderError` listing every unsupported construct (file:line:col); an unknown
    ``theorem`` name is an :class:`~pyfed.errors.InputError` naming ``--theorem``."""
    text = text.removeprefix("\ufeff")         # a byte-order mark written by some editors
    try:
        decls = read_declarations(text, path)
    except (LeanSyntaxError, ReaderError) as e:
        errs = getattr(e, "errors", None) or [e]
        raise ReaderError([x.located(path) if x.path == "<text>" else x for x in errs], path) from None
    if require_import:
        _check_imports(decls)
    names = [n for n in decls.order if n not in set(skip)]
    if theorem is not None:
        bare = theorem.split(".")[-1]
        if bare not in decls.theorems:
            err = InputError("--theorem", missing_theorem_message(theorem, path, names))
            err.available = list(names)
            raise err
        names = [bare]
    if not names:
        raise ReaderError([LeanSyntaxError("file without theorems", "", line=1, col=1, path=path,
                                           supported="theorem NAME : … (about a SCAFFOLD or FedAvg run, or run-free)")], path)
    errors = list(decls.errors) if theorem is None else []
    out = []
    clean = terms.strip_comments(text)
    for name in names:
        namespace, cmd, variables = decls.theorems[name]
        try:
            source = TheoremSource(name, namespace, cmd, variables, decls, clean, path,
                                   run_namespaces(name, namespace, cmd, variables, decls, clean, path))
            model = next((m for m in models if m.claims(source)), None)
            if model is None:
                raise LeanSyntaxError(f"theorem `{name}`", "no model reads it", line=cmd.line, col=cmd.col, path=path,
                                      supported=", ".join(m.family for m in models))
            out.extend(model.read(source))
        except LeanSyntaxError as e:
            errors.append(e)
    if errors:
        raise ReaderError(errors, path)
    return out


def read_file(path, *, models, theorem: str | None = None, require_import: bool = True, skip=()) -> list[Statement]:
    """Statements of the theorems of a ``.lean`` file (see :func:`read_text`).

    Raises :class:`~pyfed.errors.InputError` (argument ``PATH``) if the path does not end in
    ``.lean`` (checked before reading: ``pyfed check README.md`` is "not a Lean file", not a
    syntax error at some line of it) or the file cannot be read, :class:`ReaderError` for
    unsupported constructs."""
    p = Path(path)
    if p.suffix != ".lean":
        raise InputError("PATH", f"{str(path)!r} is not a Lean file (expected a path ending in .lean)")
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError("PATH", f"cannot read {str(path)!r}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_utf8(str(path), raw, exc) from None
    return read_text(text, str(path), models=models, theorem=theorem, require_import=require_import, skip=skip)
