"""The one place that finds pyfed's Lean sources: the directory pyfed *reads* its statements,
model definitions and generated files from (:func:`source_lean_dir`), the one ``pyfed lean``
*writes* into (:func:`default_lean_dir`) and the one its checks read (:func:`checked_lean_dir`),
and the paths of the statement files inside it (:func:`theorem_files`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import InputError
from .inventory import strip_comments

__all__ = ["LAKEFILE", "PACKAGED_LEAN", "default_lean_dir", "source_lean_dir", "checked_lean_dir",
           "theorem_files", "STATEMENT_FILES"]

#: Marker file of the Lean project root (its ``lean/`` holds ``Pyfed/`` and ``PyfedTest/``).
LAKEFILE = "lakefile.lean"


def default_lean_dir(cwd=None) -> Path:
    """The Lean source directory used when ``--out`` is not given: ``<root>/lean``.

    ``<root>`` is the nearest ancestor of the current working directory (``cwd``, default
    :func:`os.getcwd`; the directory itself included) holding ``lakefile.lean``; failing that,
    the repository around the installed package if it has one (an editable install). After a
    non-editable install (``pip install .``) the package sits in site-packages, which has no
    ``lakefile.lean``, so nothing is written there.

    Raises InputError(argument="--out") when no Lean project is found. Shared by
    :mod:`pyfed.lean.render` and :mod:`pyfed.lean.drift`.
    """
    here = Path(os.getcwd() if cwd is None else cwd).resolve()
    for d in (here, *here.parents):
        if (d / LAKEFILE).is_file():
            return d / "lean"
    repo = Path(__file__).resolve().parents[2]
    if (repo / LAKEFILE).is_file():
        return repo / "lean"
    raise InputError("--out", "no Lean project found (no lakefile.lean above the current directory): "
                              "rendering writes the Lean sources of a pyfed checkout, so run it inside "
                              "a checkout (git clone) or pass --out DIR")


#: Directory name of the packaged copy of ``lean/`` inside the installed ``pyfed`` package (the
#: data package ``pyfed._lean`` of ``pyproject.toml``).
PACKAGED_LEAN = "_lean"


def source_lean_dir(package_dir=None) -> Path:
    """The ``lean/`` directory whose sources pyfed *reads* (its statements, model definitions and
    generated files): every reader of pyfed's own Lean sources goes through this function.

    * running from a checkout or an editable install: ``<checkout>/lean`` (the checkout is the
      parent of the ``pyfed`` package directory and holds ``lakefile.lean`` and ``lean/Pyfed``);
    * after a non-editable install (``pip install .``): the copy shipped in the wheel,
      ``<site-packages>/pyfed/_lean`` (same tree: ``Pyfed/``, ``PyfedTest/``, ``MATHLIB_API.md``).

    ``package_dir`` is the ``pyfed`` package directory (default: this installation's; tests pass
    a fake layout). The result does not depend on the current directory. Raises
    InputError(argument="lean") when neither tree exists (a broken installation). Writers
    (``pyfed lean`` rendering, counterexample files) never use the packaged copy: they need a
    checkout (:func:`default_lean_dir`).
    """
    pkg = Path(package_dir) if package_dir is not None else Path(__file__).resolve().parents[1]
    checkout = pkg.parent
    if (checkout / LAKEFILE).is_file() and (checkout / "lean" / "Pyfed").is_dir():
        return checkout / "lean"
    packaged = pkg / PACKAGED_LEAN
    if (packaged / "Pyfed").is_dir():
        return packaged
    raise InputError("lean", f"pyfed's Lean sources are missing: neither {checkout / 'lean'} (a checkout) nor "
                             f"{packaged} (the installed copy) holds Pyfed/; reinstall pyfed")


def checked_lean_dir(cwd=None, package_dir=None) -> Path:
    """The Lean source directory that ``pyfed lean --check`` / ``--drift`` read when ``--out`` is
    not given: ``<root>/lean`` of the nearest ``lakefile.lean`` at or above ``cwd`` (as
    :func:`default_lean_dir`), else :func:`source_lean_dir` (so the checks also run from a
    non-editable install, on the copy shipped with pyfed). Never raises for a missing project;
    InputError only for a broken installation (see :func:`source_lean_dir`)."""
    try:
        here = Path(os.getcwd() if cwd is None else cwd).resolve()
        for d in (here, *here.parents):
            if (d / LAKEFILE).is_file():
                return d / "lean"
    except OSError:  # the current directory was removed
        pass
    return source_lean_dir(package_dir)



#: The order in which the default report checks pyfed's statement files (relative to ``lean/``):
#: the convergence theorems first, then the lemmas. Any other file under ``lean/Pyfed`` that
#: declares a theorem follows, sorted by path (:func:`theorem_files`), so a new statement file
#: is checked without touching Python.
STATEMENT_FILES = ("Pyfed/Scaffold/Theorems.lean", "Pyfed/FedAvg/Theorems.lean", "Pyfed/Lemmas/Inequalities.lean",
                   "Pyfed/Lemmas/Sampling.lean", "Pyfed/Lemmas/Averaging.lean", "Pyfed/Lemmas/Martingale.lean",
                   "Pyfed/Algorithms/LocalSGD.lean", "Pyfed/Algorithms/Scaffold.lean")

_THEOREM_LINE = re.compile(r"(?m)^\s*(?:@\[[^\]]*\]\s*)?(?:(?:private|protected)\s+)?(?:theorem|lemma)\s")


def theorem_files(lean_dir=None) -> list:
    """``[(path relative to the checkout, absolute Path)]`` of every file under ``lean_dir/Pyfed``
    (default :func:`source_lean_dir`) that declares a theorem outside comments:
    :data:`STATEMENT_FILES` first in that order, then the others sorted by path."""

    base = Path(lean_dir) if lean_dir is not None else source_lean_dir()
    found = {p.relative_to(base).as_posix() for p in (base / "Pyfed").rglob("*.lean")
             if _THEOREM_LINE.search(strip_comments(p.read_text(encoding="utf-8")))}
    order = [rel for rel in STATEMENT_FILES if rel in found] + sorted(found - set(STATEMENT_FILES))
    return [(f"lean/{rel}", base / rel) for rel in order]
