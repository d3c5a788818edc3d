"""pyfed's own statements about a SCAFFOLD run, read from ``lean/Pyfed/Scaffold/Theorems.lean``
(:func:`our_statements`, :func:`statement_of`), and what the search takes from them: the step bound
of the model's convex theorem (:func:`reference_step_bound`), the scale a search uses where a
statement bounds no step of its own."""

from __future__ import annotations

import functools
from fractions import Fraction
from pathlib import Path

import numpy as np

from ...errors import InputError
from ...lean import terms
from ...lean.paths import source_lean_dir
from ...problems.quadratic import QuadraticProblem
from ...statements.elaborate import read_declarations
from ...suites.scaffold import CONVEX
from .hypotheses import max_eta_l
from .instance import RunInstance
from .reader import ScaffoldRunStatement, statements_from

__all__ = ["theorems_path", "our_statements", "statement_of", "reference_step_bound"]


def theorems_path(lean_dir=None) -> Path:
    """Path of ``Pyfed/Scaffold/Theorems.lean`` under ``lean_dir`` (the ``lean/`` directory;
    default: pyfed's own Lean sources, :func:`pyfed.lean.paths.source_lean_dir` -- the checkout's
    ``lean/`` or, after a non-editable install, the copy shipped with the package)."""
    return Path(source_lean_dir() if lean_dir is None else lean_dir) / "Pyfed" / "Scaffold" / "Theorems.lean"


def our_statements(lean_dir=None) -> dict:
    """``{name: ScaffoldRunStatement}`` of the run statements in pyfed's ``Theorems.lean`` (a
    conjunction of two run statements gives ``Name.1`` and ``Name.2``; the file's theorems that
    are not about a run, e.g. ``GradientGrowth``, are read by their own model and skipped here)."""
    path = theorems_path(lean_dir)
    text = path.read_text(encoding="utf-8")
    rel = "lean/Pyfed/Scaffold/Theorems.lean"
    decls = read_declarations(text, rel)
    clean = terms.strip_comments(text)
    out = {}
    for name in decls.order:
        namespace, cmd, variables = decls.theorems[name]
        if "Run" not in cmd.text:
            continue
        for st in statements_from(name, namespace, cmd, variables, decls, clean, rel):
            out[st.name] = st
    return out


def statement_of(theorem: str) -> ScaffoldRunStatement:
    """The statement of one of our theorems, read from ``lean/Pyfed/Scaffold/Theorems.lean``
    (InputError naming ``theorem`` if the file does not state it)."""
    sts = our_statements()
    if theorem not in sts:
        raise InputError("theorem", f"{theorem!r} is not a run statement of lean/Pyfed/Scaffold/Theorems.lean "
                                    f"(found: {', '.join(sts)})")
    return sts[theorem]


@functools.lru_cache(maxsize=1)
def reference_step_bound() -> Fraction:
    """h β of the largest step the model's convex theorem (``ConvexFiniteRoundConvergence`` of
    ``lean/Pyfed/Scaffold/Theorems.lean``) admits, read from its hypotheses by the search's own
    step solver on a probe instance (β = 1, K = 1, ηg = 1): 1/81 for the file as shipped."""
    st = statement_of(CONVEX)
    p = QuadraticProblem(np.array([[[Fraction(1)]]], dtype=object), np.array([[Fraction(0)]], dtype=object),
                         name="probe")
    inst = RunInstance("probe", p, Fraction(0), 1, 1, 1, Fraction(1, 1000), Fraction(1),
                       np.array([Fraction(1)], dtype=object), np.array([[Fraction(0)]], dtype=object))
    top, _bounded = max_eta_l(st, inst)
    return Fraction(top) if top is not None else Fraction(1, 81)
