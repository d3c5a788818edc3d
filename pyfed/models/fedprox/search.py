"""Adversarial search of a FedProx statement: instances drawn inside its hypotheses
(:mod:`.instances`: quadratic clients and their exact oracles, steps, μ, K, S of N, sampled sets,
starts), each decided exactly by the one interpreter of Lean terms
(:mod:`pyfed.statements.interpret`, evaluating the procedure from its Lean body in exact rationals)
through the generic search of :mod:`pyfed.engines.statement.lean_search`; a witness re-checks
exactly (:func:`recheck`).

Each candidate index gives the drawn instance, then the same instance with each positive real
parameter that a hypothesis bounds moved to the edge of what the hypotheses admit
(:func:`.instances.boundary`: step sizes and proximal weights are worst there).
"""

from __future__ import annotations

from ...checkers import families as fam
from ...engines.statement.lean_search import (
    decide_instance,
    interpreter_for,
    search_instances,
    search_verdict,
)
from ...engines.statement.search import SearchResult
from ...exact import rational_str
from ..protocol import RecheckError
from .instances import STRUCTURED, Unsupported, boundary, draw, roles

__all__ = ["search", "verdict", "recheck", "decide", "describe_hypotheses", "WITNESS_SCHEMA", "DECIDED_BY"]

#: Version tag of a FedProx witness (the instance's values as exact JSON specs,
#: :func:`pyfed.checkers.families.env_to_spec`).
WITNESS_SCHEMA = "pyfed.fedprox-instance/1"

#: How a FedProx instance is decided, in words (the counterexample record's ``decided_by``).
DECIDED_BY = ("pyfed.statements.interpret (the FedProx procedure evaluated from its Lean body, "
              "lean/Pyfed/Algorithms/FedProx.lean, in exact rational arithmetic)")

#: Real parameters moved to their hypotheses' boundary per candidate (in the statement's order).
BOUNDARY_NAMES = 3


def decide(st, env, interp=None, *, index: int = 0, description: str = ""):
    """``st`` decided exactly on the instance ``env`` (an
    :class:`~pyfed.engines.statement.lean_search.InstanceRecord`)."""
    return decide_instance(st, env, interp, encode=fam.env_to_spec, index=index, description=description)


def describe_hypotheses(st) -> list:
    """The report's hypotheses of an instance on which every one holds: ``[{"key", "statement",
    "holds"}]``."""
    return [{"key": h.key, "statement": h.text, "holds": True} for h in st.hypotheses]


def _bounded_reals(st) -> list:
    """The real parameters some hypothesis mentions, in the statement's order."""
    mentioned = {n.value for h in st.hypotheses for n in h.node.walk() if n.kind == "ident"}
    return [p.name for p in st.parameters if p.kind == "real" and p.name in mentioned][:BOUNDARY_NAMES]


def _candidates(st, seed, index, interp, rl, reals):
    try:
        drawn = draw(st, seed, index, interp, rl)
    except Unsupported as exc:
        return [(None, str(exc))]
    out = [(drawn.env, drawn.description)]
    if drawn.failing:
        return out
    for name in reals:
        moved = boundary(st, drawn.env, name, interp)
        if moved is not None:
            out.append((moved, f"{drawn.description}; {name} moved to the edge of its hypotheses "
                               f"({rational_str(moved[name])})"))
    return out


def search(st, *, seed: int = 0, budget: int = 24, progress=None) -> SearchResult:
    """:data:`~.instances.STRUCTURED` structured candidates, then ``budget`` random ones, each with
    its boundary moves, decided exactly; Violated with the first violation (witness: the instance's
    exact JSON) or Inconclusive with the tightest decided instance."""
    interp = interpreter_for(st)
    rl, reals = roles(st), _bounded_reals(st)
    return search_instances(st, lambda index: _candidates(st, seed, index, interp, rl, reals),
                            count=STRUCTURED + int(budget),
                            decide=lambda env, index, how: decide(st, env, interp, index=index, description=how),
                            seed=seed, budget=budget, schema=WITNESS_SCHEMA, progress=progress)


def verdict(st, records, *, seed: int, budget: int):
    """The search's verdict of ``records`` (the model's search and the search by optimisation
    alike): the first violation, witness the instance's exact JSON, or the tightest instance."""
    return search_verdict(st, records, seed, budget, schema=WITNESS_SCHEMA)


def recheck(st, witness: dict):
    """Re-decide ``st`` exactly on a witness's instance (``witness["instance"]``: the exact JSON of
    every bound name). Raises :class:`~pyfed.errors.InputError` naming ``instance`` for a record
    that does not describe the statement's parameters."""
    spec = witness.get("instance", witness)
    if not isinstance(spec, dict):
        raise RecheckError("instance", "expected the instance's values as a JSON object")
    missing = [p.name for p in st.parameters if p.name not in spec]
    if missing:
        raise RecheckError("instance", f"no value for {', '.join(missing)} (the statement's parameters: "
                                     f"{', '.join(p.name for p in st.parameters)})")
    return decide(st, fam.env_from_spec(spec), description="recorded instance")
