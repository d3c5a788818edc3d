"""The exact-moment engine on a statement: :func:`decide_exact` decides a run statement on a
rational quadratic instance (the run's per-round E[F(x_r) - F(x⋆)] and E‖∇F(x_r)‖² from
:mod:`pyfed.engines.exact`, exact rationals or certified balls with escalating precision; both
sides evaluated from the statement's Lean terms); :func:`sides_exact` gives the two sides
without a verdict (the search and the profile); :func:`recheck` re-decides a witness."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import sympy

from ... import theory
from ...engines.exact.arith import ExactField
from ...engines.exact.model import _controls as mk_controls
from ...engines.exact.model import _is_rational, _vector
from ...engines.exact.propagation import MomentResult, _sampled_round_moments
from ...engines.exact.verdict import _hyp_json as hj
from ...engines.exact.verdict import (
    _inequality_verdict,
    _pick_field,
    _rhs_terms,
    _short,  # 8 correct digits at any magnitude (no float overflow)
)
from ...errors import InputError
from ...evaluation.numbers import EvaluationError, Undecided, arith, compare, to_exact
from ...exact import _sympy_to_arb, format_number, fraction_of, number_json, precision, to_arb
from ...statements.evaluate import evaluate
from ...verdicts import (
    Evidence,
    Holds,
    Inconclusive,
    Verdict,
    Violated,
    inequality_phrase,
    violation_wording,
)
from .access import BallAccess, ExactAccess, _sympy, bind
from .hypotheses import evaluate_hypotheses, fits
from .instance import (
    RunInstance,
    instance_from_json,
    instance_to_json,
    is_client_set,
    is_exact_problem,
)
from .paths import path_moments

__all__ = ["decide_exact", "sides_exact", "recheck"]


def _frac_str(v):
    """A number of a verdict's ``details``: exact rationals as :func:`pyfed.exact.number_json`
    ("p/q" with its correctly rounded float, capped at REPORT_EXACT_CHARS characters: the full
    value stays in the Verdict's sides); anything else as its text."""
    return number_json(v) if isinstance(v, Fraction) else str(v)


def _exact_verdict(st, lhs, rhs, details, witness, certificate):
    """Verdict of ``lhs (≤|<) rhs`` from exact values (Fractions, or exact sympy numbers)."""
    details = dict(details)
    lhs, rhs = to_exact(lhs), to_exact(rhs)
    lhs, rhs = (Fraction(lhs) if isinstance(lhs, int) else lhs), (Fraction(rhs) if isinstance(rhs, int) else rhs)
    s = compare(lhs, rhs)
    holds = s >= 0 if st.relation == "≤" else s > 0
    if all(isinstance(v, Fraction) for v in (lhs, rhs)):
        details["lhs_exact"] = _frac_str(lhs)
        details["rhs_exact"] = _frac_str(rhs)
        details["ratio_exact"] = _frac_str(lhs / rhs) if rhs > 0 else None
        details["margin_exact"] = _frac_str(rhs - lhs)
        lv, rv = lhs, rhs
    else:
        import mpmath
        details["lhs_exact"] = str(lhs)
        details["rhs_exact"] = str(rhs)
        details["margin_exact"] = str(arith("-", rhs, lhs))
        lv = lhs if isinstance(lhs, Fraction) else mpmath.mpf(str(sympy.N(_sympy(lhs), 50)))
        rv = rhs if isinstance(rhs, Fraction) else mpmath.mpf(str(sympy.N(_sympy(rhs), 50)))
        # an irrational side: its exact expression (above) and a certified enclosure with its digits
        with precision(128):
            for side, val in (("lhs", lhs), ("rhs", rhs)):
                if not isinstance(val, Fraction):
                    details[f"{side}_certified"] = number_json(_sympy_to_arb(_sympy(val)))
    if holds:
        return Holds(st.name, lv, rv, True, details, evidence=Evidence.EXACT, certificate=certificate)
    details["witness_text"] = violation_wording(st.relation, format_number(lv), format_number(rv), s == 0)
    return Violated(st.name, lv, rv, True, details, evidence=Evidence.EXACT, witness=witness)


def _ball_verdict(st, lhs, rhs, details, witness, bits):
    lhs, rhs = to_arb(lhs), to_arb(rhs)       # a side may have come out exact (min of numerals, sqrt of a square)
    v = _inequality_verdict(st.name, lhs, rhs, False, details, witness, None, bits)
    if v.status != "inconclusive":
        v.evidence = Evidence.BALL
    if v.status == "violated":
        v.details["witness_text"] = violation_wording(st.relation, lhs.str(10), rhs.str(10), False)
    if st.relation == "<" and v.status == "holds":
        margin = rhs - lhs
        if margin.is_exact() and margin == 0:      # both sides the same exact number: strict < fails
            v.details["witness_text"] = violation_wording("<", lhs.str(10), rhs.str(10), True)
            out = Violated(st.name, v.lhs, v.rhs, True, v.details, evidence=Evidence.BALL, witness=witness)
            out.balls = v.balls
            return out
        if not (margin > 0):
            out = Inconclusive(st.name, v.lhs, v.rhs, False, v.details,
                               reason="the strict inequality < is not certified by the balls")
            out.balls = v.balls
            return out
    return v


def _finish(st, v, details):
    """The theorem's verdict: the inequality's own verdict when every hypothesis holds, else
    Inconclusive (the theorem claims nothing there) saying what the inequality does."""
    v.details["inequality"] = v.status if v.status != "inconclusive" else "undecided"
    if details.get("hypotheses_hold", True):
        return v
    bad = [h["statement"] for h in details.get("hypotheses", []) if not h["holds"]]
    out = Inconclusive(st.name, v.lhs, v.rhs, v.exact, v.details,
                       reason=(f"hypotheses fail ({'; '.join(bad)}): the theorem claims nothing here; "
                               f"the inequality itself {inequality_phrase(v.details['inequality'])} at this instance"))
    if getattr(v, "balls", None):  # reports print the balls' certified digits
        out.balls = v.balls
    return out


_PREC_LADDER = (128, 256, 512, 1024, 2048)


def _field_inputs(inst):
    return [inst.sigma, inst.eta_l, inst.eta_g] + list(np.asarray(inst.x0, dtype=object).ravel()) + \
        ([] if inst.c0 is None else list(np.asarray(inst.c0, dtype=object).ravel()))


def _rounds_needed(st, inst) -> int:
    return int(inst.T)


#: Exact moment runs kept by :func:`_run_moments` (least recently used dropped first): the
#: statements of one theorem file are searched over the same structured candidates and differ
#: only in their inequality, so they share the runs (per process: each Dask worker has its own).
MOMENT_MEMO_SIZE = 256
_MOMENTS: dict = {}


def _moment_key(inst, rounds: int, warm: bool):
    """The exact data that determines the seed-000 Run's moments on ``inst`` (problem A_i, b_i,
    σ, S, K, T, ηl, ηg, x0, c0, warm start) as a hashable tuple of Fractions, or None when
    something is not an exact rational (no memo then)."""
    p = inst.problem
    flat = [p.N, p.d, inst.S, inst.K, rounds, inst.sigma, inst.eta_l, inst.eta_g]
    flat += list(np.asarray(p.A_exact, dtype=object).ravel()) + list(np.asarray(p.b_exact, dtype=object).ravel())
    flat += list(np.asarray(inst.x0, dtype=object).ravel())
    if not warm:        # (N d entries: the warm flag first in the key keeps the two layouts apart)
        flat += list(np.asarray(inst.c0, dtype=object).ravel())
    out = []
    for v in flat:
        f = fraction_of(v)
        if f is None:
            return None
        out.append(f)
    return (bool(warm),) + tuple(out)


def _run_moments(inst, F, x0v, c0v, rounds: int, warm: bool):
    """:func:`pyfed.engines.exact.propagation._sampled_round_moments` of the seed-000 Run on
    ``inst`` in the field ``F`` (``x0v``, ``c0v``: x0 and c0 in ``F``). Exact-rational runs are
    memoised per process on the instance's exact data (:func:`_moment_key`; the moments are a
    pure function of it) and every call gets its own lists of the (immutable) Fractions."""
    key = _moment_key(inst, rounds, warm) if isinstance(F, ExactField) else None
    res = _MOMENTS.pop(key, None) if key is not None else None
    if res is None:
        res = _sampled_round_moments(inst.problem, inst.sigma, S=int(inst.S), K=int(inst.K), T=rounds,
                                     eta_l=inst.eta_l, eta_g=inst.eta_g, x0=x0v, c0=c0v, noise_cov=None,
                                     variant="run", field=F, warm_start=warm, algorithm="scaffold_run")
    if key is None:
        return res
    _MOMENTS[key] = res         # most recently used last
    while len(_MOMENTS) > MOMENT_MEMO_SIZE:
        del _MOMENTS[next(iter(_MOMENTS))]
    return MomentResult(gaps=list(res.gaps), grad_sq=list(res.grad_sq), exact=res.exact,
                        arithmetic=res.arithmetic, algorithm=res.algorithm, mean_x=[list(m) for m in res.mean_x])


def _moments(inst, F, x0v, c0v, rounds: int, warm: bool):
    """The run's per-round statistics: exact moments of a quadratic instance (:func:`_run_moments`),
    every sample path of a client set (:func:`pyfed.models.scaffold.paths.path_moments`)."""
    if is_client_set(inst.problem):
        return path_moments(inst.problem, S=int(inst.S), K=int(inst.K), T=rounds, eta_l=inst.eta_l, eta_g=inst.eta_g,
                            x0=inst.x0, c0=None if warm else inst.c0)
    return _run_moments(inst, F, x0v, c0v, rounds, warm)


def decide_exact(st, inst: RunInstance, *, arithmetic: str = "auto", prec: int | None = None,
                 details_extra: dict | None = None) -> Verdict:
    """Decide ``st`` on a rational quadratic instance with the exact-moment engine.

    The left side's statistics come from :func:`pyfed.engines.exact.scaffold_run_moments`'s
    propagation (exact rationals, or certified balls beyond the exact budget with precision
    raised up to 2048 bits until the sign is certified); both sides are evaluated from the
    statement's Lean terms. Returns Holds / Violated (witness: the instance's exact JSON, see
    :func:`recheck`) / Inconclusive (hypotheses fail, or a ball containing 0).

    Raises InputError for a problem that is not a rational quadratic.
    """

    p = inst.problem
    if not is_exact_problem(p):
        raise InputError("instance", "the exact-moment engine needs quadratic clients with rational data or an exact "
                                     "client set")
    why = fits(st, inst)
    if why:
        raise InputError("instance", why)
    hyps = evaluate_hypotheses(st, inst)
    N, d = p.N, p.d
    rounds = _rounds_needed(st, inst)
    rational = all(_is_rational(v) for v in _field_inputs(inst))
    n_state = d * (N + 1)
    ladder = [prec] if prec else list(_PREC_LADDER)
    if is_client_set(p):        # every sample path, exactly (no ball fallback: the data are rational)
        arithmetic, ladder = "exact", ladder[:1]
    witness = {"instance": instance_to_json(inst), "statement": st.name, "source": st.source}
    warm = st.init == "none"
    base = {"engine": "exact moments (pyfed.engines.exact)",
            "model": "seed-000 Run (virtual paths, then sampling), " + ("K-sample warm start" if warm else "deterministic c0"),
            "hypotheses": hj(hyps), "hypotheses_hold": all(h.holds for h in hyps)}
    if not warm:
        base["c0"] = "given"
    base.update(details_extra or {})
    verdict = None
    for bits in ladder:
        F = _pick_field(arithmetic, rational, n_state, rounds, bits)
        with F.active():
            x0v = _vector(F, "x0", inst.x0, d)
            c0v = None if warm else mk_controls(F, "c0", inst.c0, N, d)
        res = _moments(inst, F, x0v, c0v, rounds, warm)
        details = dict(base, arithmetic=F.name)
        if is_client_set(p):
            details.update(engine="every sample path of the Run, exact rationals (pyfed.models.scaffold.paths)",
                           model=base["model"].replace("virtual paths, then sampling",
                                                       "virtual paths, then sampling; exact gradients"))
        if "averageGradientSq" in st.statistics and "weightedGap" not in st.statistics:
            details["grad_sq"] = [_short(g) for g in res.grad_sq]
        else:
            details["gaps"] = [_short(g) for g in res.gaps]
        if isinstance(F, ExactField):
            access = ExactAccess(inst, res)
            val = bind(st, inst, access)
            try:
                lhs, rhs = evaluate(st.lhs, val), evaluate(st.rhs, val)
            except EvaluationError as exc:
                return Inconclusive(st.name, details=details, reason=str(exc))
            _add_model_numbers(st, access, val, details)
            terms = _model_rhs_terms(st, val, lhs, rhs, _rhs_terms)
            if terms:
                details["rhs_terms"] = terms
            v = _exact_verdict(st, lhs, rhs, details, witness, "exact rational arithmetic (python-flint fmpq_mat)")
            return _finish(st, v, details)
        with F.active():
            access = BallAccess(F, inst, res, x0v, c0v)
            val = bind(st, inst, access)
            try:
                lhs, rhs = evaluate(st.lhs, val), evaluate(st.rhs, val)
            except Undecided as exc:
                verdict = Inconclusive(st.name, details=details, reason=f"undecided at {bits} bits: {exc}")
                continue
            except EvaluationError as exc:
                return Inconclusive(st.name, details=details, reason=str(exc))
            v = _ball_verdict(st, lhs, rhs, details, witness, bits)
            verdict = _finish(st, v, details)
        if verdict.details.get("inequality") != "undecided":
            return verdict
    return verdict


def _add_model_numbers(st, access, val, details):
    """dist_sq, C0 (or f_gap) of the model's right side, exactly, as the default report shows."""
    xs = st.role_of("xstar")
    c0 = st.controls
    try:
        if xs is not None and c0 is not None:
            xsv = val.env[xs]
            details["dist_sq"] = _frac_str(access.dist_sq(access.x0, xsv))
            details["C0"] = _frac_str(access.control_error(val.env[c0], xsv))
        fl = st.role_of("f_low")
        if fl is not None:
            details["f_gap"] = _frac_str(access.objective(access.x0) - val.env[fl])
    except Exception:      # reporting only: never let it change a verdict
        pass


def _model_rhs_terms(st, val, lhs, rhs, rhs_terms):
    """The default report's ``rhs_terms`` (first term, noise term, the noise constant this
    instance needs) when the right side is the model's convexRHS / nonconvexRHS itself. The
    constants are read off the definitions' own bodies (lean/Pyfed/Scaffold/Model.lean), not written
    here: the noise constant is the right side's increase from σ = 0 to σ = 1 over the noise term's
    form h σ²/(K S)(1 + S/ηg²) (times β for nonconvexRHS), the first term's constant its value at
    σ = 0 over its form ((F(x0) − f_low)/(h T) for nonconvexRHS)."""
    head = st.rhs.head_name()
    if head not in ("convexRHS", "nonconvexRHS") or not isinstance(rhs, Fraction):
        return None
    args = [evaluate(a, val) for a in st.rhs.args[1:]]
    S, K, eg = args[1], args[2], args[5]
    h = theory.effective_step(K, args[4], eg)
    unit = Fraction(1) if head == "convexRHS" else Fraction(val.access.beta)
    first0, one = _rhs_at_sigma(st, val, 0), _rhs_at_sigma(st, val, 1)
    form1 = theory.noise_term(unit, 1, S, K, eg, h)
    if not (isinstance(first0, Fraction) and isinstance(one, Fraction) and form1):
        return None
    constant = (one - first0) / form1
    constant = int(constant) if constant.denominator == 1 else constant
    if head == "convexRHS":
        name = "V0/(h W_T)"
    else:
        gap = val.access.objective(val.access.x0) - args[6]
        c = first0 * h * args[3] / gap if gap else None
        c = int(c) if c is not None and Fraction(c).denominator == 1 else c
        name = f"{c if c is not None else 'c'} (f(x0) - f_low)/(h T)"
    return rhs_terms(lhs, rhs, theory.noise_term(unit, val.access.sigma, S, K, eg, h), constant, name)


def _rhs_at_sigma(st, val, sigma):
    """The statement's right side on the same instance with the problem's σ replaced by ``sigma``."""
    access = copy.copy(val.access)
    access.sigma = Fraction(sigma)
    again = copy.copy(val)
    again.access = access
    return to_exact(evaluate(st.rhs, again))


def sides_exact(st, inst: RunInstance):
    """(lhs, rhs, hypotheses) of ``st`` on a rational quadratic instance, exactly (exact
    rationals only; no verdict): the search and the constant profile use it."""

    p = inst.problem
    F = ExactField()
    warm = st.init == "none"
    with F.active():
        x0v = _vector(F, "x0", inst.x0, p.d)
        c0v = None if warm else mk_controls(F, "c0", inst.c0, p.N, p.d)
    res = _moments(inst, F, x0v, c0v, int(inst.T), warm)
    access = ExactAccess(inst, res)
    val = bind(st, inst, access)
    return evaluate(st.lhs, val), evaluate(st.rhs, val), val


def recheck(st, witness: dict) -> Verdict:
    """Re-decide ``st`` on a witness (``{"instance": instance_to_json(...)}``) exactly."""
    inst = instance_from_json(witness["instance"] if "instance" in witness else witness)
    return decide_exact(st, inst, arithmetic="exact")
