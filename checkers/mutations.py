"""Mutations are statement variants: deliberately wrong edits of a theorem's Lean text.

A :class:`TextMutation` replaces one piece of a theorem's text by another (a numeral scaled, a
term dropped, a hypothesis removed or loosened); :func:`mutated_text` applies it to the theorem
inside its file and :func:`mutated_statements` reads the edited theorem through the same reader
(:mod:`pyfed.statements`) as any user's statement, so the same engines decide it. Each statement's
list of mutations is data beside the statement (:data:`MUTATIONS`, keyed by the qualified Lean
name); the registry-wide test requires the engines to catch every one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pyfed.errors import InputError
from pyfed.lean.terms import cut_at_assign
from pyfed.models.registry import read_text

__all__ = ["TextMutation", "MUTATIONS", "mutations_of", "mutated_text", "mutated_statements", "theorem_span"]


@dataclass(frozen=True)
class TextMutation:
    """A deliberately wrong variant of a statement: inside the theorem's text (from ``theorem``
    to ``:=``), the ``count``-th occurrence (1-based) of ``old`` becomes ``new`` (``count = 0``:
    every occurrence).

    name : machine name (``--mutate NAME``); description : the variant in words."""

    name: str
    description: str
    old: str
    new: str
    count: int = 1


def theorem_span(text: str, name: str) -> tuple:
    """``(start, end)`` offsets of theorem ``name``'s statement in ``text``: from the keyword
    ``theorem`` to its top-level ``:=``. InputError if the file has no such theorem."""

    m = re.search(rf"(?m)^\s*(?:theorem|lemma)\s+{re.escape(name)}(?=[\s:({{\[⦃])", text)
    if m is None:
        raise InputError("mutation", f"no theorem {name!r} in the text")
    start = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
    header, body = cut_at_assign(text[start:])
    return start, start + len(header)


def mutated_text(text: str, name: str, mutation: TextMutation) -> str:
    """``text`` with ``mutation`` applied inside theorem ``name`` (InputError if the theorem does
    not contain the mutated piece that many times: a stale mutation list is an error, never a
    silent no-op)."""
    a, b = theorem_span(text, name)
    span = text[a:b]
    if mutation.count == 0:            # every occurrence
        if mutation.old not in span:
            raise InputError("mutation", f"{mutation.name}: theorem {name!r} does not contain {mutation.old!r}")
        return text[:a] + span.replace(mutation.old, mutation.new) + text[b:]
    pos = -1
    for _ in range(mutation.count):
        pos = span.find(mutation.old, pos + 1)
        if pos < 0:
            raise InputError("mutation", f"{mutation.name}: theorem {name!r} does not contain {mutation.old!r} "
                                         f"{mutation.count} time(s)")
    edited = span[:pos] + mutation.new + span[pos + len(mutation.old):]
    return text[:a] + edited + text[b:]


def mutated_statements(path, name: str, mutation: TextMutation, *, text: str | None = None) -> list:
    """The statements read from theorem ``name`` of the Lean file ``path`` with ``mutation``
    applied (``text``: the file's text, if already read)."""


    src = Path(path).read_text(encoding="utf-8") if text is None else text
    bare = name.split(".")[-1]
    return read_text(mutated_text(src, bare, mutation), str(path), theorem=bare)


#: Qualified Lean name -> its mutations (filled by the statement families' modules).
MUTATIONS: dict = {}


def mutations_of(name: str) -> list:
    """The mutations of the statement ``name`` (qualified, e.g. ``SCAFFOLD.YoungInner``)."""
    return list(MUTATIONS.get(name, ()))
