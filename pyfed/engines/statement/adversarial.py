"""Adversarial search of a statement: every structured candidate, then ``budget`` random ones
(:mod:`.candidates`), each decided exactly (:func:`evaluate_candidate`, a pure function of
``(seed, index)``), so a parallel back end can map the indices and merge the records in index
order with byte-identical results (:func:`search`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from ...errors import InputError
from ...exact import as_float, rational_str
from ...statements.evaluate import EvaluationError, Undecided, arith, compare, decide_sign, to_exact
from ...verdicts import Evidence, Inconclusive, Violated, violation_wording
from .candidates import candidate, structured_count
from .exact import sides_exact
from .hypotheses import evaluate_hypotheses
from .instance import instance_to_json
from .constants import literals

__all__ = ["search", "evaluate_candidate", "Record", "SearchResult"]


@dataclass
class Record:
    """One decided (or rejected) candidate: ``status`` is ``holds``, ``violated``, ``outside``
    (a hypothesis fails), ``skipped`` or ``undecided``; exact ``lhs``/``rhs``; ``extra``
    carries constant-profile data."""

    index: int
    status: str
    description: str = ""
    instance: dict | None = None
    lhs: object = None
    rhs: object = None
    failing: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self):
        if self.lhs is None or self.rhs is None:
            return None
        try:
            if decide_sign(self.rhs) > 0:
                return as_float(to_exact(self.lhs)) / as_float(to_exact(self.rhs)) \
                    if not isinstance(self.rhs, sympy.Basic) else float(self.lhs / self.rhs)
        except Exception:
            return None
        return None


def evaluate_candidate(st, seed: int, index: int, *, relax=(), profile=None) -> Record:
    """Draw candidate ``index`` and decide it exactly (a pure function of its arguments).

    ``profile``: list of :class:`Literal` whose per-instance data to compute (thresholds)."""
    try:
        inst, desc = candidate(st, seed, index, relax=relax)
    except InputError as exc:
        return Record(index, "skipped", str(exc))
    if inst is None:
        return Record(index, "skipped", desc)
    hyps = evaluate_hypotheses(st, inst)
    failing = [h.key for h in hyps if not h.holds and h.key not in relax]
    rec = Record(index, "outside" if failing else "pending", desc, instance_to_json(inst), failing=failing)
    if failing:
        return rec
    try:
        lhs, rhs, val = sides_exact(st, inst)
        s = compare(lhs, rhs)
    except (EvaluationError, Undecided) as exc:
        rec.status = "undecided"
        rec.description += f" ({exc})"
        return rec
    holds = s >= 0 if st.relation == "≤" else s > 0
    rec.lhs, rec.rhs = lhs, rhs
    rec.status = "holds" if holds else "violated"
    for lit in profile or ():
        try:
            rec.extra[lit.key] = lit.instance_data(st, inst, val, lhs, rhs, holds)
        except (EvaluationError, Undecided, ZeroDivisionError, InputError) as exc:
            rec.extra[lit.key] = {"error": str(exc)}
        except (OverflowError, RecursionError) as exc:
            # sympy on gigantic exact numbers (e.g. factoring the integer under a square root of
            # a long-horizon value): this constant's threshold is not determined on this instance
            rec.extra[lit.key] = {"error": f"the threshold's closed form is too large to compute "
                                           f"({type(exc).__name__})"}
    return rec


@dataclass
class SearchResult:
    """Records of a search, in index order, and its verdict."""

    records: list
    verdict: object
    seed: int
    budget: int


def _task(st, task, rng=None) -> Record:
    """Worker side of :func:`search` / :func:`constant_profile`: ``task = (seed, index, relax,
    keys)`` decided by :func:`evaluate_candidate` with the profile literals whose keys are in
    ``keys`` (recomputed from ``st`` here: a literal refers to its syntax node by identity, which
    pickling to a worker does not keep across separately pickled objects). ``rng`` is unused
    (candidates draw from ``default_rng([seed, index])`` themselves)."""
    seed, index, relax, keys = task
    lits = [lit for lit in literals(st) if lit.key in keys] if keys else None
    return evaluate_candidate(st, seed, index, relax=tuple(relax), profile=lits)


def _map(st, tasks, pool, progress) -> list:
    """Records of ``tasks`` in task order, serially (``pool`` None) or through
    :meth:`pyfed.parallel.Pool.map`."""
    fn = functools.partial(_task, st)
    if pool is None:
        out = []
        for t in tasks:
            out.append(fn(t))
            if progress:
                progress(1)
        return out
    return pool.map(fn, tasks, progress=progress)


def search(st, *, seed: int = 0, budget: int = 24, relax=(), profile=None, progress=None,
           indices=None, pool=None) -> SearchResult:
    """Adversarial search: every structured candidate, then ``budget`` random ones, each decided
    exactly; returns the records and a verdict (Violated with the first violation in index
    order as an exactly re-checkable witness; otherwise Inconclusive: no counterexample among
    the decided instances, with the tightest one).

    ``profile``: :class:`Literal` s (of ``literals(st)``) whose per-instance data to compute;
    ``progress(k)``: called as k candidates finish; ``pool``: a :class:`pyfed.parallel.Pool`
    to evaluate the candidates on (None: serially here). The result does not depend on the pool.
    InputError naming ``statement`` for a statement that is not about a SCAFFOLD run (its
    search is :func:`pyfed.engines.statement.engines.search_statement`)."""
    if getattr(st, "shape", "scaffold_run") != "scaffold_run":
        from ...errors import InputError
        raise InputError("statement", f"{st.name} is a {st.family}, not about a SCAFFOLD run: search it with "
                                      "search_statement")
    n = structured_count(st)
    idx = list(indices) if indices is not None else list(range(n + int(budget)))
    keys = tuple(lit.key for lit in profile) if profile else ()
    records = _map(st, [(seed, i, tuple(relax), keys) for i in idx], pool, progress)
    return SearchResult(records, _verdict(st, records, seed, budget, relax), seed, budget)


def _verdict(st, records, seed, budget, relax):
    decided = [r for r in records if r.status in ("holds", "violated")]
    viol = [r for r in decided if r.status == "violated"]
    skipped = sum(r.status == "skipped" for r in records)      # step multiples an edge case does not try
    details = {"engine": "adversarial search (exact moments, exact rationals)", "seed": seed, "budget": budget,
               "candidates": len(records) - skipped, "skipped_slots": skipped, "decided": len(decided),
               "holds": len(decided) - len(viol),
               "violated": len(viol), "outside_hypotheses": sum(r.status == "outside" for r in records),
               "undecided": sum(r.status == "undecided" for r in records),
               "instance": f"adversarial search ({decided_count(len(decided))})",
               "relax": list(relax)}
    if viol:
        r = viol[0]
        details.update(lhs_exact=_s(r.lhs), rhs_exact=_s(r.rhs), margin_exact=_s(arith("-", r.rhs, r.lhs)),
                       index=r.index, description=r.description,
                       search_result=f"counterexample (candidate {r.index})",
                       witness_text=violation_wording(st.relation, _short_side(r.lhs), _short_side(r.rhs),
                                                      compare(r.lhs, r.rhs) == 0))
        return Violated(st.name, _num(r.lhs), _num(r.rhs), True, details, evidence=Evidence.SEARCH,
                        witness={"instance": r.instance, "statement": st.name, "source": st.source,
                                 "index": r.index, "seed": seed})
    tight = [r for r in decided if r.ratio is not None]
    if tight:
        t = max(tight, key=lambda r: (r.ratio, -r.index))
        details.update(tightest_index=t.index, tightest=t.description, tightest_instance=t.instance,
                       lhs_exact=_s(t.lhs), rhs_exact=_s(t.rhs), tightest_exact=True)
        lhs, rhs = _num(t.lhs), _num(t.rhs)
    else:
        lhs = rhs = None
    details["search_result"] = f"no counterexample among {len(decided)} decided"
    return Inconclusive(st.name, lhs, rhs, True, details,
                        reason=no_counterexample_reason(len(decided), details["outside_hypotheses"],
                                                        details["candidates"]), evidence=Evidence.SEARCH)


def decided_count(n: int, how: str = "exactly decided") -> str:
    """``"1 exactly decided instance"`` / ``"3 exactly decided instances"``."""
    return f"{n} {how} instance" + ("" if n == 1 else "s")


def no_counterexample_reason(decided: int, outside: int, candidates: int, how: str = "exactly decided") -> str:
    """The reason of a search without counterexample: how many instances were decided and, when
    some of the ``candidates`` (the search's ``details["candidates"]``) fell outside the statement's
    hypotheses, how many (a search that decided few instances says why)."""
    out = f"no counterexample among {decided_count(decided, how)} (a finite search proves nothing)"
    if outside:
        out += f"; {outside} of {candidates} candidates fell outside the hypotheses"
    return out


def _short_side(v) -> str:
    """A side for a one-line witness (:func:`pyfed.exact.short_exact` of its exact value)."""
    from ...exact import short_exact
    return short_exact(to_exact(v))


def _s(v):
    v = to_exact(v)
    return rational_str(v) if isinstance(v, Fraction) else str(v)


def _num(v):
    v = to_exact(v)
    if isinstance(v, sympy.Basic):
        import mpmath
        return mpmath.mpf(str(sympy.N(v, 50)))
    return v
