"""The run-free model's statements: :class:`RunFreeStatement`, read by the generic builder of
:mod:`pyfed.statements.lean_statement` (vectors, sequences, function classes, finite probability
spaces and the model's procedures)."""

from __future__ import annotations

from dataclasses import dataclass

from ...statements.lean_statement import LeanStatement
from ...statements.lean_statement import statements_from as lean_statements_from

__all__ = ["RunFreeStatement", "statements_from"]


@dataclass
class RunFreeStatement(LeanStatement):
    """A run-free theorem read from Lean (:class:`~pyfed.statements.lean_statement.LeanStatement`:
    its ``conclusion``, ``context`` and ``file_decls`` beyond :class:`~pyfed.statements.statement.Statement`)."""


def statements_from(name, namespace, cmd, variables, decls, clean, path) -> list:
    """Statements of a run-free theorem (:func:`pyfed.statements.lean_statement.statements_from`)."""
    return lean_statements_from(name, namespace, cmd, variables, decls, clean, path, statement_class=RunFreeStatement)
