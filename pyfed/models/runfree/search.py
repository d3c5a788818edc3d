"""Adversarial search of a run-free statement: instances drawn inside its hypotheses
(:mod:`.lemma_instances`), each decided exactly by the interpreter
(:mod:`pyfed.statements.interpret`), a witness that re-checks exactly when one violates it.

Beyond the structured and random draws, each candidate is refined where the statement is
tight: its real parameters moved to the boundary of what the hypotheses admit (solved exactly),
and, for statements over sequences ``ℕ → ℝ`` whose hypotheses and conclusion are linear in the
sequences' values (recursions such as Stich's averaging lemma), the worst sequences for the drawn
scalars found by a linear program, rounded to rationals and re-decided exactly (moved toward a
strictly feasible point until every hypothesis holds exactly). Every candidate is a pure
function of ``(seed, index)``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import sympy

from ...checkers import families as fam
from ...engines.search.space import bisect
from ...engines.statement.lean_search import (
    InstanceRecord,
    candidate_steps,
    decide_instance,
    interpreter_for,
    search_instances,
    search_verdict,
)
from ...engines.statement.search import SearchResult
from ...errors import InputError
from ...exact import rational_str
from ...statements.elaboration import resolved
from ...statements.evaluate import EvaluationError, Undecided, to_exact
from ...statements.interpret import NotFinite, Structural
from .hypotheses import decide_hypothesis, last_member_roots, tighten
from .instances import (
    DIM_CAP,
    STRUCTURED,
    Unevaluable,
    _Retry,
    _value,
    draw,
    from_spec_env,
    spectral_hints,
    to_spec_env,
)
from .plan import plan
from .refine import lp_worst, worst_points

__all__ = ["LemmaRecord", "search_lemma", "decide_lemma_instance", "recheck_lemma", "lemma_verdict",
           "LEMMA_WITNESS_SCHEMA"]

#: Version tag of a lemma witness (the instance's values as exact JSON specs).
LEMMA_WITNESS_SCHEMA = "pyfed.lemma-instance/1"


#: One decided candidate (:class:`pyfed.engines.statement.lean_search.InstanceRecord`).
LemmaRecord = InstanceRecord


def largest_candidate_steps(st) -> int | None:
    """:func:`candidate_steps` at the largest naturals the draws reach (dimensions up to
    ``DIM_CAP``, other naturals up to 100), or None for a statement the search cannot plan."""
    try:
        pl = plan(st)
    except (InputError, NotFinite, Structural, EvaluationError):
        return None
    env = {n: DIM_CAP if n in pl.dims else 100 for n, t in pl.types.items() if getattr(t, "kind", "") == "nat"}
    return candidate_steps(st, env, interpreter_for(st))


def decide_lemma_instance(st, env, interp=None, *, index=0, description="") -> LemmaRecord:
    """Decide ``st`` exactly on the instance ``env`` (name -> value), its hypotheses by
    :func:`.hypotheses.decide_hypothesis` (:func:`pyfed.engines.statement.lean_search.decide_instance`)."""
    return decide_instance(st, env, interp, encode=to_spec_env, hypothesis=decide_hypothesis, index=index,
                           description=description)


def _candidates(st, pl, seed, index, interp):
    """The instances of candidate ``index``: the draw, then its refinements (boundary values of the
    real parameters, the linear program's worst sequences)."""
    try:
        drawn = draw(st, pl, seed, index, interp)
    except Unevaluable as exc:
        return [(None, str(exc))]
    if drawn is None:
        return []
    out = [(drawn.env, drawn.description)]
    reals = [n for n in pl.order if getattr(pl.types[n], "kind", "") == "real" and n not in pl.defined]
    fixed = _repair(st, pl, dict(drawn.env), reals, seed, index, interp)
    if fixed is not None and fixed is not drawn.env:
        out.insert(0, (fixed, f"{drawn.description}, real parameters moved to the boundary of their hypotheses"))
        drawn = type(drawn)(fixed, out[0][1])
    for name in reals:
        for v in tighten(st, pl, drawn.env, name, interp, st.hypotheses)[:3]:
            env = dict(drawn.env)
            env[name] = v
            env = _redefine(st, pl, env, seed, index, interp)
            if env is not None:
                out.append((env, f"{drawn.description}, {name} at a hypothesis boundary ({rational_str(v)})"))
    for name in _real_families(pl):
        env = _solve_last_member(st, pl, drawn.env, name, seed, index, interp)
        if env is not None:
            out.append((env, f"{drawn.description}, the last value of {name} solved from its hypotheses"))
    vecs = [n for n in pl.order if getattr(pl.types[n], "kind", "") == "vec" and n not in pl.defined
            and n not in pl.minimizers and n not in pl.members]
    if vecs:
        worst = worst_points(st, pl, drawn.env, vecs, interp)
        if worst is not None:
            out.append((worst, f"{drawn.description}, points where the inequality is worst (exact)"))
    seqs = [n for n in pl.order if _is_sequence(pl.types[n]) and not _passed_to_definition(st, n)]
    if seqs:
        env, how = out[0]
        lp = lp_worst(st, pl, env, seqs, interp)
        if lp is not None:
            out.append((lp, f"{how}, worst sequences of a linear program"))
    return out


def _passed_to_definition(st, name) -> bool:
    """``name`` is an argument of a model definition somewhere in ``st`` (``localSGD grads η …``):
    the definition's values are not linear in it, so the linear program does not apply."""
    nodes = [h.node for h in st.hypotheses] + [st.conclusion]
    for root in nodes:
        for n in root.walk():
            if n.kind == "app" and getattr(n, "ref", (None,))[0] == "decl" and any(
                    a.kind == "ident" and a.value == name for a in n.args[1:]):
                return True
    return False


def _real_families(pl) -> list:
    """The drawn families ``Fin n → ℝ`` (weights, scalars per client) of the plan."""
    return [n for n in pl.order if n not in pl.defined and n not in pl.members and getattr(pl.types[n], "kind", "") == "fun"
            and [getattr(a, "kind", "") for a in pl.types[n].args] == ["fin", "real"]]


def _solve_last_member(st, pl, env, name, seed, index, interp):
    """``env`` with the last value of the family ``name`` solved exactly from an equation among its
    failing hypotheses (:func:`.lemma_hypotheses.last_member_roots`), when every hypothesis then
    holds; else None (weights that sum to 1 are rarely drawn for n > 1)."""
    vals = list(getattr(env.get(name), "values", None) or [])
    for r in last_member_roots(env, name, interp, _failing(st, env, interp)):
        new = dict(env)
        new[name] = fam.fin_family(vals[:-1] + [r])
        new = _redefine(st, pl, new, seed, index, interp)
        if new is not None and not _failing(st, new, interp):
            return new
    return None


def _failing(st, env, interp) -> list:
    out = []
    for h in st.hypotheses:
        try:
            if not decide_hypothesis(h, env, interp):
                out.append(h)
        except (Structural, EvaluationError, Undecided, NotFinite, ZeroDivisionError):
            out.append(h)
    return out


def _repair(st, pl, env, reals, seed, index, interp, rounds: int = 6):
    seqs = {n for n in pl.order if _is_sequence(pl.types[n])}
    return _repair_steps(st, pl, env, reals, seed, index, interp, rounds, seqs)


def _repair_steps(st, pl, env, reals, seed, index, interp, rounds, seqs):
    """Move real parameters, one at a time, to the boundary of the failing hypotheses that mention
    them (exact roots of a comparison; for a quantified hypothesis over points, the boundary found
    by exact bisection), so that the instance satisfies every hypothesis *tightly*; None when it
    cannot be repaired this way. The names the hypotheses define are recomputed after each move."""
    seen = set()
    for _ in range(rounds):
        failing = [h for h in _failing(st, env, interp)
                   if not (seqs and any(n.kind == "ident" and n.value in seqs for n in h.node.walk()))]
        if not failing:
            return env
        before = {h.key for h in failing}
        step = None
        for h in failing:
            if seqs and any(n.kind == "ident" and n.value in seqs for n in h.node.walk()):
                continue        # the sequences' own hypotheses: the linear program meets them
            for name in reals:
                if name in seen or not any(n.kind == "ident" and n.value == name for n in h.node.walk()):
                    continue            # each parameter moves once: the later repairs must not undo it
                for v in _boundaries(st, pl, env, name, h, interp):
                    trial = dict(env)
                    trial[name] = v
                    trial = _redefine(st, pl, trial, seed, index, interp)
                    if trial is None:
                        continue
                    after = {x.key for x in _failing(st, trial, interp)}
                    # progress: this hypothesis now holds and no more fail than before (a constant
                    # that moves may break another one, repaired next, e.g. L then η <= 1/(4L))
                    if h.key not in after and len(after) <= len(before):
                        seen.add(name)
                        step = trial
                        break
                if step is not None:
                    break
            if step is not None:
                break
        if step is None:
            return None
        env = step
    return env if not [h for h in _failing(st, env, interp)
                       if not (seqs and any(n.kind == "ident" and n.value in seqs for n in h.node.walk()))] else None


def _boundaries(st, pl, env, name, h, interp) -> list:
    """Boundary values of ``name`` for hypothesis ``h``: exact roots of a comparison, else the
    boundary of the admissible set found by bisection with exact decisions (both sides of it)."""
    roots = tighten(st, pl, env, name, interp, [h])
    if roots:
        return roots

    def ok(v):
        try:
            return decide_hypothesis(h, {**env, name: v}, interp)
        except (Structural, EvaluationError, Undecided, NotFinite, ZeroDivisionError):
            return False
    hints = [v for v in spectral_hints(env) if ok(v)]
    if hints:
        return hints
    grid = [Fraction(2) ** k for k in range(-6, 7)]
    grid = sorted(set(grid + [-g for g in grid] + [Fraction(0)]))
    vals = [(g, ok(g)) for g in grid]
    out = []
    for (a, oa), (b, ob) in zip(vals, vals[1:]):
        if oa != ob:
            lo, hi = (a, b) if oa else (b, a)          # lo admissible
            out.append(bisect(ok, lo, hi, 24)[0])
    return out


def _redefine(st, pl, env, seed, index, interp):
    """Recompute the names that hypotheses define after a parameter moved."""
    if not pl.defined and not pl.members:
        return env
    rng = np.random.default_rng([int(seed), int(index), 1])
    try:
        for name in pl.order:
            if name in pl.defined or name in pl.members:
                env[name] = _value(st, pl, name, env, rng, None, 0, interp)
    except (_Retry, EvaluationError, NotFinite, Structural, Undecided, ZeroDivisionError):
        return None
    return env


def _is_sequence(t) -> bool:
    t = resolved(t)
    return getattr(t, "kind", "") == "fun" and getattr(resolved(t.args[0]), "kind", "") == "nat" and \
        getattr(resolved(t.args[1]), "kind", "") == "real"


def search_lemma(st, *, seed: int = 0, budget: int = 24, progress=None) -> SearchResult:
    """Structured candidates, then ``budget`` random ones, each with its refinements, decided
    exactly; the verdict is Violated (witness: the first violation in index order, exact JSON) or
    Inconclusive (no counterexample among the decided instances, with the tightest one)."""
    pl = plan(st)
    interp = interpreter_for(st)
    return search_instances(st, lambda index: _candidates(st, pl, seed, index, interp), count=STRUCTURED + int(budget),
                            decide=lambda env, index, how: decide_lemma_instance(st, env, interp, index=index,
                                                                                 description=how),
                            seed=seed, budget=budget, schema=LEMMA_WITNESS_SCHEMA, progress=progress)


def _s(v):
    v = to_exact(v)
    return rational_str(v) if isinstance(v, Fraction) else str(v)


def _num(v):
    v = to_exact(v)
    if isinstance(v, sympy.Basic):
        import mpmath
        return mpmath.mpf(str(sympy.N(v, 50)))
    return v


def lemma_verdict(st, records, seed, budget):
    """The run-free search's verdict of ``records`` (:func:`pyfed.engines.statement.lean_search.search_verdict`
    with the lemma witness schema): the first violation, or the tightest instance."""
    return search_verdict(st, records, seed, budget, schema=LEMMA_WITNESS_SCHEMA)


def recheck_lemma(st, witness: dict):
    """Re-decide ``st`` exactly on a witness's instance: a :class:`LemmaRecord`."""
    spec = witness.get("instance", witness)
    env = from_spec_env(spec)
    return decide_lemma_instance(st, env)


# --------------------------------------------------------------------------- worst points

def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True)
