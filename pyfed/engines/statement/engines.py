"""The engines of a statement, one call shape each, and which of them apply.

Every engine has a ``name``, ``applies(statement) -> reason | None`` (None: it applies; else the
reason why not, in words a user can act on) and ``decide(statement, context) -> list[Verdict]``.
:data:`ENGINES` lists them in the order ``pyfed check`` runs them; :func:`engines_for` gives the
ones that apply to a statement with the reasons of the others.

Engines never print. What an engine finds beyond its verdicts (the search's records, the
constant profile, the built-in instances that could not bind the statement, written
counterexample files) goes into ``context.record`` under the engine's keys, for the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .access import NotLinear, linear_form
from .candidates import candidate
from .fedavg_engines import FedAvgBuiltin, applicable_fedavg_engines, fedavg_shape
from .pep import NoPEP, find_plan

__all__ = ["Context", "ENGINES", "engines_for", "applicable_engines", "BuiltinInstances", "ShapeSearch",
           "AdversarialSearch", "PEPRow", "ConstantProfile", "LemmaSearch", "LemmaPEPRow", "FedAvgSearch", "SEARCHERS", "search_statement", "RECHECKERS",
           "recheck_statement", "profile_applies"]


@dataclass
class Context:
    """What one ``pyfed check`` run asks of the engines.

    quick : bool (smaller sizes and budgets); seed : int (every random draw derives from it);
    replicates : int (Monte Carlo replicates); budget : int (random draws of the search);
    profile : bool (run the constant profile); pool : a :class:`pyfed.parallel.Pool` or None
    (serial); progress : callable(label) or None; out : directory for counterexample files or
    None; record : what engines leave for the report (see the module docstring).
    """

    quick: bool = False
    seed: int = 0
    replicates: int = 256
    budget: int = 24
    profile: bool = True
    pool: object = None
    progress: object = None
    out: str | None = None
    record: dict = field(default_factory=dict)

    def tell(self, label: str) -> None:
        if self.progress:
            self.progress(label)


def _run_shape(st) -> str | None:
    shape = getattr(st, "shape", "scaffold_run")
    return None if shape == "scaffold_run" else f"the statement is a {getattr(st, 'family', shape)}, not about a SCAFFOLD run"


class BuiltinInstances:
    """The default suite's instances that fit the statement (:mod:`pyfed.suites.scaffold`): exact
    moments on the rational quadratic one, Monte Carlo on real data; each instance's local step is
    halved exactly when the statement's step-size hypothesis is tighter than its step."""

    name = "built-in instances"

    def applies(self, st):
        return _run_shape(st)

    def decide(self, st, ctx):
        from ...suites.scaffold import default_suite
        from .builtin import fit_instance_step, run_instance, to_run_instance
        from .hypotheses import fits

        verdicts, skipped = [], []
        for inst in default_suite(quick=ctx.quick, seed=ctx.seed):
            why = fits(st, to_run_instance(inst))
            if why is not None:
                if not why.startswith("the statement's initialisation"):   # the other family's instance: expected
                    skipped.append((inst.name, why))
                continue
            ctx.tell(f"{st.name}: {inst.name}")
            inst, reduced = fit_instance_step(st, inst)
            v = run_instance(inst, replicates=ctx.replicates, seed=ctx.seed, statement=st)
            if reduced:
                v.details = dict(v.details or {}, step_reduced=reduced)
            verdicts.append(v)
        ctx.record["skipped"] = skipped
        ctx.record["tried"] = ctx.record.get("tried", 0) + len(verdicts)
        return verdicts


class ShapeSearch:
    """The adversarial search of one statement shape (:data:`SEARCHERS`): instances drawn inside
    the statement's own hypotheses, structured edge cases first, each decided exactly. ``tried``
    counts what the report calls the instances tried."""

    name = "adversarial search"
    shape = ""

    def decide(self, st, ctx):
        ctx.tell(f"{st.name}: adversarial search")
        res = SEARCHERS[self.shape](st, seed=ctx.seed, budget=ctx.budget)
        ctx.record["search"] = res
        ctx.record["tried"] = ctx.record.get("tried", 0) + self.tried(res)
        return [res.verdict]

    def tried(self, res) -> int:
        return int((res.verdict.details or {}).get("candidates", 0))


class AdversarialSearch(ShapeSearch):
    """Rational quadratic instances of a SCAFFOLD run statement
    (:func:`pyfed.engines.statement.adversarial.search`)."""

    shape = "scaffold_run"

    def applies(self, st):
        return _run_shape(st)


class PEPRow:
    """The worst case over the whole function class where the hypotheses admit the deterministic
    regime, else σ > 0 (expectation relaxation) or S < N (average over subset sequences) at small
    sizes (:func:`pyfed.engines.statement.pep.pep_row`)."""

    name = "PEP"

    def applies(self, st):
        return _run_shape(st)

    def decide(self, st, ctx):
        from .pep import pep_row

        ctx.tell(f"{st.name}: PEP worst case")
        try:
            v = pep_row(st)
        except NoPEP as exc:
            ctx.record["pep_note"] = f"no PEP row: {exc}"
            ctx.record["tried"] = ctx.record.get("tried", 0) + int(exc.tried)
            return []
        ctx.record["tried"] = ctx.record.get("tried", 0) + 1
        return [v]


class ConstantProfile:
    """Each numeric constant of the right side and of the step-size hypotheses, varied on the
    search's instances (:func:`pyfed.engines.statement.profile.constant_profile`); no verdict of
    its own, the profile goes to ``context.record["profile"]``."""

    name = "constant profile"

    def applies(self, st):
        return _run_shape(st)

    def decide(self, st, ctx):
        from .profile import constant_profile

        if not ctx.profile:
            return []
        ctx.tell(f"{st.name}: constant profile")
        ctx.record["profile"] = constant_profile(st, seed=ctx.seed, budget=ctx.budget, pool=ctx.pool)
        return []


def profile_applies(st) -> bool:
    """Whether :class:`ConstantProfile` profiles ``st`` (front ends that run the profile on their
    own pool ask here)."""
    return ConstantProfile().applies(st) is None


class LemmaSearch(ShapeSearch):
    """Run-free statements (vectors, sequences, function classes, finite probability spaces, the
    model's procedures), decided by the interpreter
    (:func:`pyfed.engines.statement.lemma_search.search_lemma`)."""

    name = "adversarial search (run-free)"
    shape = "lemma"

    def applies(self, st):
        shape = getattr(st, "shape", "scaffold_run")
        return None if shape == "lemma" else f"the statement is a {getattr(st, 'family', shape)}"

    def tried(self, res) -> int:
        return len(res.records)


class LemmaPEPRow:
    """Run-free statements over a function class (smooth convex functions, a Problem's clients):
    the claim decided as a PEP with an exact certificate at rational parameter values
    (:func:`pyfed.engines.statement.lemma_pep.lemma_pep_row`)."""

    name = "PEP (run-free)"

    def applies(self, st):
        shape = getattr(st, "shape", "scaffold_run")
        if shape != "lemma":
            return f"the statement is a {getattr(st, 'family', shape)}"
        from .lemma_pep import lemma_pep_applies
        return lemma_pep_applies(st)

    def decide(self, st, ctx):
        from .lemma_pep import NoLemmaPEP, lemma_pep_row

        ctx.tell(f"{st.name}: PEP over the class")
        try:
            v = lemma_pep_row(st, quick=ctx.quick)
        except NoLemmaPEP as exc:
            ctx.record["pep_note"] = f"no PEP row: {exc}"
            return []
        ctx.record["tried"] = ctx.record.get("tried", 0) + len(v.details.get("cases", []))
        return [v]


class FedAvgSearch(ShapeSearch):
    """Structured edge cases and random instances of :mod:`.fedavg_families` of a FedAvg run
    statement (:func:`pyfed.engines.statement.fedavg_search.search`)."""

    shape = "fedavg_run"

    def applies(self, st):
        return fedavg_shape(st)


#: Every engine, in the order ``pyfed check`` runs them (each says whether it applies).
ENGINES = [BuiltinInstances(), AdversarialSearch(), PEPRow(), ConstantProfile(), LemmaSearch(), LemmaPEPRow(),
           FedAvgBuiltin(), FedAvgSearch()]


def engines_for(st) -> tuple:
    """``(engines that apply, {engine name: reason it does not})`` for ``st``."""
    use, skip = [], {}
    for eng in ENGINES:
        why = eng.applies(st)
        if why is None:
            use.append(eng)
        else:
            skip[eng.name] = why
    return use, skip


def applicable_engines(st) -> dict:
    """Which evidence ``st`` can get and why not: ``{kind: (applies, reason)}`` for ``exact``,
    ``montecarlo``, ``pep`` and ``search`` (the left side's linearity is checked on the search's
    first structured instance; the PEP by :func:`pyfed.engines.statement.pep.find_plan`)."""
    if getattr(st, "shape", "") == "fedavg_run":
        return applicable_fedavg_engines(st)
    if _run_shape(st) is not None:
        why = _run_shape(st)
        out = {k: (False, why) for k in ("exact", "montecarlo", "pep", "search")}
        if getattr(st, "shape", "") == "lemma":
            why_pep = LemmaPEPRow().applies(st)
            out["pep"] = (why_pep is None, why_pep or "the class's PEP at rational parameter values, with an exact "
                                                     "certificate")
        return out
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
            (", S = N" if plan["S"] == plan["N"] else f", S = {plan['S']} < N = {plan['N']} (average over subset sequences)")
        out["pep"] = (True, f"the hypotheses admit {regime} and the right side is a * ||x0 - x*||^2 + g * C0"
                            + (" + r * sigma^2" if plan["sigma"] else ""))
    except NoPEP as exc:
        out["pep"] = (False, str(exc))
    return out


def _search_run(st, *, seed, budget, progress=None, pool=None):
    from .adversarial import search
    return search(st, seed=seed, budget=budget, progress=progress, pool=pool)


def _search_lemma(st, *, seed, budget, progress=None, pool=None):
    from .lemma_search import search_lemma
    return search_lemma(st, seed=seed, budget=budget, progress=progress)


def _search_fedavg(st, *, seed, budget, progress=None, pool=None):
    from .fedavg_search import search
    return search(st, seed=seed, budget=budget, progress=progress)


#: The adversarial search of each statement shape: ``fn(st, seed=, budget=, progress=, pool=)``
#: returning an object with ``records`` and ``verdict``.
SEARCHERS = {"scaffold_run": _search_run, "lemma": _search_lemma, "fedavg_run": _search_fedavg}


def search_statement(st, *, seed: int = 0, budget: int = 24, progress=None, pool=None):
    """The adversarial search of ``st`` by its shape (:data:`SEARCHERS`); InputError for a shape
    without one."""
    from ...errors import InputError
    shape = getattr(st, "shape", "scaffold_run")
    if shape not in SEARCHERS:
        raise InputError("statement", f"no adversarial search for a {getattr(st, 'family', shape)} yet")
    return SEARCHERS[shape](st, seed=seed, budget=budget, progress=progress, pool=pool)


def _recheck_run(st, witness):
    from .exact import recheck
    return recheck(st, witness)


def _recheck_lemma(st, witness):
    from .lemma_search import recheck_lemma
    return recheck_lemma(st, witness)


#: The exact re-decision of a witness of each statement shape: ``fn(st, witness)`` with
#: ``witness["instance"]`` the instance's exact JSON; returns an object with ``status``, ``lhs``,
#: ``rhs`` (and ``reason`` when undecided).
def _recheck_fedavg(st, witness):
    from .fedavg_search import recheck_witness
    return recheck_witness(st, witness)


RECHECKERS = {"scaffold_run": _recheck_run, "lemma": _recheck_lemma, "fedavg_run": _recheck_fedavg}


def recheck_statement(st, witness: dict):
    """Re-decide ``witness`` on ``st`` exactly by the statement's shape (:data:`RECHECKERS`);
    InputError for a shape without one."""
    from ...errors import InputError
    shape = getattr(st, "shape", "scaffold_run")
    if shape not in RECHECKERS:
        raise InputError("statement", f"no exact re-check for a {getattr(st, 'family', shape)} yet")
    return RECHECKERS[shape](st, witness)
