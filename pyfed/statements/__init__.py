"""Lean statements as data: the reader's generic layers (:mod:`.declarations`, :mod:`.reader`),
the elaboration of terms (:mod:`.elaborate`, :mod:`.elaboration`), evaluation (:mod:`.evaluate`,
:mod:`.interpret`) and the statement object (:mod:`.statement`).

Which theorems a file states and what each one means is read once, by the models of
:mod:`pyfed.models` (each claims the theorems about its objects); the public entry points are
:func:`pyfed.read_file` and :func:`pyfed.read_text`.
"""

from .declarations import ReaderError
from .statement import (
    HypothesisSpec,
    Location,
    Parameter,
    Statement,
    TheoremSource,
    UserDef,
)

__all__ = ["ReaderError", "Statement", "HypothesisSpec", "Parameter", "Location", "UserDef", "TheoremSource"]
