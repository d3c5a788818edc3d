"""Exact-moment engine, verdicts: the SCAFFOLD finite-round inequalities decided exactly.

:func:`decide_convex` and :func:`decide_nonconvex` compute the left side with
:mod:`pyfed.engines.exact.propagation` in exact rationals (python-flint ``fmpq_mat``) or
certified balls (``arb_mat``), the right side and hypotheses with :mod:`pyfed.theory`, and
return a :class:`pyfed.verdicts.Verdict`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ... import theory
from ...errors import InputError, check_nonnegative
from ...exact import all_exact, decimal_str, number_json
from ...verdicts import Holds, Inconclusive, Violated, inequality_phrase
from .arith import BallField, ExactField, fraction_of, to_arb
from .model import _check_quadratic, _controls, _is_rational, _minimiser, _noise, _problem_data, _vector
from .propagation import _sampled_round_moments, _validate_round_args

# ----------------------------------------------------------------------------------------
# verdicts: the SCAFFOLD finite-round inequalities decided exactly (or with a certified ball)
# ----------------------------------------------------------------------------------------

#: Auto mode uses exact rationals when (state size + 1)^3 * T^2 is at most this budget
#: (a measured cost model: exact entries grow by ~200 digits per round on d = 5, N = 10
#: instances, so exact cost ~ n^3 T^2); larger instances use certified balls.
EXACT_BUDGET = 10**7

#: Ball precision (bits) of the first attempt, and the largest precision escalation tries.
BASE_PREC = 128
MAX_PREC = 4096
#: Rounds after which the precision model measures how fast the ball radius grows. The loss
#: of relative precision in ball arithmetic settles to a constant rate per round (the wrapping
#: effect of the round's absolute-value map) within about 30 rounds on the instances measured
#: (benchmarks/bench_exact.py), and does not depend on the working precision.
PROBE_ROUNDS = 40
#: Relative bits the statistics should keep at round T on the first attempt (1e-10): enough to
#: decide unless lhs and rhs agree to about ten digits; escalation covers the rest.
MARGIN_BITS = 32


class _Restart(Exception):
    """Abandon a ball run and start again at ``bits`` (raised by the precision probe)."""

    def __init__(self, bits):
        super().__init__(bits)
        self.bits = bits


def _loss_bits(series, prec):
    """Bits of relative precision lost by round t: max over the series of log2(rad/|mid|) + prec
    (None where every value is 0; +inf where a ball is not finite)."""
    out = []
    for vals in zip(*series):
        worst = None
        for v in vals:
            if not v.is_finite():
                worst = math.inf
                break
            m, r = abs(float(v.mid())), float(v.rad())
            if m > 0 and r > 0:
                lb = math.log2(r / m) + prec
                worst = lb if worst is None else max(worst, lb)
        out.append(worst)
    return out


def _predict_bits(series, prec, T):
    """The precision model: from the statistics of rounds 0..t0 at ``prec`` bits, the bits
    the run needs at round T.

    loss(t) = log2(rad/|value|) + prec is the relative precision the ball arithmetic has lost
    by round t (independent of prec); after a transient it grows linearly in t at a rate set
    by the instance (data, step sizes, S of N, K). The rate s is measured over the last rounds
    seen (up to 10) and extrapolated with 10% headroom: loss(T) = loss(t0) + 1.1 s (T - t0);
    the run needs loss(T) + MARGIN_BITS bits, rounded up to a multiple of 64 (at least 128).
    Returns (bits, info dict) or (None, info) if the losses cannot be measured.
    """
    losses = _loss_bits(series, prec)
    t0 = len(losses) - 1
    pts = [(t, l) for t, l in enumerate(losses) if l is not None]
    info = {"probe_rounds": t0, "probe_bits": prec}
    if not pts:
        return None, info
    t_last, l_last = pts[-1]
    if math.isinf(l_last):
        return None, info
    w = min(10, t_last // 2)
    earlier = [l for t, l in pts if t <= t_last - w] if w > 0 else []
    rate = max(0.0, (l_last - earlier[-1]) / w) if earlier and w > 0 else 0.0
    loss_T = l_last + 1.1 * rate * max(0, T - t_last)
    bits = max(BASE_PREC, int(math.ceil((loss_T + MARGIN_BITS) / 64.0)) * 64)
    info.update(loss_rate_bits_per_round=round(rate, 4), predicted_loss_bits=round(loss_T, 1), model_bits=bits)
    return bits, info


def _decide_in_balls(moments, series_of, verdict_of, T, prec):
    """Certified-ball decision at the precision the horizon needs.

    moments(bits, check) -> MomentResult of the T rounds at ``bits`` (``check`` as in
    :func:`.propagation._propagate_blocks`); series_of(gaps, grad_sq) -> the statistics the
    verdict reads (lists of balls); verdict_of(bits, res, info) -> Verdict. With ``prec`` given, one
    run at that precision. Otherwise: start at BASE_PREC with a probe after
    min(T, PROBE_ROUNDS) rounds; if the model (:func:`_predict_bits`) says BASE_PREC will not
    last to round T, restart once at the predicted precision; a run that ends undecided
    (``details["inequality"] == "undecided"``) is repeated at twice the precision, up to MAX_PREC.
    """
    if prec:
        return verdict_of(prec, moments(prec, None), {"start_bits": prec, "attempts": [prec], "model": "given"})
    info = {"attempts": []}
    bits = BASE_PREC
    t0 = min(T, PROBE_ROUNDS)
    probed = False

    def probe(gaps, gsq):
        need, inf = _predict_bits(series_of(gaps, gsq), bits, T)
        info.update(inf)
        if need is not None and need > bits:
            raise _Restart(need)

    while True:
        info["attempts"].append(bits)
        try:
            use = (t0, probe) if (t0 < T and not probed) else None
            probed = True
            res = moments(bits, use)
        except _Restart as r:
            bits = min(r.bits, MAX_PREC)
            continue
        v = verdict_of(bits, res, info)
        if v.details.get("inequality") != "undecided" or bits >= MAX_PREC:
            return v
        need, inf = _predict_bits(series_of(res.gaps, res.grad_sq), bits, T)
        if "model_bits" not in info:
            info.update(inf)
        bits = min(MAX_PREC, max(2 * bits, need or 0))



def _pick_field(arithmetic, rational, n_state, T, prec):
    if arithmetic not in ("auto", "exact", "ball"):
        raise InputError("arithmetic", f"must be 'auto', 'exact' or 'ball', got {arithmetic!r}")
    if arithmetic == "exact":
        if not rational:
            raise InputError("arithmetic", "exact arithmetic needs rational data, steps, noise and start")
        return ExactField()
    if arithmetic == "auto" and rational and (n_state + 1) ** 3 * max(T, 1) ** 2 <= EXACT_BUDGET:
        return ExactField()
    return BallField(prec)


def _rhs_terms(lhs, rhs, noise_unit, constant, first_name):
    """How much of the right side each term is, and the smallest noise constant that would do.

    rhs = first + constant * noise_unit (constant 12 convex, 70 nonconvex with noise_unit
    carrying beta). ``noise_constant_needed`` is the least c >= 0 with lhs <= first + c *
    noise_unit on this instance ("0" if the first term alone suffices, None if sigma = 0 and it
    does not): how far the theorem's constant is from what this instance needs.
    """
    first = rhs - constant * noise_unit
    if lhs <= first:
        needed = Fraction(0)
    elif noise_unit > 0:
        needed = (lhs - first) / noise_unit
    else:
        needed = None
    return {"first_term": first_name, "first": _num(first), "noise": _num(constant * noise_unit),
            "noise_constant": constant, "noise_constant_needed": None if needed is None else _num(needed)}


def _num(v):
    """A number of a verdict's ``details``: :func:`pyfed.exact.number_json` (exact "p/q" with its
    correctly rounded float, capped at REPORT_EXACT_CHARS characters; balls with their certified
    digits). The full exact values stay in the Verdict's ``lhs``/``rhs`` (Fractions)."""
    return number_json(v)


def _short(v) -> str:
    """8 correct significant digits of a per-round statistic (any magnitude; balls: certified)."""
    return decimal_str(v, 8)


def _hyp_json(hyps):
    out = []
    for h in hyps:
        out.append({"key": h.key, "statement": h.statement, "holds": bool(h.holds), "margin": _num(h.margin)})
    return out


def _verdict(statement, lhs, rhs, exact, details, witness, certificate_exact, ball_prec=None):
    """The theorem's verdict: the inequality's own verdict (:func:`_inequality_verdict`) when
    every hypothesis holds; otherwise Inconclusive (the theorem claims nothing there), with
    ``details["inequality"]`` saying whether the inequality holds, is violated or is undecided
    at this instance (what ``pyfed tightness`` reports beyond the hypotheses)."""

    v = _inequality_verdict(statement, lhs, rhs, exact, details, witness, certificate_exact, ball_prec)
    v.details["inequality"] = v.status if v.status != "inconclusive" else "undecided"
    if details.get("hypotheses_hold", True):
        return v
    bad = [h["statement"] for h in details.get("hypotheses", []) if not h["holds"]]
    out = Inconclusive(statement, v.lhs, v.rhs, v.exact, v.details,
                       reason=(f"hypotheses fail ({'; '.join(bad)}): the theorem claims nothing here; "
                               f"the inequality itself {inequality_phrase(v.details['inequality'])} at this instance"))
    if getattr(v, "balls", None):
        out.balls = v.balls
    return out


def _inequality_verdict(statement, lhs, rhs, exact, details, witness, certificate_exact, ball_prec=None):
    """Holds / Violated / Inconclusive of lhs <= rhs from exact Fractions or arb balls."""
    import mpmath
    if exact:
        details = dict(details)
        details["lhs_exact"] = _num(lhs)
        details["rhs_exact"] = _num(rhs)
        details["ratio_exact"] = _num(lhs / rhs) if rhs > 0 else None
        details["margin_exact"] = _num(rhs - lhs)
        if lhs <= rhs:
            return Holds(statement, lhs, rhs, True, details, certificate=certificate_exact)
        return Violated(statement, lhs, rhs, True, details, witness=witness)
    margin = rhs - lhs
    ratio = lhs / rhs if rhs > 0 else None     # no ratio against a right side <= 0 (reports print "-")
    details = dict(details)
    details["lhs_ball"] = lhs.str(30, radius=True)
    details["rhs_ball"] = rhs.str(30, radius=True)
    details["margin_ball"] = margin.str(30, radius=True)
    details["ratio_ball"] = ratio.str(30, radius=True) if ratio is not None else None
    with mpmath.workdps(40):
        lm = mpmath.mpf(lhs.mid().str(45, radius=False)) if lhs.is_finite() else mpmath.inf
        rm = mpmath.mpf(rhs.mid().str(45, radius=False)) if rhs.is_finite() else mpmath.inf
    cert = f"certified ball arithmetic (python-flint arb, {ball_prec} bits): rhs - lhs = {details['margin_ball']}"
    # the balls themselves: reports print only the digits they certify (Verdict.to_json)
    balls = {"lhs": lhs, "rhs": rhs, "margin": margin, "ratio": ratio}
    if margin >= 0:
        v = Holds(statement, lm, rm, True, details, certificate=cert)
    elif margin < 0:
        v = Violated(statement, lm, rm, True, details, witness=witness)
    else:
        width = 2 * margin.rad()
        details["ball_width"] = float(width)
        v = Inconclusive(statement, lm, rm, False, details,
                         reason=f"the ball of rhs - lhs contains 0 (width {float(width):.3e}) at {ball_prec} bits")
    v.balls = balls
    return v


def _witness(problem, **params):
    w = {"problem": getattr(problem, "name", "quadratic"), "N": problem.N, "d": problem.d}
    for k, v in params.items():
        if v is None:
            w[k] = None
        elif isinstance(v, (list, tuple, np.ndarray)):
            w[k] = [[str(x) for x in row] if isinstance(row, (list, tuple, np.ndarray)) else str(row)
                    for row in (v.tolist() if isinstance(v, np.ndarray) else v)]
        else:
            w[k] = str(v)
    return w


def decide_convex(problem, sigma=None, *, S, K, T, eta_l, eta_g, c0=None, x0=None, mu=None,
                  arithmetic="auto", prec=None, sigma_sq=None):
    """Decide ``SCAFFOLD.ConvexFiniteRoundConvergence`` on a quadratic instance, exactly.

        weightedGap = (1/W_T) sum_{r<T} w_r E[f(x^r) - f*]  <=  V_0/(h W_T) + 12 h sigma^2/(K S) (1 + S/eta_g^2)

    The left side is computed by :func:`scaffold_run_moments` (seed-000 ``Run`` model with
    deterministic initial controls); w_r, W_T and the right side come from :mod:`pyfed.theory`
    with dist_sq = ||x0 - x*||^2 and C0 computed exactly.

    Parameters
    ----------
    problem : QuadraticProblem
    sigma : noise level (Sigma_i = (sigma^2/d) I); or give ``sigma_sq`` (keyword) = sigma^2
        instead (exactly one of the two): a rational sigma^2 with irrational sigma (sigma_sq = 2)
        keeps both sides exact rationals.
    S, K, T, eta_l, eta_g : the run's parameters (h = K eta_l eta_g); numbers may be exact
        rational strings such as ``"1/4"`` (as everywhere in pyfed).
    c0 : (N, d) or None
        Deterministic initial controls; None means the gradient-consistent initialisation
        c_i^0 = grad f_i(x0) (seed 002's stated initialisation).
    x0 : (d,) or None (zeros).
    mu : strong-convexity constant of the weights (default ``problem.mu``).
    arithmetic : "auto" | "exact" | "ball"
        auto: exact rationals when every input is rational and the instance is within
        :data:`EXACT_BUDGET`, certified balls otherwise, at the precision the horizon needs
        (:func:`_decide_in_balls`: a probe of the first PROBE_ROUNDS rounds measures how fast the
        balls lose relative precision on this instance and the run restarts at the predicted
        precision if 128 bits would not last to round T; an undecided result is repeated at
        twice the precision, up to MAX_PREC bits). ``details["precision"]`` records the model
        (loss rate, predicted loss, attempts).
    prec : int, optional
        Ball precision in bits, used as given (no model, no escalation).

    Returns
    -------
    pyfed.verdicts.Verdict
        Holds / Violated (exact=True, decided) or Inconclusive (a ball containing 0, with its
        width). ``details`` holds the exact lhs, rhs, margin and ratio (``"p/q"`` strings) or
        their balls, the hypotheses (:func:`pyfed.theory.convex_hypotheses`) and the per-round gaps.

    Source: seed 000, ``SCAFFOLD.ConvexFiniteRoundConvergence`` (Karimireddy et al., SCAFFOLD,
    arXiv:1910.06378v4, Appendix E.1, PDF pp. 30-31).
    """
    _check_quadratic(problem)
    N, d = problem.N, problem.d
    sigma, noise_cov, nkw, noise_value = _noise(problem, sigma, sigma_sq)
    N, S, K, T = _validate_round_args(problem, S, K, T, eta_l, eta_g, sigma, True)
    if T < 1:
        raise InputError("T", "the convex theorem needs T >= 1 rounds")
    mu = problem.mu if mu is None else mu
    check_nonnegative("mu", mu)
    rational = problem.exact and all(_is_rational(v) for v in [noise_value, eta_l, eta_g, mu]) and \
        (x0 is None or all_exact(np.asarray(x0, dtype=object).ravel().tolist())) and \
        (c0 is None or all_exact(np.asarray(c0, dtype=object).ravel().tolist()))
    n_state = d * (N + 1)
    hyps = theory.convex_hypotheses(N=N, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, beta=problem.beta,
                                    mu=mu, convexity=problem.convexity(mu), **nkw)
    witness = _witness(problem, **nkw, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, mu=mu, x0=x0, c0=c0)

    def details_of(F, res):
        return {"engine": "exact moments (pyfed.engines.exact)", "arithmetic": F.name,
                "model": "seed-000 Run (virtual paths, then sampling), deterministic c0",
                "c0": "grad f_i(x0)" if c0 is None else "given",
                "hypotheses": _hyp_json(hyps), "hypotheses_hold": all(h.holds for h in hyps),
                "gaps": [_short(g) for g in res.gaps]}

    def controls(F):
        with F.active():
            A, b = _problem_data(F, problem)
            x0v = _vector(F, "x0", x0, d)
            c0v = (np.array([A[i].dot(x0v) - b[i] for i in range(N)], dtype=object).reshape(N, d)
                   if c0 is None else _controls(F, "c0", c0, N, d))
        return x0v, c0v

    def moments(F, check=None):
        x0v, c0v = controls(F)
        return _sampled_round_moments(problem, sigma, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0v, c0=c0v,
                                      noise_cov=noise_cov, variant="run", field=F, warm_start=False,
                                      algorithm="scaffold_run", check=check)

    F = _pick_field(arithmetic, rational, n_state, T, prec or BASE_PREC)
    if F.exact:
        res = moments(F)
        c0v = controls(F)[1]
        details = details_of(F, res)
        xs = problem.x_star_exact
        x0f = [fraction_of(v) for v in (np.zeros(d, dtype=object) if x0 is None else np.asarray(x0, dtype=object).ravel())]
        x0f = [Fraction(0) if v is None else v for v in x0f]
        dist_sq = theory.squared_distance(x0f, xs)
        c0f = [[F.public(v) for v in row] for row in c0v]
        C0 = theory.initial_control_error(c0f, problem.grads_exact(xs))
        h = theory.effective_step(K, eta_l, eta_g)
        ws = theory.weights(T, mu, h)
        W = theory.weight_sum(T, mu, h)
        lhs = sum((w * g for w, g in zip(ws, res.gaps[:T])), Fraction(0)) / W
        rhs = theory.convex_rhs(dist_sq=dist_sq, C0=C0, N=N, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g,
                                mu=mu, **nkw)
        details.update(dist_sq=_num(dist_sq), C0=_num(C0))
        details["rhs_terms"] = _rhs_terms(lhs, rhs, theory.noise_term(1, S=S, K=K, eta_g=eta_g, h=h, **nkw), 12,
                                          "V0/(h W_T)")
        return _verdict("ConvexFiniteRoundConvergence", lhs, rhs, True, details, witness,
                        "exact rational arithmetic (python-flint fmpq_mat)")

    def ball_verdict(bits, res, info):
        F = BallField(bits)
        c0v = controls(F)[1]
        details = details_of(F, res)
        details["precision"] = dict(info, bits=bits)
        with F.active():
            A, b = _problem_data(F, problem)
            xs, _ = _minimiser(F, problem, A, b)
            x0v = _vector(F, "x0", x0, d)
            dist_sq = sum(((x0v[j] - xs[j]) ** 2 for j in range(d)), to_arb(0))
            gstar = [A[i].dot(xs) - b[i] for i in range(N)]
            C0 = sum(((c0v[i][j] - gstar[i][j]) ** 2 for i in range(N) for j in range(d)), to_arb(0)) / N
            el, eg, s, m = (to_arb(v) for v in (eta_l, eta_g, noise_value, mu))
            skw = {next(iter(nkw)): s}
            h = theory.effective_step(K, el, eg)
            ws, W = theory.weights(T, m, h), theory.weight_sum(T, m, h)
            lhs = to_arb(0)
            for w, g in zip(ws, res.gaps[:T]):
                lhs = lhs + w * g
            lhs = lhs / W
            rhs = theory.convex_rhs(dist_sq=dist_sq, C0=C0, N=N, S=S, K=K, T=T, eta_l=el, eta_g=eg,
                                    mu=m, **skw)
            return _verdict("ConvexFiniteRoundConvergence", lhs, rhs, False, details, witness, None, bits)

    return _decide_in_balls(lambda bits, check: moments(BallField(bits), check), lambda g, q: [g],
                            ball_verdict, T, prec)


def decide_nonconvex(problem, sigma=None, *, S, K, T, eta_l, eta_g, x0=None, arithmetic="auto", prec=None,
                     sigma_sq=None):
    """Decide ``SCAFFOLD.NonconvexFiniteRoundConvergence`` on a quadratic instance, exactly.

        averageGradientSq = (1/T) sum_{r<T} E||grad f(x^r)||^2
                         <= 14 (f(x0) - f_low)/(h T) + 70 beta h sigma^2/(K S) (1 + S/eta_g^2)

    with the K-sample warm start of the controls (seed 000 ``Run`` with ``none`` c0). The
    left side comes from :func:`scaffold_run_moments`; the right side from
    :func:`pyfed.theory.nonconvex_rhs` with f_gap = f(x0) - f_low (f_low = f* for a quadratic);
    hypotheses from :func:`pyfed.theory.nonconvex_hypotheses`. Parameters (including
    ``sigma_sq``), return value and arithmetic as in :func:`decide_convex`.

    Source: Karimireddy et al., SCAFFOLD, Appendix E.2, PDF p. 34, Lemma 19 (the constants 14 and 70),
    summed as in PDF pp. 31 and 35, eqs. (26)-(27).
    """
    _check_quadratic(problem)
    N, d = problem.N, problem.d
    sigma, noise_cov, nkw, noise_value = _noise(problem, sigma, sigma_sq)
    N, S, K, T = _validate_round_args(problem, S, K, T, eta_l, eta_g, sigma, True)
    if T < 1:
        raise InputError("T", "the nonconvex theorem needs T >= 1 rounds")
    rational = problem.exact and all(_is_rational(v) for v in [noise_value, eta_l, eta_g]) and \
        (x0 is None or all_exact(np.asarray(x0, dtype=object).ravel().tolist()))
    n_state = d * (N + 1)
    witness = _witness(problem, **nkw, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0)

    def moments(F, check=None):
        return _sampled_round_moments(problem, sigma, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=None,
                                      noise_cov=noise_cov, variant="run", field=F, warm_start=True,
                                      algorithm="scaffold_run", check=check)

    def common(F, res):
        with F.active():
            A, b = _problem_data(F, problem)
            xs, fstar = _minimiser(F, problem, A, b)
            x0v = _vector(F, "x0", x0, d)
            invN = F.scalar(Fraction(1, N))
            Abar, bbar = A.sum(axis=0) * invN, b.sum(axis=0) * invN
            fx0 = x0v.dot(Abar).dot(x0v) * F.scalar(Fraction(1, 2)) - bbar.dot(x0v) if d else F.scalar(0)
            f_gap = F.public(fx0 - fstar)
            fx0p, flow = F.public(fx0), F.public(fstar)
        hyps = theory.nonconvex_hypotheses(
            N=N, S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, beta=problem.beta, **nkw,
            f_low=flow if F.exact else float(flow.mid()), f_x0=fx0p if F.exact else float(fx0p.mid()),
            f_low_certificate=problem.derivations.get("f_low"))
        details = {"engine": "exact moments (pyfed.engines.exact)", "arithmetic": F.name,
                   "model": "seed-000 Run (virtual paths, then sampling), K-sample warm start",
                   "hypotheses": _hyp_json(hyps), "hypotheses_hold": all(h.holds for h in hyps),
                   "grad_sq": [_short(g) for g in res.grad_sq]}
        return f_gap, details

    F = _pick_field(arithmetic, rational, n_state, T, prec or BASE_PREC)
    if F.exact:
        res = moments(F)
        f_gap, details = common(F, res)
        lhs = sum(res.grad_sq[:T], Fraction(0)) / T
        rhs = theory.nonconvex_rhs(f_gap=f_gap, beta=problem.beta, S=S, K=K, T=T, eta_l=eta_l,
                                   eta_g=eta_g, **nkw)
        details["f_gap"] = _num(f_gap)
        h = theory.effective_step(K, eta_l, eta_g)
        details["rhs_terms"] = _rhs_terms(lhs, rhs, theory.noise_term(problem.beta, S=S, K=K, eta_g=eta_g, h=h, **nkw), 70,
                                          "14 (f(x0) - f_low)/(h T)")
        return _verdict("NonconvexFiniteRoundConvergence", lhs, rhs, True, details, witness,
                        "exact rational arithmetic (python-flint fmpq_mat)")

    def ball_verdict(bits, res, info):
        F = BallField(bits)
        f_gap, details = common(F, res)
        details["precision"] = dict(info, bits=bits)
        with F.active():
            lhs = to_arb(0)
            for g in res.grad_sq[:T]:
                lhs = lhs + g
            lhs = lhs / T
            el, eg, s = (to_arb(v) for v in (eta_l, eta_g, noise_value))
            skw = {next(iter(nkw)): s}
            rhs = theory.nonconvex_rhs(f_gap=f_gap, beta=to_arb(problem.beta), S=S, K=K, T=T, eta_l=el,
                                       eta_g=eg, **skw)
            return _verdict("NonconvexFiniteRoundConvergence", lhs, rhs, False, details, witness, None, bits)

    return _decide_in_balls(lambda bits, check: moments(BallField(bits), check), lambda g, q: [q],
                            ball_verdict, T, prec)
