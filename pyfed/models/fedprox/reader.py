"""FedProx statements: the theorems whose terms use the definitions of the Lean namespace
``FedProxProcedure`` (``lean/Pyfed/Algorithms/FedProx.lean``: ``proxOracle``, ``proxPath``,
``fedProxRound``, ``fedProx``), directly or through the file's own defs.

:func:`claims` finds them by resolving every identifier of the theorem (and of the file's defs it
names) as Lean would where the theorem stands; :func:`statements_from` reads one into a
:class:`FedProxStatement` with the general builder of :mod:`pyfed.statements.lean_statement`
(the terms are elaborated by :mod:`pyfed.statements.elaboration` and evaluated from the Lean
bodies by :mod:`pyfed.statements.interpret`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...statements.declarations import Context
from ...statements.lean_statement import LeanStatement
from ...statements.lean_statement import statements_from as lean_statements_from
from ...statements.vocabulary import lookup

__all__ = ["FedProxStatement", "NAMESPACE", "FAMILY", "claims", "statements_from"]

#: The Lean namespace of the FedProx procedure.
NAMESPACE = "FedProxProcedure"

#: A FedProx statement's family (the report's ``family``).
FAMILY = "FedProx procedure lemma"

#: A Lean identifier (dotted names whole: ``FedProxProcedure.fedProx``).
_IDENT = re.compile(r"[^\W\d][\w'.]*")


@dataclass
class FedProxStatement(LeanStatement):
    """A theorem about the FedProx procedure (:class:`~pyfed.statements.lean_statement.LeanStatement`:
    its ``conclusion``, ``context`` and ``file_decls`` beyond :class:`~pyfed.statements.statement.Statement`)."""


def claims(source) -> bool:
    """Whether theorem ``source`` (a :class:`~pyfed.statements.statement.TheoremSource`) uses a
    definition of :data:`NAMESPACE`: an identifier of its text, or of a def of the file it names
    (transitively), that resolves to one where the theorem stands (its namespace and ``open`` s)."""
    ctx = source.decls.contexts.get(source.name, Context(source.namespace))
    defs = {}
    for name, full, cmd, _variables, _ctx in getattr(source.decls, "raw_defs", []):
        defs[name] = defs[full] = cmd.text
    todo, seen = [source.cmd.text], set()
    while todo:
        for word in set(_IDENT.findall(todo.pop())):
            decl = lookup(word, ctx.namespace, ctx.opens)
            if decl is not None and decl.name.startswith(NAMESPACE + "."):
                return True
            if word in defs and word not in seen:
                seen.add(word)
                todo.append(defs[word])
    return False


def statements_from(name, namespace, cmd, variables, decls, clean, path) -> list:
    """The :class:`FedProxStatement` s of one theorem (a conclusion ``A ∧ B`` gives one per conjunct)."""
    return lean_statements_from(name, namespace, cmd, variables, decls, clean, path, statement_class=FedProxStatement,
                                family=lambda parameters, hypotheses: FAMILY)
