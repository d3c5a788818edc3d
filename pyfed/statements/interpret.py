"""Evaluation of run-free statements on concrete instances, in exact arithmetic: the one evaluator
(:class:`pyfed.evaluation.Evaluator`) with the definitions a statement refers to read from Lean
(:class:`LeanDefinitions`: the model's definitions of :mod:`pyfed.statements.vocabulary` and the
file's own, each body elaborated by :mod:`pyfed.statements.elaboration` in its own scope).

The values (:class:`Vec`, :class:`Fun`, :class:`FiniteSpace`, :class:`Filtration`,
:class:`Record`, …) are those of :mod:`pyfed.evaluation.values`; the model's definitions are
evaluated from their Lean bodies, including definitions by cases (``localPath``, ``scaffold``,
memoised and bottom-up) and structure values (``scaffoldRound``): the Lean file is what a
definition means.
"""

from __future__ import annotations

from ..evaluation.domains import numbers
from ..evaluation.evaluator import Definitions, Evaluator
from ..evaluation.numbers import EvaluationError
from ..evaluation.values import (  # noqa: F401
    Filtration,
    FiniteSpace,
    Fun,
    NotFinite,
    Record,
    Sigma,
    Structural,
    Vec,
    condexp,
    measurable,
    vec,
    zero_vec,
)
from ..lean.terms import Node
from .elaboration import elaborate_body, resolved, zonk
from .vocabulary import model_declarations

__all__ = ["Vec", "Fun", "FiniteSpace", "Filtration", "Record", "Sigma", "Interpreter", "LeanDefinitions",
           "NotFinite", "Structural", "vec", "zero_vec", "condexp", "measurable"]


class LeanDefinitions(Definitions):
    """The definitions a run-free statement refers to: the file's own ``file_decls`` (they shadow
    the model's) and the model's (:func:`pyfed.statements.vocabulary.model_declarations`), each
    body elaborated once in its own scope and cached."""

    def __init__(self, file_decls: dict | None = None):
        self.file_decls = dict(file_decls or {})
        self.model = model_declarations()
        self._bodies: dict = {}

    def get(self, name):
        return self.file_decls.get(name) or self.model.get(name)

    def decl(self, name):
        d = self.get(name)
        if d is None:
            raise EvaluationError(None, f"no definition `{name}`")
        return d

    def body(self, d):
        if d.name not in self._bodies:
            self._bodies[d.name] = elaborate_body(d, self.file_decls)
        return self._bodies[d.name]

    def resolved(self, t):
        return None if t is None else resolved(t)

    def implicit(self, meta):
        z = zonk(meta)
        return z if isinstance(z, Node) else None


class Interpreter(Evaluator):
    """The evaluator of one run-free statement's terms in exact arithmetic; ``file_decls`` are the
    file's own defs (they shadow the model's), ``context`` the statement's."""

    def __init__(self, file_decls: dict | None = None, context=None):
        super().__init__(numbers("exact"), None, LeanDefinitions(file_decls), context)
        self.file_decls = self.definitions.file_decls
