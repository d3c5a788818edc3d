"""pyfed: a Lean-backed verification companion for federated optimization theory.

The public surface (everything else is implementation and may move):

* reading statements: :func:`read_file`, :func:`read_text` (Lean 4 text in, :class:`Statement`
  objects out; :class:`ReaderError` lists every unsupported construct at ``file:line:col``);
* deciding them: :func:`check_statement` (one statement, every engine that applies) and
  :func:`check_file` (every theorem of a file), returning :class:`StatementReport` objects whose
  verdicts are :class:`Holds`, :class:`Violated` or :class:`Inconclusive` (:class:`Verdict`,
  with the :class:`Evidence` they rest on);
* simulating runs: :func:`fedavg`, :func:`fedprox`, :func:`local_sgd`, :func:`scaffold`,
  :func:`scaffold_run` (vectorised over replicates);
* testing third-party code: :func:`check_conformance` (:func:`pyfed.conform.conform`, returning a
  :class:`ConformanceReport`; ``pyfed.conform`` is the conformance package).

Bad input raises :class:`InputError` (``argument: why``). Example::

    import pyfed
    (st,) = pyfed.read_file("my_bound.lean", theorem="MyBound")
    report = pyfed.check_statement(st, quick=True)
    for v in report.verdicts:
        print(v.label, v.statement)

The names are loaded on first use, so ``import pyfed`` (and ``pyfed --help``) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:      # what type checkers and IDEs see; at run time the names load on first use
    from .algorithms import fedavg, fedprox, local_sgd, scaffold, scaffold_run
    from .check import StatementReport, check_file, check_statement
    from .conform import ConformanceReport
    from .conform import conform as check_conformance
    from .errors import InputError
    from .models.registry import read_file, read_text
    from .statements.declarations import ReaderError
    from .statements.statement import Statement
    from .verdicts import Evidence, Holds, Inconclusive, Verdict, Violated

from ._version import __version__

#: public name -> (module, attribute)
_PUBLIC = {
    "read_file": ("pyfed.models.registry", "read_file"),
    "read_text": ("pyfed.models.registry", "read_text"),
    "ReaderError": ("pyfed.statements.declarations", "ReaderError"),
    "Statement": ("pyfed.statements.statement", "Statement"),
    "check_statement": ("pyfed.check", "check_statement"),
    "check_file": ("pyfed.check", "check_file"),
    "StatementReport": ("pyfed.check", "StatementReport"),
    "Verdict": ("pyfed.verdicts", "Verdict"),
    "Holds": ("pyfed.verdicts", "Holds"),
    "Violated": ("pyfed.verdicts", "Violated"),
    "Inconclusive": ("pyfed.verdicts", "Inconclusive"),
    "Evidence": ("pyfed.verdicts", "Evidence"),
    "InputError": ("pyfed.errors", "InputError"),
    "fedavg": ("pyfed.algorithms", "fedavg"),
    "fedprox": ("pyfed.algorithms", "fedprox"),
    "local_sgd": ("pyfed.algorithms", "local_sgd"),
    "scaffold": ("pyfed.algorithms", "scaffold"),
    "scaffold_run": ("pyfed.algorithms", "scaffold_run"),
    "check_conformance": ("pyfed.conform", "conform"),
    "ConformanceReport": ("pyfed.conform", "ConformanceReport"),
}

__all__ = ["__version__", *_PUBLIC]


def __getattr__(name: str) -> Any:
    """Load a public name on first use (PEP 562)."""
    try:
        module, attr = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'pyfed' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
