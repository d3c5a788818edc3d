"""Adversarial search of a statement: every structured candidate, then ``budget`` random ones
(:mod:`.candidates`), each decided exactly (:func:`evaluate_candidate`, a pure function of
``(seed, index)``), so a parallel back end can map the indices and merge the records in index
order with byte-identical results (:func:`search`)."""

from __future__ import annotations

import functools

from ...engines.statement.search import (
    Record,
    SearchResult,
    decided_count,
    exact_text,
    no_counterexample_reason,
    report_number,
    short_side,
)
from ...errors import InputError
from ...evaluation.numbers import EvaluationError, Undecided, arith, compare
from ...verdicts import Evidence, Inconclusive, Violated, violation_wording
from .candidates import candidate, structured_count
from .constants import literals
from .exact import sides_exact
from .hypotheses import evaluate_hypotheses
from .instance import instance_to_json
from .reader import ScaffoldRunStatement

__all__ = ["search", "evaluate_candidate", "decide_record", "scaffold_verdict"]


def evaluate_candidate(st, seed: int, index: int, *, relax=(), profile=None) -> Record:
    """Draw candidate ``index`` and decide it exactly (a pure function of its arguments).

    ``profile``: list of :class:`Literal` whose per-instance data to compute (thresholds)."""
    try:
        inst, desc = candidate(st, seed, index, relax=relax)
    except InputError as exc:
        return Record(index, "skipped", str(exc))
    if inst is None:
        return Record(index, "skipped", desc)
    return decide_record(st, inst, index, desc, relax=relax, profile=profile)


def decide_record(st, inst, index: int, desc: str, *, relax=(), profile=None) -> Record:
    """The search record of instance ``inst``, decided exactly: ``outside`` when a hypothesis not
    in ``relax`` fails, ``undecided`` when a side cannot be evaluated, else ``holds`` / ``violated``
    with both sides (and the constant profile's data of each literal of ``profile``)."""
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
    if not isinstance(st, ScaffoldRunStatement):
        raise InputError("statement", f"{st.name} is a {st.family}, not about a SCAFFOLD run: search it with "
                                      "its model (pyfed.check_statement)")
    n = structured_count(st)
    idx = list(indices) if indices is not None else list(range(n + int(budget)))
    keys = tuple(lit.key for lit in profile) if profile else ()
    records = _map(st, [(seed, i, tuple(relax), keys) for i in idx], pool, progress)
    return SearchResult(records, scaffold_verdict(st, records, seed, budget, relax), seed, budget)


def scaffold_verdict(st, records, seed, budget, relax=()):
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
        details.update(lhs_exact=exact_text(r.lhs), rhs_exact=exact_text(r.rhs), margin_exact=exact_text(arith("-", r.rhs, r.lhs)),
                       index=r.index, description=r.description,
                       search_result=f"counterexample (candidate {r.index})",
                       witness_text=violation_wording(st.relation, short_side(r.lhs), short_side(r.rhs),
                                                      compare(r.lhs, r.rhs) == 0))
        return Violated(st.name, report_number(r.lhs), report_number(r.rhs), True, details, evidence=Evidence.SEARCH,
                        witness={"instance": r.instance, "statement": st.name, "source": st.source,
                                 "index": r.index, "seed": seed})
    tight = [r for r in decided if r.ratio is not None]
    if tight:
        t = max(tight, key=lambda r: (r.ratio, -r.index))
        details.update(tightest_index=t.index, tightest=t.description, tightest_instance=t.instance,
                       lhs_exact=exact_text(t.lhs), rhs_exact=exact_text(t.rhs), tightest_exact=True)
        lhs, rhs = report_number(t.lhs), report_number(t.rhs)
    else:
        lhs = rhs = None
    details["search_result"] = f"no counterexample among {len(decided)} decided"
    return Inconclusive(st.name, lhs, rhs, True, details,
                        reason=no_counterexample_reason(len(decided), details["outside_hypotheses"],
                                                        details["candidates"]), evidence=Evidence.SEARCH)
