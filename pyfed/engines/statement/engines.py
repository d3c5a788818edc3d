"""Which engines apply to a statement, and why not (:func:`applicable_engines`)."""

from __future__ import annotations

from .access import NotLinear, linear_form
from .candidates import candidate
from .pep import NoPEP, pep_plan

__all__ = ["applicable_engines"]


def applicable_engines(st) -> dict:
    """Which engines apply to ``st`` and why not: ``{engine: (applies, reason)}`` for
    ``exact``, ``montecarlo``, ``pep`` and ``search`` (the left side's linearity is checked on
    the search's first structured instance; the PEP by :func:`pyfed.engines.pep.statement.pep_plan`)."""



    out = {"exact": (True, "rational quadratic clients with Gaussian-law noise, every statistic exactly"),
           "search": (True, "instances drawn inside the statement's hypotheses, decided exactly")}
    try:
        inst, _ = candidate(st, 0, 0)
        linear_form(st, inst)
        out["montecarlo"] = (True, "the left side is a linear combination of per-round expectations")
    except NotLinear as exc:
        out["montecarlo"] = (False, str(exc))
    except Exception as exc:  # no instance to test linearity on
        out["montecarlo"] = (False, f"not determined: {exc}")
    try:
        pep_plan(st)
        out["pep"] = (True, "the hypotheses admit sigma = 0, S = N and the right side is a * ||x0 - x*||^2 + g * C0")
    except NoPEP as exc:
        out["pep"] = (False, str(exc))
    return out
