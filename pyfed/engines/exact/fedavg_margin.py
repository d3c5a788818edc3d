r"""Exact pieces of the FedAvg engines on rational quadratic clients sharing one Hessian.

* :func:`fedavg_setup` -- a validated instance of the Lean ``FedAvg.Problem`` with the problem's
  hypotheses decided exactly for rational data: every Fᵢ convex (A PSD), L-smooth (L I − A PSD),
  the heterogeneity bound ζ² ≥ maxᵢ‖bᵢ − b̄‖² (clients must share one Hessian, else
  :class:`pyfed.errors.InputError`: no finite ζ), and the oracle's noise E‖ξᵢ‖² = tr Σᵢ ≤ σ².
* :func:`psd_margin` -- the exact minimum of a quadratic form ỹᵀGỹ over y ∈ R^d (ỹ = (y, 1)) by
  symmetric elimination, with a rational witness y where the form is negative. For FedAvg on
  quadratic clients every conditional statistic given the start of a round is such a form in
  the round start y (:mod:`pyfed.engines.exact.fedavg`), so a margin rhs − lhs that is a form G
  holds at *every* round start iff G is positive semidefinite (ỹᵀGỹ ≥ 0 for all y with last
  entry 1 extends to all of R^{d+1} by scaling and continuity).
* :func:`frac_matrix`, :func:`form_at`, :func:`noiseless_starts` -- forms as Fractions, a form's
  value at a start, the round starts of the noiseless run.

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.2, PDF p. 41; Lean model ``lean/Pyfed/FedAvg/Model.lean``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...errors import InputError, check_int, check_nonnegative
from ...exact import all_exact, fraction_of, rational_str, to_arb, to_fraction
from ...problems.heterogeneity import quadratic_heterogeneity
from ...problems.quadratic import is_psd_exact
from ...theory.hypotheses import Hypothesis
from .arith import BallField
from .fedavg import check_noise_cov_shape
from .model import _check_quadratic, _minimiser, _problem_data

__all__ = ["FedAvgSetup", "fedavg_setup", "psd_margin", "frac_matrix", "form_at", "noiseless_starts"]


def _s(v):
    return rational_str(v) if isinstance(v, (Fraction, int)) else str(v)


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
    """Exact PSD test of a rational matrix."""
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


def frac_matrix(W):
    """A (d+1)x(d+1) fmpq_mat as a list of lists of Fractions."""
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


def form_at(G, y):
    """ỹᵀGỹ for G a list of lists of Fractions and y a list of d Fractions (ỹ = (y, 1))."""
    v = list(y) + [Fraction(1)]
    n = len(v)
    return sum((v[a] * G[a][c] * v[c] for a in range(n) for c in range(n)), Fraction(0))


def noiseless_starts(forms, x0, T):
    """The round starts of the noiseless run from x0: y_{t+1} = B_tau y_t (t < T), exact. They are
    the reachable round starts when sigma = 0 (with sigma > 0 every round t >= 1 starts at a
    Gaussian point with full support, so every y is reachable)."""
    B = frac_matrix(forms.mean_map)
    d = len(x0)
    y = [Fraction(v) for v in x0] + [Fraction(1)]
    out = []
    for _ in range(T):
        out.append(y[:d])
        y = [sum((B[r][c] * y[c] for c in range(d + 1)), Fraction(0)) for r in range(d + 1)]
    return out
