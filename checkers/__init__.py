"""Statement checkers: one per Lean statement of the seeds, keyed by its Lean name.

See :mod:`pyfed.checkers.base` for the interface and :mod:`pyfed.checkers.registry` for the mapping.
``run_all(budget, seed)`` runs every checker's default search and returns one verdict per
statement (used by ``pyfed check``).

Adding a checker: subclass :class:`pyfed.checkers.base.Checker` (or
:class:`pyfed.checkers.recursion.RecursionChecker` for a recursion lemma) in a module of this
package; set ``lean_name``, ``statement``, ``source`` and ``mutations``; implement
``hypotheses``, ``lhs``, ``rhs``, ``random`` and ``structured`` (and ``candidates`` for a
statement-specific adversary); register ``"LeanName": "module:Class"`` in
:data:`pyfed.checkers.registry.REGISTRY`. ``tests/test_checkers.py`` then requires that its
generators pass, that its default search finds nothing, and that it catches every mutation.
"""

from __future__ import annotations

from .registry import NAMESPACES, REGISTRY, all_checkers, get, names, qualified_names, run_all

__all__ = ["REGISTRY", "NAMESPACES", "get", "names", "qualified_names", "all_checkers", "run_all"]
