"""The FedAvg run model: theorems about the Field Guide's full-participation ``FedAvg.Run P μ τ T
η`` (Wang et al., *A Field Guide to Federated Optimization*, Section 6.1.2), behind the model
protocol (:mod:`pyfed.models.protocol`).

Its statements are read by :mod:`.reader` (terms in :mod:`.terms`, :mod:`.random_terms`, the
model's vocabulary in :mod:`.vocabulary`); decided exactly on rational quadratic clients sharing
one Hessian and on deterministic non-quadratic clients (:mod:`.exact`), by Monte Carlo on real
data (:mod:`.montecarlo`) and by the adversarial search over the families of :mod:`.families`
(:mod:`.search`); pyfed's own statements live in ``lean/Pyfed/FedAvg/Theorems.lean`` and make the
default report's FedAvg rows.
"""

from __future__ import annotations

from pathlib import Path

from ...export import render_values_counterexample
from ...lean.paths import source_lean_dir
from ...lean.render import render_counterexample
from ...lean.templating import sanitize
from ...statements.reader import read_text
from ...suites.fedavg import fedavg_suite
from ..protocol import BuiltinRows, Model
from .builtin import applicable_fedavg_engines, default_fedavg_rows, run_builtin
from .families import family_formula
from .proof import PUBLISHED, proof_form
from .reader import FedAvgRunStatement, statements_from
from .search import fedavg_verdict, lean_record, recheck_witness, search
from .space import evaluate_point, fedavg_space

__all__ = ["FedAvgRunModel", "MODEL", "theorems_path", "our_statements"]


def theorems_path(lean_dir=None) -> Path:
    """Path of ``Pyfed/FedAvg/Theorems.lean`` under ``lean_dir`` (default: pyfed's own Lean
    sources, :func:`pyfed.lean.paths.source_lean_dir`)."""
    return Path(source_lean_dir() if lean_dir is None else lean_dir) / "Pyfed" / "FedAvg" / "Theorems.lean"


def our_statements(lean_dir=None) -> list:
    """The statements of pyfed's ``lean/Pyfed/FedAvg/Theorems.lean`` in file order (what the
    default report checks is what that file states); their ``source`` is
    ``lean/Pyfed/FedAvg/Theorems.lean:line``."""
    path = theorems_path(lean_dir)
    return read_text(path.read_text(encoding="utf-8"), "lean/Pyfed/FedAvg/Theorems.lean", models=[MODEL])


class FedAvgRunModel(Model):
    """Theorems about a FedAvg ``Run`` (see the module docstring)."""

    tag = "fedavg_run"
    family = "FedAvg run"
    statement_class = FedAvgRunStatement

    def claims(self, source) -> bool:
        return "FedAvg" in source.run_namespaces

    def read(self, source) -> list:
        return statements_from(*source.args())

    def default_rows(self, *, quick, seed, replicates, progress=None) -> list:
        """Every statement of ``lean/Pyfed/FedAvg/Theorems.lean`` on the built-in FedAvg instances
        (:func:`.builtin.default_fedavg_rows`)."""
        return default_fedavg_rows(our_statements(), quick=quick, seed=seed, replicates=replicates,
                                   progress=progress)

    def builtin_applies(self, st):
        return None

    def builtin_rows(self, st, ctx) -> BuiltinRows:
        """The default report's FedAvg instances (:mod:`pyfed.suites.fedavg`): exact on the
        rational quadratic instance, Monte Carlo on real data."""
        rows = BuiltinRows()
        for inst in fedavg_suite(quick=ctx.quick, seed=ctx.seed):
            ctx.tell(f"{st.name}: {inst.name}")
            rows.verdicts.append(run_builtin(st, inst, replicates=ctx.replicates, seed=ctx.seed))
        return rows

    def search_applies(self, st):
        return None

    def search(self, st, *, seed=0, budget=24, progress=None, pool=None):
        res = search(st, seed=seed, budget=budget, progress=progress)
        res.tried = int((res.verdict.details or {}).get("candidates", 0))
        return res

    # the search by optimisation (the protocol's hooks, with the same signatures)
    search_space = staticmethod(fedavg_space)
    evaluate_point = staticmethod(evaluate_point)
    search_verdict = staticmethod(fedavg_verdict)

    def recheck(self, st, witness):
        return recheck_witness(st, witness)

    def applicable(self, st) -> dict:
        return applicable_fedavg_engines(st)

    def witness_fields(self, st, verdict) -> dict:
        balls = getattr(verdict, "balls", None) or {}
        decided = ("the statement's terms evaluated in certified ball arithmetic (python-flint arb)"
                   if balls and (verdict.details or {}).get("lhs_exact") is None else
                   "pyfed.models.fedavg.exact (the statement's terms evaluated in exact arithmetic)")
        return {"decided_by": decided, "clients": family_formula((verdict.witness or {}).get("instance") or {})}

    def counterexample_lean(self, st, verdict, record, *, relax=()):
        """The FedAvg counterexample file (:func:`pyfed.lean.render.render_counterexample`): the
        instance's scalars and both sides; written for a relaxed search too, where the file says
        that it is no counterexample to the theorem itself."""
        lean = lean_record(st, verdict, lean_name=st.qualified_name, relax=relax)
        if lean is None:
            return None
        if record.get("generated_by"):
            lean["generated_by"] = record["generated_by"]
        # named as a SCAFFOLD record's file is
        lean["id"] = f"{record['statement']}_s{record['seed']}_c{record.get('index', 0)}"
        lean["namespace"] = f"PyfedCounterexample.{sanitize(lean['id'])}"
        return render_counterexample(lean)

    # ------------------------------------------------------------------ proofs of holds
    published = PUBLISHED

    def scalar_reading(self, st):
        return proof_form(st)

    def render_counterexample(self, record):
        return render_values_counterexample(record)


#: The FedAvg run model (its statements' ``model``).
MODEL = FedAvgRunModel()
FedAvgRunStatement.model = MODEL
