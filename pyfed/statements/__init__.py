"""Lean statements as data: the reader (:mod:`.reader`), the statement object
(:mod:`.statement`), the model's vocabulary (:mod:`.model`) and evaluation (:mod:`.evaluate`).

``read_file(path)`` turns every theorem about SCAFFOLD runs in a ``.lean`` file into a
:class:`Statement`; :func:`our_statements` reads pyfed's own ``lean/Pyfed/Scaffold/Theorems.lean``
(what ``pyfed check`` checks is literally what that file states).
"""

from .reader import ReaderError, read_file, read_text
from .statement import HypothesisSpec, Location, Parameter, Statement, UserDef

__all__ = ["read_file", "read_text", "ReaderError", "Statement", "HypothesisSpec", "Parameter", "Location",
           "UserDef", "our_statements", "theorems_path", "our_fedavg_statements", "fedavg_theorems_path"]


def theorems_path(lean_dir=None):
    """Path of ``Pyfed/Scaffold/Theorems.lean`` under ``lean_dir`` (the ``lean/`` directory;
    default: pyfed's own Lean sources, :func:`pyfed.lean.paths.source_lean_dir` -- the
    checkout's ``lean/`` or, after a non-editable install, the copy shipped with the package;
    independent of the current directory)."""
    from pathlib import Path
    if lean_dir is None:
        from ..lean.paths import source_lean_dir
        lean_dir = source_lean_dir()
    return Path(lean_dir) / "Pyfed" / "Scaffold" / "Theorems.lean"


def our_statements(lean_dir=None) -> dict:
    """``{name: Statement}`` of the run statements in pyfed's ``Theorems.lean`` (a conjunction of
    two run statements gives ``Name.1`` and ``Name.2``; theorems that are not about a run, e.g.
    ``GradientGrowth``, have their own checkers and are skipped here)."""
    from .elaborate import read_declarations
    from .scaffold_run import statements_from
    from ..lean import terms
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


def fedavg_theorems_path(lean_dir=None):
    """Path of ``Pyfed/FedAvg/Theorems.lean`` under ``lean_dir`` (default: pyfed's own Lean sources,
    :func:`pyfed.lean.paths.source_lean_dir`)."""
    from pathlib import Path
    if lean_dir is None:
        from ..lean.paths import source_lean_dir
        lean_dir = source_lean_dir()
    return Path(lean_dir) / "Pyfed" / "FedAvg" / "Theorems.lean"


def our_fedavg_statements(lean_dir=None) -> list:
    """The statements of pyfed's ``lean/Pyfed/FedAvg/Theorems.lean`` in file order, read by the
    reader (what the default report checks is what that file states); their ``source`` is
    ``lean/Pyfed/FedAvg/Theorems.lean:line``."""
    from .reader import read_text

    path = fedavg_theorems_path(lean_dir)
    return read_text(path.read_text(encoding="utf-8"), "lean/Pyfed/FedAvg/Theorems.lean")
