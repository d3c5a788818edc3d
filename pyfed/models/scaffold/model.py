"""The SCAFFOLD run model: theorems about the seed-000 ``Run P ν S K T ηl ηg init`` (Karimireddy et
al. 2020, Algorithm 1 option II in the form of Appendix E), behind the model protocol
(:mod:`pyfed.models.protocol`).

Its statements are read by :mod:`.reader`; decided exactly on rational quadratic clients
(:mod:`.exact`, exact moments), by Monte Carlo on real data (:mod:`.montecarlo`), over the whole
function class (:mod:`.pep`), by the adversarial search (:mod:`.candidates`, :mod:`.search`) and
profiled constant by constant (:mod:`.profile`); pyfed's own statements live in
``lean/Pyfed/Scaffold/Theorems.lean`` and make the default report's SCAFFOLD rows.
"""

from __future__ import annotations

from ...errors import InputError
from ...export import is_reverified_pep_violation, pep_counterexample_record
from ...suites.scaffold import CONVEX, default_suite
from ..protocol import BuiltinRows, Model, NoPEPRow, RecheckError
from .access import NotLinear, linear_form
from .builtin import fit_instance_step, run_instance, to_run_instance
from .candidates import candidate
from .conformance import implementation_rows
from .exact import decide_exact
from .export import render_run_counterexample
from .hypotheses import fits
from .instance import instance_from_json
from .ours import our_statements, statement_of, theorems_path
from .pep import NoPEP, find_plan, pep_row
from .profile import constant_profile, profile_size
from .proof import PUBLISHED, proof_form
from .reader import ScaffoldRunStatement, statements_from
from .search import scaffold_verdict, search
from .space import evaluate_point, scaffold_space
from .two_sided import TwoSidedProfile

__all__ = ["ScaffoldRunModel", "MODEL", "our_statements", "theorems_path", "statement_of"]


class ScaffoldRunModel(Model):
    """Theorems about a SCAFFOLD ``Run`` (see the module docstring)."""

    tag = "scaffold_run"
    family = "SCAFFOLD run"
    statement_class = ScaffoldRunStatement

    # ------------------------------------------------------------------ reading
    def claims(self, source) -> bool:
        # a `Run` no namespace in scope resolves is read here too: this reader names what is missing
        return "SCAFFOLD" in source.run_namespaces or "" in source.run_namespaces

    def read(self, source) -> list:
        return statements_from(*source.args())

    # ------------------------------------------------------------------ the default report
    def default_rows(self, *, quick, seed, replicates, progress=None) -> list:
        """The built-in SCAFFOLD instances (:func:`pyfed.suites.scaffold.default_suite`) against
        the statements of ``lean/Pyfed/Scaffold/Theorems.lean``, then one PEP worst-case row of
        the convex theorem over the whole function class (σ = 0, S = N)."""
        out = []
        for inst in default_suite(quick=quick, seed=seed):
            if progress:
                progress(inst.name)
            st = statement_of(inst.theorem)
            v = run_instance(inst, replicates=replicates, seed=seed, statement=st)
            v.details.setdefault("source", st.source)
            out.append(v)
        if progress:
            progress("PEP worst case (ConvexFiniteRoundConvergence, N=2 K=2 T=2)")
        st = statement_of(CONVEX)
        v = pep_row(st)
        v.details.setdefault("source", st.source)
        out.append(v)
        return out

    # ------------------------------------------------------------------ engines
    def builtin_applies(self, st):
        return None

    def builtin_rows(self, st, ctx) -> BuiltinRows:
        """The default suite's instances that fit the statement: exact moments on the rational
        quadratic one, Monte Carlo on real data; each instance's local step is halved exactly
        when the statement's step-size hypothesis is tighter than its step."""
        rows = BuiltinRows()
        for inst in default_suite(quick=ctx.quick, seed=ctx.seed):
            why = fits(st, to_run_instance(inst))
            if why is not None:
                if not why.startswith("the statement's initialisation"):   # the other family's instance: expected
                    rows.skipped.append((inst.name, why))
                continue
            ctx.tell(f"{st.name}: {inst.name}")
            inst, reduced = fit_instance_step(st, inst)
            v = run_instance(inst, replicates=ctx.replicates, seed=ctx.seed, statement=st)
            if reduced:
                v.details = dict(v.details or {}, step_reduced=reduced)
            rows.verdicts.append(v)
        return rows

    def search_applies(self, st):
        return None

    def search(self, st, *, seed=0, budget=24, progress=None, pool=None):
        res = search(st, seed=seed, budget=budget, progress=progress, pool=pool)
        res.tried = int((res.verdict.details or {}).get("candidates", 0))
        return res

    def search_pool(self, st) -> bool:
        return True

    # the search by optimisation (the protocol's hooks, with the same signatures)
    search_space = staticmethod(scaffold_space)
    evaluate_point = staticmethod(evaluate_point)
    search_verdict = staticmethod(scaffold_verdict)

    def recheck(self, st, witness):
        """The witness's instance read back (:class:`RecheckError` naming the field that does not
        read), checked to fit the statement, and decided by exact moments."""
        try:
            inst = instance_from_json(witness["instance"] if "instance" in witness else witness)
        except InputError as exc:
            field = exc.argument if exc.argument.startswith("instance") else "instance"
            raise RecheckError(field, exc.reason) from None
        why = fits(st, inst)
        if why:
            raise RecheckError("instance", f"does not fit {st.qualified_name}: {why}")
        try:
            return decide_exact(st, inst, arithmetic="exact")
        except InputError as exc:
            raise RecheckError("instance", f"cannot be decided: {exc.reason}") from None

    def recheck_method(self, verdict) -> str:
        return "exact moments, exact arithmetic"

    def pep_applies(self, st):
        return None

    def pep_row(self, st, *, quick=False):
        try:
            return pep_row(st), 1
        except NoPEP as exc:
            raise NoPEPRow(str(exc), tried=int(exc.tried)) from None

    def profiles(self, st):
        return None

    def constant_profile(self, st, *, seed, budget, pool=None, progress=None):
        return constant_profile(st, seed=seed, budget=budget, pool=pool, progress=progress)

    def profile_size(self, st, budget):
        return profile_size(st, budget)

    def two_sided_profile(self, st):
        return TwoSidedProfile(st)

    def applicable(self, st) -> dict:
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
            plan = find_plan(st)
            regime = ("sigma = 0" if plan["sigma"] == 0 else "sigma > 0 (expectation relaxation)") + \
                (", S = N" if plan["S"] == plan["N"]
                 else f", S = {plan['S']} < N = {plan['N']} (average over subset sequences)")
            out["pep"] = (True, f"the hypotheses admit {regime} and the right side is a * ||x0 - x*||^2 + g * C0"
                                + (" + r * sigma^2" if plan["sigma"] else ""))
        except NoPEP as exc:
            out["pep"] = (False, str(exc))
        return out

    # ------------------------------------------------------------------ implementations
    implementation_algorithms = ("scaffold",)

    def implementation_rows(self, run, names=None, *, replicates, seed, confidence=0.999):
        return implementation_rows(our_statements(), run, names, replicates=replicates, seed=seed,
                                   confidence=confidence)

    # ------------------------------------------------------------------ witnesses
    def witness_fields(self, st, verdict) -> dict:
        return {"decided_by": "pyfed.models.scaffold.exact.decide_exact (exact moments, exact rationals)"}

    def render_counterexample(self, record):
        return render_run_counterexample(record)

    # ------------------------------------------------------------------ proofs of holds
    published = PUBLISHED

    def scalar_reading(self, st):
        return proof_form(st)

    def reverified_pep_record(self, st, verdict, *, seed, budget):
        if not is_reverified_pep_violation(verdict):
            return None
        return pep_counterexample_record(st, verdict, seed=seed, budget=budget)


#: The SCAFFOLD run model (its statements' ``model``).
MODEL = ScaffoldRunModel()
ScaffoldRunStatement.model = MODEL
