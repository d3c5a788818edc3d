"""The adversarial search of a statement read by the general elaborator
(:mod:`pyfed.statements.lean_statement`), for every model whose statements are Lean terms evaluated
by :mod:`pyfed.statements.interpret`: one instance decided exactly (:func:`decide_instance`), the
loop over a model's candidates (:func:`search_instances`) and the verdict it gives
(:func:`search_verdict`). What differs between models is passed in: how candidates are drawn,
how a hypothesis the interpreter cannot enumerate is decided, how an instance is written as exact
JSON and the witness schema.

A candidate is decided in full: every hypothesis (a failing one makes it ``outside``), then the
conclusion, both exactly; a term the interpreter cannot evaluate makes it ``undecided`` with the
reason. The search stops at the first violation in index order; the verdict is Violated (its
witness the instance's exact JSON) or Inconclusive (no counterexample among the decided instances,
with the tightest one).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from ...errors import InputError
from ...evaluation.cost import estimate_steps
from ...exact import as_float, rational_str
from ...resources import MAX_CANDIDATE_STEPS
from ...statements.evaluate import EvaluationError, Undecided, arith, compare, to_exact
from ...statements.interpret import Fun, Interpreter, NotFinite, Structural, Vec
from ...verdicts import Evidence, Inconclusive, Violated, violation_wording
from .search import Record, SearchResult, decided_count, exact_text, no_counterexample_reason, report_number, short_side

__all__ = ["InstanceRecord", "decide_instance", "search_instances", "search_verdict", "interpreter_for",
           "holds_by_evaluation"]

#: What makes a candidate undecided rather than outside the hypotheses or a counterexample.
UNDECIDED = (EvaluationError, Undecided, ZeroDivisionError, NotFinite, Structural)


@dataclass
class InstanceRecord(Record):
    """One decided candidate (:class:`~pyfed.engines.statement.search.Record`): ``status``
    ``holds`` / ``violated`` / ``outside`` (a hypothesis fails) / ``undecided``; ``lhs``, ``rhs``
    exact when the conclusion is a comparison of numbers; ``instance`` the exact JSON of the values;
    ``failing`` the failing hypotheses' keys; beyond it, ``reason`` (why undecided) and
    ``in_hypotheses`` (every hypothesis was decided true: the candidate is an instance of the
    statement, whether or not its conclusion could then be decided)."""

    reason: str = ""
    in_hypotheses: bool = False
    #: both sides as exact vectors (``["p/q", …]`` each) when the conclusion compares points
    vectors: tuple | None = None

    def quotient(self) -> float:
        """lhs / rhs as the quotient of the exact sides' floats."""
        return float(as_float(to_exact(self.lhs))) / float(as_float(to_exact(self.rhs)))


def interpreter_for(st) -> Interpreter:
    """An interpreter of ``st``'s terms (its file's own defs, in the context it stands in)."""
    return Interpreter(getattr(st, "file_decls", {}), getattr(st, "context", None))


def candidate_steps(st, env, interp) -> int:
    """The estimated evaluation steps of deciding ``st`` on the instance ``env`` (its hypotheses and
    conclusion, :func:`pyfed.evaluation.cost.estimate_steps`)."""
    return sum(estimate_steps(node, env, interp.definitions)
               for node in [h.node for h in st.hypotheses] + [st.conclusion])


def holds_by_evaluation(h, env, interp) -> bool:
    """A hypothesis decided by evaluating it (the default of :func:`decide_instance`)."""
    return interp.holds(h.node, env)


def decide_instance(st, env, interp=None, *, encode: Callable, hypothesis: Callable = holds_by_evaluation,
                    index: int = 0, description: str = "") -> InstanceRecord:
    """Decide ``st`` exactly on the instance ``env`` (name -> value): ``hypothesis(h, env, interp)``
    decides each hypothesis (raising :class:`~pyfed.statements.interpret.Structural` or an
    evaluation error when it cannot), ``encode(env)`` is the instance's exact JSON (InputError for
    a value without one: the candidate is undecided). An instance whose evaluation would take more
    than :data:`pyfed.resources.MAX_CANDIDATE_STEPS` estimated steps is not evaluated (undecided,
    with the estimate)."""
    interp = interp or interpreter_for(st)
    try:
        spec = encode(env)
    except InputError as exc:
        return InstanceRecord(index, "undecided", description, reason=str(exc))
    steps = candidate_steps(st, env, interp)
    if steps > MAX_CANDIDATE_STEPS:
        return InstanceRecord(index, "undecided", description, spec,
                              reason=f"not evaluated: an estimated {steps:.2g} evaluation steps, above the "
                                     f"{MAX_CANDIDATE_STEPS:.2g} a search candidate may take")
    failing = []
    for h in st.hypotheses:
        try:
            if not hypothesis(h, env, interp):
                failing.append(h.key)
        except UNDECIDED as exc:
            return InstanceRecord(index, "undecided", description, spec, reason=f"hypothesis {h.key}: {exc}")
    if failing:
        return InstanceRecord(index, "outside", description, spec, failing=failing)
    lhs = rhs = None
    try:
        if st.relation in ("≤", "<", "=") and st.lhs is not None and st.rhs is not None and \
                st.conclusion.kind == "binop" and st.conclusion.value in ("≤", "<", "=", "≥", ">"):
            lhs, rhs = interp.eval(st.lhs, env), interp.eval(st.rhs, env)
        holds = interp.holds(st.conclusion, env)
    except UNDECIDED as exc:
        return InstanceRecord(index, "undecided", description, spec, reason=str(exc), in_hypotheses=True)
    vectors = None
    if isinstance(lhs, Vec) and isinstance(rhs, Vec) and all(isinstance(x, Fraction) for x in (*lhs, *rhs)):
        vectors = ([rational_str(x) for x in lhs], [rational_str(x) for x in rhs])
    if isinstance(lhs, Vec) or isinstance(lhs, (Fun, frozenset, str)) or isinstance(lhs, bool):
        lhs = rhs = None
    return InstanceRecord(index, "holds" if holds else "violated", description, spec, lhs, rhs, in_hypotheses=True,
                          vectors=vectors)


def search_instances(st, candidates: Callable, *, count: int, decide: Callable, seed: int, budget: int,
                     schema: str, progress: Callable | None = None) -> SearchResult:
    """The search loop: for each index below ``count``, ``candidates(index)`` yields ``(env,
    description)`` pairs (``env`` None: the draw itself could not be evaluated, ``description`` says
    why), each decided by ``decide(env, index, description)`` (an :class:`InstanceRecord`); the
    search stops after the first violation. ``progress(1)`` after each index."""
    records = []
    for index in range(count):
        for env, how in candidates(index):
            if env is None:      # nothing to decide: the draw itself could not be evaluated
                records.append(InstanceRecord(index, "undecided", f"candidate {index}", reason=how))
                continue
            rec = decide(env, index, how)
            records.append(rec)
            if rec.status == "violated":
                break
        if progress:
            progress(1)
        if any(r.status == "violated" for r in records):
            break
    return SearchResult(records, search_verdict(st, records, seed, budget, schema=schema), seed, budget,
                        tried=len(records))


def search_verdict(st, records, seed, budget, *, schema: str):
    """The search's verdict from its records: Violated by the first violation (witness: ``schema``,
    the instance's exact JSON, the statement, its source, the candidate's index and the seed) or
    Inconclusive (the tightest decided instance, the reason no counterexample was found)."""
    decided = [r for r in records if r.status in ("holds", "violated")]
    viol = [r for r in decided if r.status == "violated"]
    details = {"engine": f"adversarial search ({st.family}, decided exactly)", "seed": seed, "budget": budget,
               "candidates": len(records), "decided": len(decided), "holds": len(decided) - len(viol),
               "violated": len(viol), "outside_hypotheses": sum(r.status == "outside" for r in records),
               "undecided": sum(r.status == "undecided" for r in records),
               "in_hypotheses": sum(r.in_hypotheses for r in records),
               "instance": f"adversarial search ({decided_count(len(decided))})", "family": st.family}
    und = [r for r in records if r.status == "undecided"]
    if und:
        details["undecided_reason"] = und[0].reason
    if viol:
        r = viol[0]
        details.update(index=r.index, description=r.description, search_result=f"counterexample (candidate {r.index})")
        if r.lhs is not None and r.rhs is not None:
            details.update(lhs_exact=exact_text(r.lhs), rhs_exact=exact_text(r.rhs),
                           margin_exact=exact_text(arith("-", r.rhs, r.lhs)),
                           witness_text=violation_wording(st.relation if st.relation in ("≤", "<", "=") else "≤",
                                                          short_side(r.lhs), short_side(r.rhs),
                                                          compare(r.lhs, r.rhs) == 0))
        elif r.vectors is not None:       # points compared: both exact vectors, in the record too
            details.update(lhs_vector=r.vectors[0], rhs_vector=r.vectors[1],
                           witness_text=f"left side ({', '.join(r.vectors[0])}) {'≠' if st.relation == '=' else 'vs'} "
                                        f"right side ({', '.join(r.vectors[1])}) at candidate {r.index} "
                                        f"({r.description})")
        else:
            details["witness_text"] = f"the conclusion is false at candidate {r.index} ({r.description})"
        witness = {"schema": schema, "instance": r.instance, "statement": st.name, "source": st.source,
                   "index": r.index, "seed": seed}
        return Violated(st.name, None if r.lhs is None else report_number(r.lhs),
                        None if r.rhs is None else report_number(r.rhs), True, details,
                        evidence=Evidence.SEARCH, witness=witness)
    tight = [r for r in decided if r.ratio is not None]
    lhs = rhs = None
    if tight:
        t = max(tight, key=lambda r: (r.ratio, -r.index))
        details.update(tightest_index=t.index, tightest=t.description, tightest_instance=t.instance,
                       lhs_exact=exact_text(t.lhs), rhs_exact=exact_text(t.rhs))
        lhs, rhs = report_number(t.lhs), report_number(t.rhs)
    details["search_result"] = f"no counterexample among {len(decided)} decided"
    reason = no_counterexample_reason(len(decided), details["outside_hypotheses"], details["candidates"])
    if not decided and und:
        reason = f"no instance could be decided: {und[0].reason}"
    elif not records:
        reason = ("no instance could be drawn: every draw failed the hypotheses on the numbers alone "
                  "(pyfed's instance ranges may be the limit)")
    elif not decided:
        reason = "none of the instances tried satisfies the hypotheses"
    return Inconclusive(st.name, lhs, rhs, True, details, reason=reason, evidence=Evidence.SEARCH)
