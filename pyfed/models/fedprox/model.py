"""The FedProx model: theorems about FedProx as a procedure (``FedProxProcedure`` of
``lean/Pyfed/Algorithms/FedProx.lean``; Li et al., MLSys 2020, Algorithm 2) behind the model
protocol (:mod:`pyfed.models.protocol`).

A theorem is this model's when its terms use the procedure's definitions (:func:`.reader.claims`);
it is read into a :class:`~.reader.FedProxStatement` by the general statement builder, its
instances are FedProx's (:mod:`.instances`: rational quadratic clients with exact affine oracles,
steps, μ ≥ 0, K, S of N, sampled sets, starts, drawn inside the hypotheses), each decided exactly
by the one interpreter of Lean terms (:mod:`.search`); a violation is a witness that re-checks
exactly (``pyfed check --replay``) and a Lean counterexample file (:mod:`.export`). The model comes
before the run-free model in the registry, which claims every theorem.
"""

from __future__ import annotations

from ...errors import InputError
from ..protocol import BuiltinRows, Model, RecheckError
from . import builtin, export, search
from .reader import FAMILY, FedProxStatement, claims, statements_from
from .space import evaluate_point, fedprox_space

__all__ = ["FedProxModel", "MODEL"]


class FedProxModel(Model):
    """FedProx procedure statements (see the module docstring)."""

    tag = "fedprox_procedure"
    family = FAMILY
    statement_class = FedProxStatement

    def claims(self, source) -> bool:
        return claims(source)

    def read(self, source) -> list:
        return statements_from(*source.args())

    def builtin_applies(self, st):
        return None

    def builtin_rows(self, st, ctx) -> BuiltinRows:
        verdicts, skipped = builtin.rows(st)
        return BuiltinRows(verdicts, skipped)

    def search_applies(self, st):
        return None

    def search(self, st, *, seed=0, budget=24, progress=None, pool=None):
        return search.search(st, seed=seed, budget=budget, progress=progress)

    search_space = staticmethod(fedprox_space)
    evaluate_point = staticmethod(evaluate_point)

    def search_verdict(self, st, records, *, seed, budget):
        return search.verdict(st, records, seed=seed, budget=budget)

    def recheck(self, st, witness):
        try:
            return search.recheck(st, witness)
        except RecheckError:
            raise
        except (InputError, KeyError, TypeError, ValueError) as exc:     # a malformed value in the record
            raise RecheckError("instance", f"a value cannot be read back exactly ({exc})") from None

    def recheck_method(self, verdict) -> str:
        return "the FedProx procedure evaluated from its Lean body in exact rationals on the recorded instance"

    def applicable(self, st) -> dict:
        why = f"the statement is a {st.family}: decided on FedProx instances by exact evaluation"
        out = {k: (False, why) for k in ("montecarlo", "pep")}
        out["exact"] = (True, "the built-in FedProx instances that bind the statement's parameters, decided exactly")
        out["search"] = (True, "quadratic clients with exact oracles, drawn inside the hypotheses, decided exactly")
        return out

    def witness_fields(self, st, verdict) -> dict:
        return {"decided_by": search.DECIDED_BY}

    def render_counterexample(self, record):
        return export.render(record)


#: The FedProx model (its statements' ``model``).
MODEL = FedProxModel()
FedProxStatement.model = MODEL
