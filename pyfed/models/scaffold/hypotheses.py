"""A statement's hypotheses on an instance: the model's structural ones (``Problem``: N ≥ 1,
β > 0, σ ≥ 0; ``Run``: 1 ≤ S ≤ N, K ≥ 1, T ≥ 1) and the statement's own, each decided exactly
(:func:`evaluate_hypotheses`); whether an instance can bind the statement at all (:func:`fits`);
the step made small enough for them (:func:`fit_step`) and the largest admissible step
(:func:`max_eta_l`)."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import sympy

from ...engines.exact.verdict import _hyp_json as hj
from ...engines.search.space import bisect
from ...errors import InputError
from ...evaluation.numbers import EvaluationError, Undecided, arith, decide, decide_sign, to_exact
from ...statements.evaluate import MINIMIZER_KEY, evaluate
from ...theory.hypotheses import Hypothesis
from .access import ExactAccess, FloatAccess, bind
from .instance import RunInstance, is_exact_problem

__all__ = ["fits", "evaluate_hypotheses", "fit_step", "step_hypothesis", "hypothesis_mentions", "max_eta_l", "STEP_HALVINGS"]


def fits(st, inst: RunInstance) -> str | None:
    """None if ``inst`` can bind the statement's names, else why not (init kind, numerals in
    the run's or problem's arguments that differ, free names without values)."""
    if (st.init == "some") != (inst.c0 is not None):
        return ("the statement's initialisation is `some c0`" if st.init == "some"
                else "the statement's initialisation is `none` (warm start)")
    checks = [(st.run[r], getattr(inst, r)) for r in ("S", "K", "T", "eta_l", "eta_g")]
    checks += list(zip(getattr(st, "problem_args", []), (inst.d, inst.N)))
    for node, v in checks:
        if node.kind == "num" and Fraction(node.value) != Fraction(v):
            return f"the statement fixes `{node.text}` where the instance has {v}"
    for p in st.parameters:
        if p.role == "free" and p.name not in inst.free:
            return f"no value for the statement's parameter `{p.name}`"
    return None


def _structural(inst: RunInstance) -> list:
    p = inst.problem

    def h(key, stmt, margin, strict=False):
        return Hypothesis(key, stmt, bool(margin > 0) if strict else bool(margin >= 0), margin)

    beta = Fraction(p.beta) if isinstance(p.beta, (int, Fraction)) else p.beta
    sigma = Fraction(inst.sigma) if isinstance(inst.sigma, (int, Fraction)) else inst.sigma
    N, S, K, T = p.N, int(inst.S), int(inst.K), int(inst.T)
    F = Fraction
    return [h("clients", "N >= 1", F(N - 1)), h("participation", "1 <= S <= N", F(min(S - 1, N - S))),
            h("local_steps", "K >= 1", F(K - 1)), h("rounds", "T >= 1", F(T - 1)),
            h("beta", "beta > 0", beta, strict=True), h("sigma", "sigma >= 0", sigma)]


def evaluate_hypotheses(st, inst: RunInstance, *, relax=()) -> list:
    """[Hypothesis] of the model's structures (``Problem``, ``Run``) and the statement's own
    hypotheses (keys of :class:`~pyfed.statements.HypothesisSpec`), decided exactly: rational
    values as Fractions, floats at their exact binary value, irrational values (``Real.rpow``)
    by certified balls or an exact sympy test. Hypotheses in ``relax`` are evaluated but
    reported as they are (the caller decides what to do with them)."""
    out = _structural(inst)
    p = inst.problem
    if is_exact_problem(p):
        access = ExactAccess(inst)
    else:
        access = FloatAccess(inst, exact_scalars=True)
    val = bind(st, inst, access)
    for hs in st.hypotheses:
        try:
            out.append(_hypothesis(hs, st, inst, val, access))
        except (EvaluationError, Undecided) as exc:
            out.append(Hypothesis(hs.key, hs.text, False, None))
            out[-1] = Hypothesis(hs.key, f"{hs.text} (undecided: {exc})", False, None)
    return out


#: At most this many halvings of ηl in :func:`fit_step` (2^-64: far below any step a statement needs).
STEP_HALVINGS = 64


def _step_names(st) -> set:
    """The bound names in the run's ηl and ηg arguments (``Run P ν S K T ηl ηg …``)."""
    return {n.value for role in ("eta_l", "eta_g") if st.run.get(role) is not None
            for n in st.run[role].walk() if n.kind == "ident"}


def hypothesis_mentions(spec, names) -> bool:
    """True when the hypothesis ``spec`` (a :class:`~pyfed.statements.HypothesisSpec`) is a
    comparison that mentions one of the bound ``names``."""
    return spec.kind == "compare" and spec.node is not None and any(
        n.kind == "ident" and n.value in names for n in spec.node.walk())


def step_hypothesis(st, spec) -> bool:
    """True when ``spec`` (a hypothesis of ``st``) is a comparison that involves the step: it
    mentions ηl or ηg (``effectiveStep K ηl ηg`` does)."""
    return hypothesis_mentions(spec, _step_names(st))


def fit_step(st, inst: RunInstance, *, halvings: int = STEP_HALVINGS) -> tuple:
    """``inst`` with its local step ηl made small enough for ``st``'s hypotheses, exactly.

    Returns ``(instance, k, hypotheses)``: when every hypothesis holds on ``inst``, ``(inst, 0,
    hyps)``; when the only failing ones are comparisons involving the step
    (:func:`step_hypothesis`), ηl is halved (an exact rational: ηl / 2^k) for k = 1, 2, …,
    ``halvings`` and ALL hypotheses are re-decided by :func:`evaluate_hypotheses` each time; the
    first k at which every one holds gives ``(copy of inst with ηl / 2^k, k, hyps)``. Otherwise
    (a structural or non-step hypothesis fails, or no k ≤ ``halvings`` works) ``(None, 0, hyps)``
    with the hypotheses of the unchanged ``inst``. ``inst`` itself is never modified."""
    hyps = evaluate_hypotheses(st, inst)
    bad = [i for i, h in enumerate(hyps) if not h.holds]
    if not bad:
        return inst, 0, hyps
    n_struct = len(hyps) - len(st.hypotheses)
    for i in bad:
        if i < n_struct or not step_hypothesis(st, st.hypotheses[i - n_struct]):
            return None, 0, hyps
    eta = Fraction(inst.eta_l)
    if eta <= 0:
        return None, 0, hyps
    for k in range(1, int(halvings) + 1):
        trial = replace(inst, eta_l=eta / 2 ** k)
        hs = evaluate_hypotheses(st, trial)
        if all(h.holds for h in hs):
            return trial, k, hs
    return None, 0, hyps


def _hypothesis(hs, st, inst, val, access) -> Hypothesis:
    p = inst.problem
    if hs.kind == "compare":
        a = evaluate(hs.node.args[0], val)
        b = evaluate(hs.node.args[1], val)
        holds = decide(hs.op, a, b)
        margin = _margin(b, a) if hs.op in ("≤", "<") else None
        return Hypothesis(hs.key, hs.text, bool(holds), margin)
    if hs.kind == "convexity":
        mu = evaluate(hs.args[1], val)
        if decide_sign(mu) < 0:
            return Hypothesis(hs.key, hs.text, False, _margin(mu, 0))
        holds, margin = p.convexity(to_exact(mu))
        return Hypothesis(hs.key, hs.text, bool(holds), margin)
    if hs.kind == "minimizer":
        xs = evaluate(hs.args[1], val)
        if is_exact_problem(p):
            ok = xs.key == MINIMIZER_KEY or all(Fraction(a) == Fraction(b) for a, b in zip(xs.value, p.x_star_exact))
            return Hypothesis(hs.key, hs.text, bool(ok), Fraction(0) if ok else None)
        ok = xs.key == MINIMIZER_KEY
        return Hypothesis(hs.key, hs.text + " (the problem's numerical minimiser)", bool(ok), None)
    if hs.kind == "lower_bound":
        fl = evaluate(hs.args[0], val)
        if is_exact_problem(p):
            margin = Fraction(p.f_star) - to_exact(fl)
            return Hypothesis(hs.key, hs.text, decide_sign(margin) >= 0, margin)
        cert = p.derivations.get("f_low")
        flow = Fraction(p.f_low) if isinstance(p.f_low, float) else p.f_low
        fx0 = access.objective(access.x0)
        margin = fx0 - to_exact(fl)
        ok = bool(cert) and decide_sign(Fraction(flow) - to_exact(fl)) >= 0 and decide_sign(margin) >= 0
        return Hypothesis(hs.key, hs.text, ok, margin)
    raise InputError("statement", f"unknown hypothesis kind {hs.kind}")


def _margin(b, a):
    m = arith("-", b, a)
    if isinstance(m, sympy.Basic):
        if m.is_Rational:
            return Fraction(int(m.p), int(m.q))
        import mpmath
        return mpmath.mpf(str(sympy.N(m, 50)))
    return m


def _hyp_json(hyps):
    return hj(hyps)



def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in [lo, hi] (lo <= hi, both > 0)."""
    if lo.denominator == 1 or math.floor(lo) < math.floor(hi) or hi.denominator == 1 and hi == math.floor(hi):
        c = Fraction(math.ceil(lo))
        if c <= hi:
            return c
    fl = math.floor(lo)
    if fl == lo:
        return lo
    # lo, hi in (fl, fl + 1): recurse on the reciprocals of the fractional parts
    a, b = lo - fl, hi - fl
    inner = _simplest_between(1 / b, 1 / a)
    return fl + 1 / inner


def _step_relevant(st):
    """The statement's comparison hypotheses that involve the run's step ηl."""
    return [h for h in st.hypotheses if hypothesis_mentions(h, {st.run["eta_l"].text})]


def _admissible(st, inst, hyps, ignore=()) -> bool:
    access = ExactAccess(inst)
    val = bind(st, inst, access)
    for h in hyps:
        if h.key in ignore:
            continue
        try:
            a, b = evaluate(h.node.args[0], val), evaluate(h.node.args[1], val)
            if not decide(h.op, a, b):
                return False
        except (EvaluationError, Undecided, ZeroDivisionError):
            return False
    return True


def max_eta_l(st, inst: RunInstance, *, ignore=(), bits: int = 60) -> tuple:
    """(largest admissible ηl, bounded) for ``inst`` with the other parameters fixed: the
    statement's step hypotheses (those mentioning ηl, minus ``ignore``) decided exactly. Returns
    (None, True) when no ηl with 2^-80/β <= h is admissible and (None, False) when the hypotheses
    put no upper bound on ηl below h = 64/β.

    The boundary is bracketed within a factor 2, bisected ``bits`` times, and the rational with
    the smallest denominator in the final bracket is returned if admissible (an exact rational
    boundary such as 1/(81 β) is found exactly; an irrational one such as (S/N)^(2/3)/(24 β) is
    approached from inside within a relative 2^-bits; fewer bits give smaller denominators, which
    long horizons need: the exact moments' denominators grow like the step's, per round)."""
    hyps = _step_relevant(st)
    unit = Fraction(1) / (inst.K * Fraction(inst.eta_g) * Fraction(inst.problem.beta))   # h = 1/beta

    def ok(e):
        inst.eta_l = e
        return _admissible(st, inst, hyps, ignore)

    saved = inst.eta_l
    try:
        if not [h for h in hyps if h.key not in ignore]:
            return None, False
        lo = hi = None
        for k in range(-20, 7):
            e = unit * Fraction(2) ** k
            if ok(e):
                lo = e
            elif lo is not None:
                hi = e
                break
        else:
            if lo is not None:
                return None, False
        if lo is None:
            # nothing admissible from h = 2^-20/β up: a very tight step hypothesis (e.g.
            # h ≤ 1/(10^10 β)); look further down, as far as 2^-80/β
            for k in range(-21, -81, -1):
                e = unit * Fraction(2) ** k
                if ok(e):
                    lo, hi = e, 2 * e
                    break
            else:
                return None, True
        lo, hi = bisect(ok, lo, hi, bits)
        s = _simplest_between(lo, hi)
        if s > lo and ok(s):
            lo = s
        return lo, True
    finally:
        inst.eta_l = saved
