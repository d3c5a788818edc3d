r"""Exact verdicts of the four FedAvg statements (Lean namespace ``FedAvg``) on quadratic instances.

* ``FedAvg.PerRoundProgress`` (Lemma 1) and ``FedAvg.BoundedClientDrift`` (Lemma 2) are
  *conditional* statements: inequalities between conditional expectations given F_{tτ}, almost
  surely. For FedAvg on quadratic clients the conditional law of round t given F_{tτ} depends
  only on the round start y = x̄^{t,0} (all clients start there; the noise is fresh), and not on
  t, so each side is a quadratic function of y: E[· | F_{tτ}] = ỹᵀ W ỹ with ỹ = (y, 1)
  (:mod:`pyfed.engines.exact.fedavg`). The margin rhs − lhs is then a quadratic form ỹᵀ G ỹ, and

      the lemma holds at *every* round start y ∈ R^d   ⇔   G is positive semidefinite,

  (ỹᵀGỹ ≥ 0 for all y with last entry 1 extends to all of R^{d+1} by scaling and continuity).
  This is **what is checked**: an exact symmetric elimination of G over ℚ. It covers every round
  start that any run can reach, for every round t < T and every history: round 0 starts at
  x₀, and x₀ ranges over R^d, so a negative margin at some y is a genuine counterexample (the
  instance with x₀ = y, t = 0); conversely a PSD margin proves the lemma on this instance (this
  problem, oracle law, τ, η, L, σ, ζ) for every x₀, t and history. A violation comes with an
  exact rational witness y (built from the elimination) at which lhs > rhs is re-checked
  exactly; a holding verdict reports the tightest round start y⋆ (the minimiser of the margin,
  from the same elimination), the minimum margin, the margin at x₀ and the smallest margin over
  the T round starts of the noiseless run from x₀ (the reachable starts when σ = 0; with σ > 0
  every round t ≥ 1 starts at a Gaussian point with full support, so every y is reachable).
* ``FedAvg.ConvexFedAvgConvergence`` (eq. (15)) and ``FedAvg.TunedConvexFedAvgConvergence``
  (eqs. (16)-(17)) are unconditional: E[A] from :func:`fedavg_shadow_moments`. The tuned step is
  irrational in general; then η is enclosed in a certified ball and the left side is computed in
  certified ball arithmetic (``arb_mat``), the right side too (exact algebraic value from
  :func:`pyfed.theory.optimized_rhs`, enclosed by :func:`pyfed.exact.to_arb`), with the precision
  raised until the sign of rhs − lhs is certified.

Problem hypotheses (the fields of the Lean ``FedAvg.Problem``), decided exactly for rational
data: every Fᵢ convex (A PSD), L-smooth (L I − Aᵢ PSD), the heterogeneity bound ζ² ≥ maxᵢ‖bᵢ − b̄‖²
(clients must share one Hessian, else :class:`pyfed.errors.InputError`: no finite ζ), and the
oracle's noise E‖ξᵢ‖² = tr Σᵢ ≤ σ².

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.2, PDF p. 41 (Lemma 1, Lemma 2, Theorem 1 eqs. (15)-(17)); Appendix D.1-D.2, PDF pp. 86-88.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...errors import InputError, check_int, check_nonnegative
from ...exact import all_exact, fraction_of, rational_str, to_arb, to_fraction
from ...theory import fedavg as th
from ...theory.hypotheses import Hypothesis
from ...verdicts import Holds, Inconclusive, Violated, inequality_phrase
from .arith import BallField, ExactField
from .fedavg import check_noise_cov_shape, round_forms_in_field, shadow_moments_from_forms
from .model import _check_quadratic, _minimiser, _problem_data

__all__ = ["FedAvgSetup", "fedavg_setup", "decide_per_round_progress", "decide_bounded_client_drift",
           "decide_convex_fedavg", "decide_tuned_convex_fedavg", "psd_margin", "STATEMENTS"]

PROGRESS = "FedAvg.PerRoundProgress"
DRIFT = "FedAvg.BoundedClientDrift"
CONVEX = "FedAvg.ConvexFedAvgConvergence"
TUNED = "FedAvg.TunedConvexFedAvgConvergence"
STATEMENTS = (PROGRESS, DRIFT, CONVEX, TUNED)

_PREC_LADDER = (128, 256, 512, 1024, 2048)
_CHECKED = ("every round start y in R^d (the margin rhs - lhs is a quadratic form in (y, 1), decided "
            "positive semidefinite by exact rational elimination): every x0, every round t < T, every history")


def _s(v):
    return rational_str(v) if isinstance(v, (Fraction, int)) else str(v)


# --------------------------------------------------------------------------- setup

@dataclass
class FedAvgSetup:
    """A validated FedAvg instance of the Lean model: problem, constants, run parameters.

    Attributes
    ----------
    problem : QuadraticProblem (clients share one Hessian)
    M, d, tau, T : int
    eta : the step (Fraction, float, or sympy expression for the tuned step)
    L : smoothness constant of the Lean Problem (default: the problem's certified beta)
    sigma_sq : σ² of the Lean Problem (E‖ξ‖² ≤ σ²)
    zeta_sq : ζ² of the Lean Problem (default: the exact maxᵢ‖bᵢ − b̄‖²)
    noise_cov : per-client oracle covariance, or None for (σ²/d) I
    x0 : list of d exact rationals (or floats)
    x_star : list of d Fractions (certified arb balls for float data);  dist_sq : ‖x₀ − x⋆‖² (likewise)
    heterogeneity : pyfed.problems.heterogeneity.Heterogeneity
    hypotheses : list of Hypothesis (problem hypotheses; statement hypotheses are added per statement)
    rational : bool (every input exact)
    """

    problem: object
    M: int
    d: int
    tau: int
    T: int
    eta: object
    L: object
    sigma: object
    sigma_sq: object
    zeta_sq: object
    noise_cov: object
    x0: list
    x_star: list
    dist_sq: object
    heterogeneity: object
    hypotheses: list = field(default_factory=list)
    rational: bool = True

    def witness(self, **extra) -> dict:
        """JSON-ready description reproducing the instance (exact numbers as "p/q")."""
        p = self.problem
        w = {"problem": getattr(p, "name", "quadratic"), "M": self.M, "d": self.d, "tau": self.tau, "T": self.T,
             "eta": _s(self.eta), "L": _s(self.L), "sigma_sq": _s(self.sigma_sq), "zeta_sq": _s(self.zeta_sq),
             "x0": [_s(v) for v in self.x0]}
        if getattr(p, "exact", False):
            w["A"] = [[_s(v) for v in row] for row in p.A_exact[0]]
            w["b"] = [[_s(v) for v in row] for row in p.b_exact]
        w.update(extra)
        return w


def _psd_exact_fractions(M) -> bool:
    from ...problems.quadratic import is_psd_exact
    return is_psd_exact(M)


def fedavg_setup(problem, sigma=0, *, tau, T=1, eta, x0=None, L=None, zeta_sq=None, noise_cov=None) -> FedAvgSetup:
    """Validate an instance and evaluate the problem hypotheses of the Lean ``FedAvg.Problem``.

    Parameters
    ----------
    problem : QuadraticProblem
        M clients sharing one Hessian (different Hessians: InputError ``A``, no finite ζ).
    sigma : scalar >= 0
        σ of the Lean Problem; the oracle noise is (σ²/d) I unless ``noise_cov`` is given (then
        its trace must be <= σ², a reported hypothesis).
    tau, T : int >= 1;  eta : step > 0 (validated per statement)
    x0 : (d,) or None (zeros)
    L : smoothness constant (default ``problem.beta``; hypothesis L I − Aᵢ PSD decided exactly)
    zeta_sq : ζ² (default the exact smallest valid value maxᵢ ‖bᵢ − b̄‖²)
    noise_cov : (d, d) or (M, d, d), optional

    Raises
    ------
    InputError
        Non-quadratic problem, clients with different Hessians, bad tau/T/sigma/x0/noise_cov shapes.
    """
    from ...problems.heterogeneity import quadratic_heterogeneity

    _check_quadratic(problem)
    tau = check_int("tau", tau, minimum=1)
    T = check_int("T", T, minimum=1)
    check_nonnegative("sigma", sigma)
    check_noise_cov_shape(problem, noise_cov)
    het = quadratic_heterogeneity(problem)   # InputError("A", ...) for different Hessians
    M, d = problem.N, problem.d
    x0v = [Fraction(0)] * d if x0 is None else list(np.asarray(x0, dtype=object).ravel())
    if len(x0v) != d:
        raise InputError("x0", f"must have shape ({d},), got {np.asarray(x0, dtype=object).shape}")
    x0v = [to_fraction(v) if to_fraction(v) is not None else v for v in x0v]
    L = problem.beta if L is None else L
    zeta_sq = het.zeta_sq if zeta_sq is None else zeta_sq
    sf = to_fraction(sigma)
    sigma_sq = sf * sf if sf is not None else sigma * sigma
    rational = (problem.exact and all_exact([sigma, L, zeta_sq]) and all_exact(x0v)
                and (noise_cov is None or all_exact(np.asarray(noise_cov, dtype=object).ravel().tolist())))
    if problem.exact:
        xs = [Fraction(v) for v in problem.x_star_exact]
        dist_sq = sum(((Fraction(a) if to_fraction(a) is not None else Fraction(float(a))) - b) ** 2
                      for a, b in zip(x0v, xs)) if d else Fraction(0)
    else:   # float data: x* by a certified ball solve (never the float solve), D^2 a ball
        Fb = BallField(256)
        with Fb.active():
            A_, b_ = _problem_data(Fb, problem)
            xs, _ = _minimiser(Fb, problem, A_, b_)
            xs = list(xs)
            dist_sq = sum(((to_arb(a) - c) ** 2 for a, c in zip(x0v, xs)), to_arb(0))
    hyps = []
    if problem.exact:
        A0 = problem.A_exact[0]
        Lf = to_fraction(L)
        conv = _psd_exact_fractions(A0)
        hyps.append(Hypothesis("convexity", "every F_i convex (shared Hessian A PSD)", conv, Fraction(0) if conv else None))
        if Lf is not None:
            I = np.eye(d, dtype=object)
            smooth = _psd_exact_fractions(Lf * I - A0)
            margin = (Lf - problem.beta) if Lf >= problem.beta else (Fraction(0) if smooth else None)
            hyps.append(Hypothesis("smooth", "every F_i L-smooth (L I - A PSD)", smooth, margin))
        else:
            hyps.append(Hypothesis("smooth", "every F_i L-smooth (L >= certified beta)", float(L) >= float(problem.beta),
                                   float(L) - float(problem.beta)))
    else:
        hyps.append(Hypothesis("convexity", "every F_i convex (certified mu >= 0)", problem.mu is not None and problem.mu >= 0, problem.mu))
        hyps.append(Hypothesis("smooth", "every F_i L-smooth (L >= certified beta)", float(L) >= float(problem.beta),
                               float(L) - float(problem.beta)))
    zf = to_fraction(zeta_sq)
    zmargin = (zf - het.zeta_sq) if zf is not None else float(zeta_sq) - float(het.zeta_sq)
    hyps.append(Hypothesis("heterogeneity", "||grad F_i - grad F|| <= zeta (zeta^2 >= max_i ||b_i - mean b||^2)",
                           bool(zmargin >= 0), zmargin))
    if noise_cov is not None:
        C = np.asarray(noise_cov, dtype=object)
        C = np.array([C] * M, dtype=object) if C.shape == (d, d) else C
        traces = [sum((fraction_of(C[i, j, j]) or Fraction(float(C[i, j, j])) for j in range(d)), Fraction(0))
                  for i in range(M)]
        s2 = to_fraction(sigma_sq) if to_fraction(sigma_sq) is not None else Fraction(float(sigma_sq))
        nm = s2 - max(traces)
        hyps.append(Hypothesis("noise", "E||xi_i||^2 = tr Sigma_i <= sigma^2", bool(nm >= 0), nm))
    return FedAvgSetup(problem=problem, M=M, d=d, tau=tau, T=T, eta=eta, L=L, sigma=sigma, sigma_sq=sigma_sq,
                       zeta_sq=zeta_sq, noise_cov=noise_cov, x0=x0v, x_star=xs, dist_sq=dist_sq,
                       heterogeneity=het, hypotheses=hyps, rational=rational)


def _hyp_json(hyps):
    return [{"key": h.key, "statement": h.statement, "holds": bool(h.holds),
             "margin": None if h.margin is None else _s(h.margin) if isinstance(h.margin, Fraction) else str(h.margin)}
            for h in hyps]


def _statement_hypotheses(setup: FedAvgSetup, extra=()):
    hs = th.fedavg_hypotheses(M=setup.M, tau=setup.tau, T=setup.T, eta=setup.eta, L=setup.L,
                              sigma_sq=setup.sigma_sq, zeta_sq=setup.zeta_sq)
    return list(hs) + list(setup.hypotheses) + list(extra)


def _beyond(statement, verdict, hyps, gate=True):
    """A verdict with failing hypotheses becomes Inconclusive (the statement claims nothing),
    unless ``gate`` is False (the inequality's own verdict: checkers searching beyond a
    hypothesis, ``--relax``)."""
    bad = [h.statement for h in hyps if not h.holds]
    status = verdict.status if verdict.status != "inconclusive" else "undecided"
    verdict.details["inequality"] = status
    if not bad or not gate:
        return verdict
    return Inconclusive(statement, verdict.lhs, verdict.rhs, verdict.exact, verdict.details,
                        reason=(f"hypotheses fail ({'; '.join(bad)}): the statement claims nothing here; "
                                f"the inequality itself {inequality_phrase(status)} at this instance"))


# --------------------------------------------------------------------------- PSD margins

def _frac_matrix(W):
    n = W.nrows()
    return [[Fraction(int(W[i, j].p), int(W[i, j].q)) for j in range(n)] for i in range(n)]


def psd_margin(G):
    """Exact minimisation of the quadratic ỹᵀGỹ over y ∈ R^d (ỹ = (y, 1); G (d+1)x(d+1) rational
    symmetric, a list of lists of Fractions) by symmetric elimination of y₁..y_d.

    Returns ``("bounded", min_value, y_star)`` when the y-block is PSD on the relevant subspace
    (then G is PSD iff min_value >= 0; y_star attains it), or ``("unbounded", None, y)`` with a
    rational y at which ỹᵀGỹ < 0 (the form is unbounded below).
    """
    n = len(G)
    d = n - 1
    S = [row[:] for row in G]
    pivots = []                     # (index, pivot, row of multipliers) in elimination order
    free = []
    for k in range(d):
        p = S[k][k]
        others = [l for l in range(k + 1, n) if S[k][l] != 0]
        if p > 0:
            mult = {l: S[k][l] / p for l in range(k + 1, n)}
            for a in range(k + 1, n):
                if S[a][k] == 0:
                    continue
                f = S[a][k] / p
                for c in range(k + 1, n):
                    S[a][c] -= f * S[k][c]
            for a in range(k + 1, n):
                S[a][k] = Fraction(0)
                S[k][a] = Fraction(0)
            pivots.append((k, p, mult))
            continue
        if p == 0 and not others:
            free.append(k)
            continue
        # unbounded below: build a direction in the remaining variables, then back-substitute
        rem = {l: Fraction(0) for l in range(k, d)}

        def value(rem_vals):
            v = [rem_vals.get(l, Fraction(0)) for l in range(d)] + [Fraction(1)]
            total = Fraction(0)
            for a in range(k, n):
                for c in range(k, n):
                    total += v[a] * S[a][c] * v[c]
            return total
        s = Fraction(1)
        for _ in range(400):
            if p < 0:
                rem = {k: s}
            else:
                ys = [l for l in others if l < d]
                if ys:
                    l = ys[0]
                    sign = 1 if S[k][l] < 0 else -1
                    rem = {k: sign * s, l: Fraction(1)}
                else:
                    sign = -1 if S[k][d] > 0 else 1
                    rem = {k: sign * s}
            if value(rem) < 0:
                break
            s *= 2
        y = [rem.get(l, Fraction(0)) for l in range(d)]
        _back_substitute(y, pivots)
        return "unbounded", None, y
    y = [Fraction(0)] * d
    _back_substitute(y, pivots)
    return "bounded", S[d][d], y


def _back_substitute(y, pivots):
    """Set each eliminated variable to zero its square: y_k = -Σ_{l>k} m_kl ỹ_l (reverse order)."""
    d = len(y)
    for k, _, mult in reversed(pivots):
        y[k] = -sum((mult[l] * (y[l] if l < d else Fraction(1)) for l in mult), Fraction(0))


def _gval(G, y):
    v = list(y) + [Fraction(1)]
    n = len(v)
    return sum((v[a] * G[a][c] * v[c] for a in range(n) for c in range(n)), Fraction(0))


# --------------------------------------------------------------------------- Lemma 1

def _exact_forms(setup, sigma_oracle=None):
    if not setup.rational or to_fraction(setup.eta) is None:
        raise InputError("arithmetic", "the conditional FedAvg lemmas are decided at every round start only in exact "
                                       "rational arithmetic: pass rational data, eta, sigma, L, zeta^2 and x0 "
                                       "(Fraction or 'p/q')")
    F = ExactField()
    return F, round_forms_in_field(F, setup.problem, setup.sigma if sigma_oracle is None else sigma_oracle,
                                   tau=setup.tau, eta=setup.eta, noise_cov=setup.noise_cov)


def _check_eta(eta):
    if to_fraction(eta) is None:
        check_nonnegative("eta", eta)
    elif to_fraction(eta) <= 0:
        raise InputError("eta", f"must be > 0, got {eta!r}")


def decide_per_round_progress(problem, sigma=0, *, tau, eta, T=1, x0=None, L=None, zeta_sq=None, noise_cov=None,
                              rhs_sigma_sq=None, setup=None, gate=True):
    """Decide ``FedAvg.PerRoundProgress`` (Lemma 1) on a quadratic instance at *every* round start.

        E[A_t | F_{tτ}] <= (‖x̄^{t,0} − x⋆‖² − E[‖x̄^{t,τ} − x⋆‖² | F_{tτ}])/(2ητ) + ησ²/M
                          + L/(Mτ) Σᵢ Σ_{k<τ} E[‖xᵢ^{t,k} − x̄^{t,k}‖² | F_{tτ}]

    What is checked: see the module docstring (exact PSD test of the margin as a quadratic form
    in the round start; equivalent to the lemma for every x₀, t and history on this instance).
    The right side's coefficients come from :func:`pyfed.theory.progress_rhs` (the one place of
    the formula: the form is its affine image, and its value at every reported start is
    recomputed by the theory function and must agree exactly).

    Parameters: as :func:`fedavg_setup`; ``rhs_sigma_sq`` evaluates the right side with another σ²
    (used by mutation tests; the oracle keeps σ). Returns a :class:`pyfed.verdicts.Verdict`:
    Holds (exact; lhs, rhs at the tightest start), Violated (exact, with the witness start y),
    or Inconclusive when a hypothesis fails (``details["inequality"]`` says what the inequality
    does there).

    Source: Field Guide, Section 6.1.2, PDF p. 41, Lemma 1; Appendix D.1, PDF pp. 86-87.
    """
    setup = setup or fedavg_setup(problem, sigma, tau=tau, T=T, eta=eta, x0=x0, L=L, zeta_sq=zeta_sq,
                                  noise_cov=noise_cov)
    _check_eta(setup.eta)
    hyps = _statement_hypotheses(setup)
    F, forms = _exact_forms(setup)
    s2 = setup.sigma_sq if rhs_sigma_sq is None else rhs_sigma_sq
    M, tau_, eta_ = setup.M, setup.tau, setup.eta
    # the right side is affine in (start, end, drift_sum): coefficients from pyfed.theory
    kw = dict(M=M, tau=tau_, eta=eta_, L=setup.L, sigma_sq=s2)
    c0 = th.progress_rhs(start_dist_sq=0, end_dist_sq=0, drift_sum=0, **kw)
    c_start = th.progress_rhs(start_dist_sq=1, end_dist_sq=0, drift_sum=0, **kw) - c0
    c_end = th.progress_rhs(start_dist_sq=0, end_dist_sq=1, drift_sum=0, **kw) - c0
    c_drift = th.progress_rhs(start_dist_sq=0, end_dist_sq=0, drift_sum=1, **kw) - c0
    n = setup.d + 1
    q = F.scalar
    lhs_form = F.mat(n, n)
    for W in forms.gap[1:]:
        lhs_form = lhs_form + W
    lhs_form = lhs_form * q(Fraction(1, tau_))
    drift_form = F.mat(n, n)
    for k in range(tau_):
        for W in forms.drift[k]:
            drift_form = drift_form + W
    const = F.mat(n, n)
    const[n - 1, n - 1] = q(c0)
    rhs_form = (forms.shadow_dist_sq[0] * q(c_start) + forms.shadow_dist_sq[tau_] * q(c_end)
                + drift_form * q(c_drift) + const)
    G = _frac_matrix(rhs_form - lhs_form)
    Lf = _frac_matrix(lhs_form)
    Df, D0, Dt = _frac_matrix(drift_form), _frac_matrix(forms.shadow_dist_sq[0]), _frac_matrix(forms.shadow_dist_sq[tau_])

    def sides(y):
        lhs = _gval(Lf, y)
        rhs = th.progress_rhs(start_dist_sq=_gval(D0, y), end_dist_sq=_gval(Dt, y), drift_sum=_gval(Df, y), **kw)
        if rhs - lhs != _gval(G, y):  # the form and the theory function must agree exactly
            raise AssertionError("PerRoundProgress: margin form disagrees with pyfed.theory.progress_rhs")
        return lhs, rhs

    return _conditional_verdict(PROGRESS, setup, hyps, [("round", G, sides)], s2, gate=gate, forms=forms)


def _noiseless_starts(setup, forms):
    """The round starts of the noiseless run from x0: y_{t+1} = B_tau y_t (t < T), exact. They are
    the reachable round starts when sigma = 0 (with sigma > 0 every round t >= 1 starts at a
    Gaussian point with full support, so every y is reachable)."""
    B = _frac_matrix(forms.mean_map)
    d = setup.d
    y = [Fraction(v) for v in setup.x0] + [Fraction(1)]
    out = []
    for _ in range(setup.T):
        out.append(y[:d])
        y = [sum((B[r][c] * y[c] for c in range(d + 1)), Fraction(0)) for r in range(d + 1)]
    return out


def _conditional_verdict(statement, setup, hyps, margins, s2, extra_details=None, gate=True, forms=None):
    """Decide a list of (label, margin form G, sides(y) -> (lhs, rhs)) at every round start."""
    details = {"engine": "exact moments (pyfed.engines.exact.fedavg)", "arithmetic": ExactField().name,
               "model": "FedAvg full participation, Gaussian-law oracle; conditional on F_{t tau} = round start y",
               "checked": _CHECKED, "hypotheses": _hyp_json(hyps), "hypotheses_hold": all(h.holds for h in hyps),
               "rhs_sigma_sq": _s(s2)}
    details.update(extra_details or {})
    if forms is not None:
        reached = _noiseless_starts(setup, forms)
        details["margin_at_noiseless_round_starts"] = _s(min(_gval(Gm, y) for _, Gm, _ in margins for y in reached))
        details["noiseless_round_starts"] = len(reached)
    worst = None
    for label, G, sides in margins:
        kind, mval, y = psd_margin(G)
        if kind == "unbounded" or mval < 0:
            lhs, rhs = sides(y)
            assert lhs > rhs
            details.update(witness_start=[_s(v) for v in y], witness_label=label,
                           lhs_exact=_s(lhs), rhs_exact=_s(rhs), margin_exact=_s(rhs - lhs),
                           margin_at_x0=_s(_gval(G, setup.x0)) if setup.rational else None)
            v = Violated(statement, lhs, rhs, True, details,
                         witness=setup.witness(round_start=[_s(v) for v in y], at=label,
                                               note="x0 = round_start gives a run violating the statement at t = 0"))
            return _beyond(statement, v, hyps, gate)
        if worst is None or mval < worst[1]:
            worst = (label, mval, y, G, sides)
    label, mval, y, G, sides = worst
    lhs, rhs = sides(y)
    details.update(tightest_start=[_s(v) for v in y], tightest_label=label, min_margin=_s(mval),
                   lhs_exact=_s(lhs), rhs_exact=_s(rhs), margin_exact=_s(rhs - lhs),
                   margin_at_x0=_s(min(_gval(Gm, setup.x0) for _, Gm, _ in margins)))
    v = Holds(statement, lhs, rhs, True, details,
              certificate=("exact rational arithmetic: rhs - lhs is a positive semidefinite quadratic form in the "
                           "round start (holds at every round start y; lhs, rhs shown at the tightest one)"))
    return _beyond(statement, v, hyps, gate)


# --------------------------------------------------------------------------- Lemma 2

def decide_bounded_client_drift(problem, sigma=0, *, tau, eta, T=1, x0=None, L=None, zeta_sq=None, noise_cov=None,
                                rhs_sigma_sq=None, rhs_zeta_sq=None, setup=None, gate=True):
    """Decide ``FedAvg.BoundedClientDrift`` (Lemma 2) for every client i, local step k <= τ and
    round start y:

        E[‖xᵢ^{t,k} − x̄^{t,k}‖² | F_{tτ}] <= 18 τ² η² ζ² + 4 τ η² σ²   (``driftRHS P τ η``)

    Checked as :func:`decide_per_round_progress` (one PSD test per (i, k)); the verdict's lhs/rhs
    are those of the tightest (i, k, y). ``rhs_sigma_sq``/``rhs_zeta_sq`` evaluate the right
    side with other constants (mutation tests).

    Source: Field Guide, Section 6.1.2, PDF p. 41, Lemma 2; Appendix D.2, PDF pp. 87-88.
    """
    setup = setup or fedavg_setup(problem, sigma, tau=tau, T=T, eta=eta, x0=x0, L=L, zeta_sq=zeta_sq,
                                  noise_cov=noise_cov)
    _check_eta(setup.eta)
    hyps = _statement_hypotheses(setup)
    F, forms = _exact_forms(setup)
    s2 = setup.sigma_sq if rhs_sigma_sq is None else rhs_sigma_sq
    z2 = setup.zeta_sq if rhs_zeta_sq is None else rhs_zeta_sq
    bound = th.drift_rhs(setup.tau, setup.eta, sigma_sq=s2, zeta_sq=z2)
    margins = []
    for k in range(setup.tau + 1):
        for i in range(setup.M):
            Wf = _frac_matrix(forms.drift[k][i])
            G = [row[:] for row in Wf]
            G = [[-v for v in row] for row in G]
            G[-1][-1] += bound

            def sides(y, Wf=Wf):
                return _gval(Wf, y), bound
            margins.append((f"client {i}, local step k={k}", G, sides))
    terms = {"18 tau^2 eta^2 zeta^2": _s(th.drift_rhs(setup.tau, setup.eta, sigma_sq=0, zeta_sq=z2)),
             "4 tau eta^2 sigma^2": _s(th.drift_rhs(setup.tau, setup.eta, sigma_sq=s2, zeta_sq=0))}
    return _conditional_verdict(DRIFT, setup, hyps, margins, s2, {"rhs_terms": terms, "rhs_zeta_sq": _s(z2)},
                                forms=forms,
                                gate=gate)


# --------------------------------------------------------------------------- Theorem 1

def _ball_verdict(statement, lhs, rhs, details, witness, bits):
    margin = rhs - lhs
    details = dict(details)
    details.update(lhs_ball=lhs.str(30, radius=True), rhs_ball=rhs.str(30, radius=True),
                   margin_ball=margin.str(30, radius=True))
    lm, rm = float(lhs.mid()), float(rhs.mid())
    cert = f"certified ball arithmetic (python-flint arb, {bits} bits): rhs - lhs = {details['margin_ball']}"
    if margin > 0 or (margin >= 0 and not margin < 0 and margin.rad() == 0):
        return Holds(statement, lm, rm, True, details, certificate=cert)
    if margin < 0:
        return Violated(statement, lm, rm, True, details, witness=witness)
    return Inconclusive(statement, lm, rm, False, details,
                        reason=f"the ball of rhs - lhs contains 0 (width {float(2 * margin.rad()):.3e}) at {bits} bits")


def _exact_verdict(statement, lhs, rhs, details, witness):
    details = dict(details)
    details.update(lhs_exact=_s(lhs), rhs_exact=_s(rhs), margin_exact=_s(rhs - lhs),
                   ratio_exact=_s(lhs / rhs) if rhs != 0 else None)
    if lhs <= rhs:
        return Holds(statement, lhs, rhs, True, details, certificate="exact rational arithmetic (python-flint fmpq_mat)")
    return Violated(statement, lhs, rhs, True, details, witness=witness)


def _moments(setup, F):
    with F.active():
        x0 = [F.scalar(v) for v in setup.x0]
    forms = round_forms_in_field(F, setup.problem, setup.sigma, tau=setup.tau, eta=setup.eta,
                                 noise_cov=setup.noise_cov)
    return shadow_moments_from_forms(forms, x0, setup.T)


def decide_convex_fedavg(problem, sigma=0, *, tau, T, eta, x0=None, L=None, zeta_sq=None, noise_cov=None,
                         rhs_sigma_sq=None, rhs_zeta_sq=None, setup=None, prec=None, gate=True):
    """Decide ``FedAvg.ConvexFedAvgConvergence`` (Theorem 1, eq. (15)) on a quadratic instance:

        E[A] <= D²/(2ητT) + ησ²/M + 4τη²Lσ² + 18τ²η²Lζ²   (``convergenceRHS P τ T η``)

    with E[A] exact (:func:`fedavg_shadow_moments`); exact rationals when every input is
    rational, certified balls otherwise. Returns a Verdict whose details hold both sides, the
    per-round E[A_t], the terms of the right side and the hypotheses.

    Source: Field Guide, Section 6.1.2, PDF p. 41, Theorem 1, equation (15).
    """
    setup = setup or fedavg_setup(problem, sigma, tau=tau, T=T, eta=eta, x0=x0, L=L, zeta_sq=zeta_sq,
                                  noise_cov=noise_cov)
    _check_eta(setup.eta)
    hyps = _statement_hypotheses(setup)
    s2 = setup.sigma_sq if rhs_sigma_sq is None else rhs_sigma_sq
    z2 = setup.zeta_sq if rhs_zeta_sq is None else rhs_zeta_sq
    kw = dict(dist_sq=setup.dist_sq, M=setup.M, tau=setup.tau, T=setup.T, eta=setup.eta, L=setup.L)
    details = {"engine": "exact moments (pyfed.engines.exact.fedavg)",
               "model": "FedAvg full participation, Gaussian-law oracle", "dist_sq": _s(setup.dist_sq),
               "zeta_sq": _s(z2), "zeta_derivation": setup.heterogeneity.derivation,
               "hypotheses": _hyp_json(hyps), "hypotheses_hold": all(h.holds for h in hyps)}
    witness = setup.witness()
    rational = setup.rational and to_fraction(setup.eta) is not None
    if rational:
        m = _moments(setup, ExactField())
        rhs = th.convergence_rhs(sigma_sq=s2, zeta_sq=z2, **kw)
        details.update(arithmetic=ExactField().name, round_loss=[_s(v) for v in m.round_loss],
                       rhs_terms=_convergence_terms(kw, s2, z2))
        return _beyond(CONVEX, _exact_verdict(CONVEX, m.avg_loss, rhs, details, witness), hyps, gate)
    v = None
    for bits in ([prec] if prec else _PREC_LADDER):
        F = BallField(bits)
        m = _moments(setup, F)
        with F.active():
            rhs = th.convergence_rhs(sigma_sq=to_arb(s2), zeta_sq=to_arb(z2), **{**kw, "eta": to_arb(setup.eta),
                                                                               "dist_sq": to_arb(setup.dist_sq),
                                                                               "L": to_arb(setup.L)})
            v = _ball_verdict(CONVEX, m.avg_loss, rhs, dict(details, arithmetic=F.name), witness, bits)
        if v.status != "inconclusive":
            break
    return _beyond(CONVEX, v, hyps, gate)


def _convergence_terms(kw, s2, z2):
    first = th.convergence_rhs(sigma_sq=0, zeta_sq=0, **kw)
    noise = th.convergence_rhs(sigma_sq=s2, zeta_sq=0, **kw) - first
    het = th.convergence_rhs(sigma_sq=0, zeta_sq=z2, **kw) - first
    return {"D^2/(2 eta tau T)": _s(first), "eta sigma^2/M + 4 tau eta^2 L sigma^2": _s(noise),
            "18 tau^2 eta^2 L zeta^2": _s(het)}


def decide_tuned_convex_fedavg(problem, sigma, *, tau, T, x0=None, L=None, zeta_sq=None, noise_cov=None,
                               step=None, rhs=None, setup=None, prec=None, gate=True):
    """Decide ``FedAvg.TunedConvexFedAvgConvergence`` (Theorem 1, eqs. (16)-(17)):

        with η = optimizedStep P τ T (eq. (16)):   E[A] <= optimizedRHS P τ T (eq. (17))

    η and the right side come from :func:`pyfed.theory.optimized_step` /
    :func:`pyfed.theory.optimized_rhs` (the minimising term of eq. (16) decided exactly). When η
    is rational the left side is exact and the right side is compared in certified balls (it is a
    sum of radicals) unless it is rational too; when η is irrational both sides are certified
    balls, with the precision raised until the sign of rhs − lhs is certified. ``step`` / ``rhs``
    override η and the right side (mutation tests).

    Hypotheses: M >= 1, 0 < τ, 0 < T, L > 0, D > 0, σ > 0, ζ > 0, plus the problem hypotheses.

    Source: Field Guide, Section 6.1.2, PDF p. 41, Theorem 1, equations (16)-(17).
    """
    if x0 is None and setup is None:
        raise InputError("x0", "the tuned statement needs D = ||x0 - x*|| > 0: give x0")
    setup = setup or fedavg_setup(problem, sigma, tau=tau, T=T, eta=1, x0=x0, L=L, zeta_sq=zeta_sq,
                                  noise_cov=noise_cov)
    tk = dict(dist_sq=setup.dist_sq, M=setup.M, tau=setup.tau, T=setup.T, L=setup.L, sigma_sq=setup.sigma_sq,
              zeta_sq=setup.zeta_sq)
    hyps = list(th.tuned_hypotheses(**tk)) + list(setup.hypotheses)
    details = {"engine": "exact moments (pyfed.engines.exact.fedavg)",
               "model": "FedAvg full participation, Gaussian-law oracle, tuned step", "dist_sq": _s(setup.dist_sq),
               "zeta_sq": _s(setup.zeta_sq), "hypotheses": _hyp_json(hyps),
               "hypotheses_hold": all(h.holds for h in hyps)}
    if not all(h.holds for h in hyps if h.key in ("distance", "sigma", "zeta", "smoothness", "local_steps",
                                                   "rounds", "clients")):
        bad = [h.statement for h in hyps if not h.holds]
        return Inconclusive(TUNED, details=details,
                            reason=f"hypotheses fail ({'; '.join(bad)}): the tuned step (eq. (16)) is undefined here")
    if step is None:
        choice = th.optimized_step_choice(**tk)
        step = th.optimized_step(**tk)
        details["step_choice"] = th.optimized_step_candidates(**tk)[choice].statement
    if rhs is None:
        rhs = th.optimized_rhs(**tk)
    details["step"] = _s(step)
    details["rhs_exact_form"] = str(rhs)
    setup.eta = step
    witness = setup.witness()
    step_f, rhs_f = to_fraction(step), to_fraction(rhs)
    if setup.rational and step_f is not None and rhs_f is not None:
        m = _moments(setup, ExactField())
        details.update(arithmetic=ExactField().name, round_loss=[_s(v) for v in m.round_loss])
        return _beyond(TUNED, _exact_verdict(TUNED, m.avg_loss, rhs_f, details, witness), hyps, gate)
    v = None
    for bits in ([prec] if prec else _PREC_LADDER):
        F = BallField(bits)
        m = _moments(setup, F)
        with F.active():
            rb = to_arb(rhs)
            v = _ball_verdict(TUNED, m.avg_loss, rb, dict(details, arithmetic=F.name), witness, bits)
        if v.status != "inconclusive":
            break
    return _beyond(TUNED, v, hyps, gate)
