"""Our statements: every theorem of pyfed's statement files, by Lean name, with its mutations.

The catalogue is read from the Lean files themselves (:data:`pyfed.lean.paths.STATEMENT_FILES`):
a theorem added to ``lean/Pyfed`` is in it without any Python, and it is checked by the same
reader and engines as a user's statement. Each entry knows its file and its list of mutations
(data, in :mod:`pyfed.checkers.scaffold`, :mod:`pyfed.checkers.lemmas`,
:mod:`pyfed.checkers.fedavg`, :mod:`pyfed.checkers.exact`). ``get(name)`` accepts a bare name (``YoungInner``) or a qualified
one (``SCAFFOLD.YoungInner``, ``FedAvg.PerRoundProgress``); bare names are unique across
namespaces.

``--relax KEY`` is a statement variant too: the hypothesis with that key removed from the Lean
text (:func:`relax_mutation`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from pyfed.errors import InputError
from pyfed.lean import terms
from pyfed.lean.paths import source_lean_dir, theorem_files
from pyfed.models.registry import read_text
from pyfed.statements.declarations import scan_declarations

from . import exact, fedavg, lemmas, scaffold  # noqa: F401 -- each fills MUTATIONS
from .mutations import MUTATIONS, TextMutation, mutated_text

__all__ = ["Entry", "catalogue", "get", "names", "qualified_names", "display_name", "namespace_of", "statements_of",
           "relax_mutation"]


@dataclass(frozen=True)
class Entry:
    """One statement of pyfed's Lean files: ``name`` (qualified), ``bare``, ``namespace``, ``file``
    (relative to ``lean/``), ``path`` (absolute), ``line``."""

    name: str
    bare: str
    namespace: str
    file: str
    path: str
    line: int

    @property
    def display(self) -> str:
        """How reports name it: bare in namespace SCAFFOLD, qualified otherwise."""
        return self.bare if self.namespace == "SCAFFOLD" else self.name

    @property
    def mutations(self) -> list:
        return list(MUTATIONS.get(self.name, ()))

    def mutation(self, key: str) -> TextMutation:
        for m in self.mutations:
            if m.name == key:
                return m
        raise InputError("mutate", f"unknown mutation {key!r} of {self.name}; known: "
                                   f"{', '.join(m.name for m in self.mutations) or 'none'}")

    def text(self) -> str:
        return Path(self.path).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=2)
def _catalogue(lean_dir: str) -> tuple:

    out = []
    for rel, path in theorem_files(lean_dir):
        text = path.read_text(encoding="utf-8")
        decls = scan_declarations(text, rel)
        for name in decls.order:
            ns, cmd, _ = decls.theorems[name]
            top = ns.split(".")[0] if ns else ""
            out.append(Entry(f"{top}.{name}" if top else name, name, top, rel[len("lean/"):], str(path),
                             terms.position_of(text, cmd.offset)[0] if hasattr(cmd, "offset") else cmd.line))
    return tuple(out)


def catalogue(lean_dir=None) -> list:
    """Every theorem of pyfed's statement files, in file order."""
    return list(_catalogue(str(lean_dir or source_lean_dir())))


def names() -> list:
    """The bare names, in file order."""
    return [e.bare for e in catalogue()]


def qualified_names() -> list:
    return [e.name for e in catalogue()]


def get(name: str) -> Entry:
    """The entry of a bare or qualified name (InputError naming ``lean_name`` if unknown)."""
    for e in catalogue():
        if name in (e.name, e.bare):
            return e
    raise InputError("lean_name", f"unknown statement {name!r}; known: {', '.join(qualified_names())}")


def display_name(name: str) -> str:
    return get(name).display


def namespace_of(name: str) -> str:
    return get(name).namespace


def relax_mutation(entry: Entry, key: str, text: str | None = None) -> TextMutation:
    """The statement variant without the hypothesis ``key`` (its binder ``(h : H)`` or its
    antecedent ``H →`` removed from the Lean text ``text``, default the file's). InputError naming
    ``relax`` for an unknown key."""

    text = entry.text() if text is None else text
    sts = read_text(text, entry.file, theorem=entry.bare)
    specs = {h.key: h for st in sts for h in st.hypotheses}
    if key not in specs:
        raise InputError("relax", f"unknown hypothesis {key!r} of {entry.name}; known: {', '.join(sorted(specs))}")
    spec = specs[key]
    start = _offset(text, spec.location.line, spec.location.col)
    # binder style: `(name : H)` around the hypothesis
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    if i >= 0 and text[i] == ":":
        k = i - 1
        while k >= 0 and text[k] in " \t":
            k -= 1
        while k >= 0 and (text[k].isalnum() or text[k] in "_'.₀₁₂₃₄₅₆₇₈₉"):
            k -= 1
        while k >= 0 and text[k] in " \t":
            k -= 1
        if k >= 0 and text[k] == "(":
            end = _matching(text, k)
            return TextMutation(f"relax_{key}", f"hypothesis {key} dropped", text[k:end + 1], "")
    # arrow style: `H →`
    end = _arrow_after(text, start)
    return TextMutation(f"relax_{key}", f"hypothesis {key} dropped", text[start:end], "")


def _offset(text, line, col) -> int:
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[:line - 1]) + col - 1


def _matching(text, k) -> int:
    depth = 0
    for i in range(k, len(text)):
        if text[i] in "([{⦃⟨":
            depth += 1
        elif text[i] in ")]}⦄⟩":
            depth -= 1
            if depth == 0:
                return i
    raise InputError("relax", "unbalanced brackets around the hypothesis")


def _arrow_after(text, start) -> int:
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch in "([{⦃⟨":
            depth += 1
        elif ch in ")]}⦄⟩":
            depth -= 1
        elif ch == "→" and depth == 0:
            j = i + 1
            while j < len(text) and text[j] in " \t\n":
                j += 1
            return j
    raise InputError("relax", "the hypothesis is not followed by →")


def statements_of(name: str, *, mutate: str | None = None, relax=()) -> list:
    """The statements read from ``name``'s theorem (its conjuncts for a conjunction), with the
    mutation ``mutate`` and the hypotheses ``relax`` removed, through the one reader."""

    entry = get(name)
    text = entry.text()
    if mutate is not None:
        text = mutated_text(text, entry.bare, entry.mutation(mutate))
    for key in sorted(set(relax or ())):
        text = mutated_text(text, entry.bare, relax_mutation(entry, key, text))
    return read_text(text, entry.file, theorem=entry.bare)
