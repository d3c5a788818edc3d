"""The registry: the one place that knows pyfed's models (:mod:`pyfed.models.protocol`).

:data:`MODELS` lists them in the order they are asked to claim a theorem (the first that claims it
reads it; the run-free model claims everything and comes last). :func:`read_text` and
:func:`read_file` are the reader with every model (``pyfed.read_text`` / ``pyfed.read_file``);
:func:`model_by_tag` finds a model from the ``shape`` recorded in a report or a counterexample
record. Adding a model is adding its package under :mod:`pyfed.models` and one line here.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

from ..engines.proof.engine import published_forms
from ..errors import InputError
from ..lean.paths import source_lean_dir
from ..statements import reader
from ..statements.statement import Statement
from ..verdicts import Verdict
from . import fedavg, fedprox, runfree, scaffold
from .protocol import Model

if TYPE_CHECKING:
    from ..engines.proof.proof import Published

__all__ = ["MODELS", "read_text", "read_file", "model_by_tag", "default_rows", "implementation_rows",
           "published_statements", "published_proof_forms"]

#: Every model, in claim order.
MODELS: tuple[Model, ...] = (fedavg.MODEL, scaffold.MODEL, fedprox.MODEL, runfree.MODEL)


def read_text(text: str, path: str = "<text>", *, theorem: str | None = None, require_import: bool = True,
              skip: tuple[str, ...] = ()) -> list[Statement]:
    """The statements of every theorem of the Lean ``text`` (or only ``theorem``), in file order,
    each read by the model that claims it (:func:`pyfed.statements.reader.read_text`: raises
    :class:`~pyfed.statements.ReaderError` listing every unsupported construct at
    ``file:line:col``, :class:`~pyfed.errors.InputError` naming ``--theorem`` for a theorem the
    text does not state)."""
    return reader.read_text(text, path, models=MODELS, theorem=theorem, require_import=require_import, skip=skip)


def read_file(path: str | os.PathLike[str], *, theorem: str | None = None, require_import: bool = True,
              skip: tuple[str, ...] = ()) -> list[Statement]:
    """The statements of the theorems of a ``.lean`` file (see :func:`read_text`; InputError naming
    ``PATH`` for a path that is not a readable ``.lean`` file)."""
    return reader.read_file(path, models=MODELS, theorem=theorem, require_import=require_import, skip=skip)


def model_by_tag(tag: str) -> Model:
    """The model whose statements carry the shape ``tag`` (InputError naming ``shape`` otherwise)."""
    for m in MODELS:
        if m.tag == tag:
            return m
    raise InputError("shape", f"no model {tag!r} (known: {', '.join(m.tag for m in MODELS)})")


def default_rows(*, quick: bool, seed: int, replicates: int,
                 progress: Callable[[str], object] | None = None) -> list[Verdict]:
    """The default report's rows, model by model in the order of the report: SCAFFOLD's built-in
    instances and PEP row, then FedAvg's."""
    out: list[Verdict] = []
    for m in (scaffold.MODEL, fedavg.MODEL, runfree.MODEL):
        out.extend(m.default_rows(quick=quick, seed=seed, replicates=replicates, progress=progress))
    return out


def implementation_rows(algorithm: str, run: Callable[[Any], Any], names: list[str] | None = None, *, replicates: int,
                        seed: int, confidence: float = 0.999) -> list[Verdict]:
    """Monte Carlo verdicts of pyfed's statements on a conforming implementation of ``algorithm``
    (``pyfed conform``'s name: ``"scaffold"``): the model whose statements are about it runs them
    on ``run(instance)``, the implementation's trajectories (InputError naming ``algorithm`` when no
    model's statements are)."""
    for m in MODELS:
        if algorithm in m.implementation_algorithms:
            return m.implementation_rows(run, names, replicates=replicates, seed=seed, confidence=confidence)
    raise InputError("algorithm", f"no statement of pyfed is run on {algorithm} implementations' trajectories")


_PUBLISHED: list[tuple[Published, Statement]] | None = None


def published_statements() -> list[tuple[Published, Statement]]:
    """``[(Published, statement)]``: every statement of ``lean/PyfedPublished/*.lean`` (read by
    the model that claims it) whose proof the published formalization accepted, as its model's
    :meth:`~pyfed.models.protocol.Model.published_proofs` records it (a conjunct ``Name.1``
    inherits ``Name``'s record). Read once per process."""
    global _PUBLISHED
    if _PUBLISHED is None:

        base = source_lean_dir() / "PyfedPublished"
        out = []
        for path in sorted(base.glob("*.lean")):
            rel = f"lean/PyfedPublished/{path.name}"
            for st in reader.read_text(path.read_text(encoding="utf-8"), rel, models=MODELS):
                records = st.model.published_proofs()
                name = st.qualified_name
                rec = records.get(name) or records.get(name.rsplit(".", 1)[0])
                if rec is not None:
                    out.append((rec, st))
        _PUBLISHED = out
    return list(_PUBLISHED)


_FORMS: list[Any] | None = None


def published_proof_forms() -> list[Any]:
    """:func:`pyfed.engines.proof.engine.published_forms` of :func:`published_statements`
    (computed once per process)."""
    global _FORMS
    if _FORMS is None:
        _FORMS = published_forms(published_statements())
    return list(_FORMS)
