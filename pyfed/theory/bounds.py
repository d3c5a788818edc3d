"""The arithmetic of the SCAFFOLD finite-round theorems: the one place for each formula.

Every function mirrors a Lean definition of ``lean/Pyfed/Scaffold/Model.lean`` (namespace
``SCAFFOLD``); the Lean name is given in each docstring and the drift check
(``tests/test_lean_drift.py``) proves the two sides symbolically equal.

Arithmetic: when every input is an exact rational the result is a
:class:`fractions.Fraction` computed without any float; otherwise it is an ``mpmath.mpf``
at :data:`pyfed.exact.DEFAULT_DPS` digits (see :mod:`pyfed.exact`). Pass ``exact=True`` to
demand exactness (an inexact input then raises ``ValueError``). Called with sympy symbols the
functions return sympy expressions (``weight_sum`` then returns the defining ``Sum``): the
drift check uses this to prove them equal to the Lean definitions symbolically.

Source: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Appendix E.1,
PDF p. 30 (Lemma 15) and p. 31 (averaging display); seed 000 "Convex and strongly convex
convergence" for the exact finite-round form, including weights w_r = q^-(r+1), r = 0..T-1;
Appendix E.2, PDF p. 34, Lemma 19 (the nonconvex constants 14 and 70), summed over rounds as in
equations (26)-(27) (PDF p. 31), for the nonconvex right side.

Python functions keep numeric signatures; where the Lean definition takes the problem ``P``,
the controls ``c0`` or ``xstar`` (``initialPotential P S h c0 xstar``, ``convexRHS P S K T ηl ηg μ
c0 xstar``, ``nonconvexRHS P S K T ηl ηg fLower``), the Python function takes the numbers the
Lean body reads from them (``dist_sq = ‖P.x0 - xstar‖²``, ``C0 = initialControlError P c0 xstar``,
``N``, ``sigma = P.σ``, ``beta = P.β``, ``f_gap = objective P.f P.x0 - fLower``).
"""

from __future__ import annotations

import numpy as np
import sympy

from ..errors import InputError
from ..exact import DEFAULT_DPS, coerce, sum_squares

__all__ = [
    "effective_step",
    "round_time",
    "contraction",
    "weight",
    "weights",
    "weight_sum",
    "initial_control_error",
    "squared_distance",
    "initial_potential",
    "convex_rhs",
    "nonconvex_rhs",
    "noise_term",
]


def _index(n):
    """A natural-number index (T, r): int for numbers, kept as is when symbolic."""
    if isinstance(n, sympy.Basic) and n.free_symbols:
        return n
    return int(n)


def _require_defined(mode, **values):
    """The right sides divide by T, S, K, eta_g and h = K eta_l eta_g: a zero there is an
    InputError naming it (not a ZeroDivisionError). Values outside the hypotheses but nonzero
    are allowed: evaluating beyond a hypothesis is how ``--relax`` searches work."""
    if mode == "symbolic":
        return
    for name, v in values.items():
        if v == 0:
            raise InputError(name, "must be nonzero: the right side divides by it")


def effective_step(K, eta_l, eta_g, *, exact=None, dps=DEFAULT_DPS):
    """Effective step h = K * eta_l * eta_g (Lean ``SCAFFOLD.effectiveStep``).

    K: local steps per round; eta_l: local step size; eta_g: global step size.
    """
    (K, eta_l, eta_g), _ = coerce([K, eta_l, eta_g], exact=exact, dps=dps)
    return K * eta_l * eta_g


def round_time(K: int, r: int) -> int:
    """Filtration index tau_r = K + r(K+1) at which round r starts (Lean ``SCAFFOLD.roundTime``).

    The first K filtration steps are the K warm-start oracle queries; each round then uses
    K oracle steps plus one sampling step.
    """
    return K + r * (K + 1)


def contraction(mu, h, *, exact=None, dps=DEFAULT_DPS):
    """q = 1 - mu*h/2, the per-round contraction of the weighted telescoping (seed 000)."""
    (mu, h), _ = coerce([mu, h], exact=exact, dps=dps)
    return 1 - mu * h / 2


def weight(r: int, mu, h, *, exact=None, dps=DEFAULT_DPS):
    """w_r = q^-(r+1) with q = 1 - mu*h/2 (Lean ``SCAFFOLD.weight μ h r = (1 - μ * h / 2)⁻¹ ^ (r + 1)``),
    for 0 <= r < T.

    mu = 0 gives w_r = 1. Raises ``ZeroDivisionError`` if q = 0 (outside the hypotheses).
    """
    q = contraction(mu, h, exact=exact, dps=dps)
    return (1 / q) ** (_index(r) + 1)


def weights(T: int, mu, h, *, exact=None, dps=DEFAULT_DPS) -> list:
    """[w_0, ..., w_{T-1}] (length T list of Fraction or mpf)."""
    q = contraction(mu, h, exact=exact, dps=dps)
    inv = 1 / q
    out, w = [], 1
    for _ in range(int(T)):
        w = w * inv
        out.append(w)
    return out


def weight_sum(T: int, mu, h, *, exact=None, dps=DEFAULT_DPS):
    """W_T = sum_{r=0}^{T-1} q^-(r+1) (Lean ``SCAFFOLD.weightSum μ h T``).

    Closed form (q^-T - 1)/(1 - q) when q != 1, and T when mu*h = 0, so a huge T costs one
    power, not T terms (exact mode: one big-rational power; mpmath mode: no overflow since
    mpf exponents are unbounded).
    """
    q = contraction(mu, h, exact=exact, dps=dps)
    T = _index(T)
    if isinstance(q, sympy.Basic) or isinstance(T, sympy.Basic):
        # symbolic mode (drift check): the definition itself, a sum over r = 0..T-1
        r = sympy.Dummy("r")
        return sympy.Sum((1 / q) ** (r + 1), (r, 0, T - 1))
    if q == 1:
        return q * 0 + T
    return ((1 / q) ** T - 1) / (1 - q)


def initial_control_error(c0, grads_star, *, exact=None, dps=DEFAULT_DPS):
    """C_0 = (1/N) sum_i ||c_i^0 - grad f_i(x*)||^2 (Lean ``SCAFFOLD.initialControlError P c0 xstar``).

    c0, grads_star: arrays shaped (N, d) (client controls and client gradients at x*).
    """
    c0 = np.asarray(c0, dtype=object)
    g = np.asarray(grads_star, dtype=object)
    if c0.shape != g.shape or c0.ndim != 2:
        raise ValueError(f"c0 and grads_star must both have shape (N, d); got {c0.shape} and {g.shape}")
    flat, is_exact = coerce(list(c0.ravel()) + list(g.ravel()), exact=exact, dps=dps)
    n = c0.size
    diff = np.array([a - b for a, b in zip(flat[:n], flat[n:])], dtype=object)
    N = c0.shape[0]
    return sum_squares(diff) / N if N else 0


def squared_distance(x, y, *, exact=None, dps=DEFAULT_DPS):
    """||x - y||^2 for two (d,) vectors, exact when both are rational."""
    x = np.asarray(x, dtype=object).ravel()
    y = np.asarray(y, dtype=object).ravel()
    flat, _ = coerce(list(x) + list(y), exact=exact, dps=dps)
    n = len(x)
    return sum_squares(np.array([a - b for a, b in zip(flat[:n], flat[n:])], dtype=object))


def initial_potential(dist_sq, C0, N, S, h, *, constant=9, exact=None, dps=DEFAULT_DPS):
    """V_0 = ||x0 - x*||^2 + 9 N h^2 / S * C_0 (Lean ``SCAFFOLD.initialPotential P S h c0 xstar``).

    dist_sq: ||x0 - x*||^2 (Lean ``‖P.x0 - xstar‖ ^ 2``); C0: initial control error (Lean
    ``initialControlError P c0 xstar``); N: number of clients of ``P``; S clients per round; h
    effective step. ``constant`` replaces the 9 (the statement reader's constant profile varies
    it; the Lean definition has 9).
    """
    (dist_sq, C0, N, S, h, c), _ = coerce([dist_sq, C0, N, S, h, constant], exact=exact, dps=dps)
    if constant == 9 and not isinstance(c, sympy.Basic):
        return dist_sq + 9 * N * h**2 / S * C0
    return dist_sq + c * N * h**2 / S * C0


def noise_term(constant, sigma, S, K, eta_g, h, *, exact=None, dps=DEFAULT_DPS):
    """constant * h * sigma^2 / (K S) * (1 + S / eta_g^2), the variance term shared by both
    right-hand sides (constant = 12 convex; 70*beta nonconvex)."""
    (c, sigma, S, K, eta_g, h), _ = coerce([constant, sigma, S, K, eta_g, h], exact=exact, dps=dps)
    return c * h * sigma**2 / (K * S) * (1 + S / eta_g**2)


def convex_rhs(*, dist_sq, C0, N, S, K, T, eta_l, eta_g, mu, sigma, potential_constant=9, noise_constant=12,
               exact=None, dps=DEFAULT_DPS):
    """Right side of ``SCAFFOLD.ConvexFiniteRoundConvergence`` (Lean
    ``SCAFFOLD.convexRHS P S K T ηl ηg μ c0 xstar``):

        V_0 / (h W_T) + 12 h sigma^2 / (K S) * (1 + S / eta_g^2)

    with h = K eta_l eta_g, V_0 = dist_sq + 9 N h^2 / S * C0, W_T = weight_sum(T, mu, h).

    Parameters: dist_sq = ||x0 - x*||^2 (:func:`squared_distance`); C0 = initial control error
    (:func:`initial_control_error`; for a rational quadratic problem ``P`` keep it exact with
    ``initial_control_error(c0, P.grads_exact(P.x_star_exact))``); N clients; S per round; K
    local steps; T rounds; eta_l, eta_g step sizes; mu strong convexity (>= 0); sigma noise
    standard deviation. Source: seed 000 (Lemma 15 consequence), PDF p. 31.

    ``potential_constant`` and ``noise_constant`` replace the constants 9 and 12 (the statement
    reader's constant profile varies them; the Lean definition has 9 and 12).

    Raises InputError for NaN/inf inputs and for T, S, K, eta_l, eta_g equal to 0 (the formula
    divides by them); other values outside the hypotheses are evaluated (see
    :func:`convex_hypotheses`), since searching beyond a hypothesis needs them.
    """
    rounds = _index(T)  # an index, not a real: kept an int (or a symbol) in every mode
    vals, is_exact = coerce([dist_sq, C0, N, S, K, T, eta_l, eta_g, mu, sigma], exact=exact, dps=dps,
                            names=["dist_sq", "C0", "N", "S", "K", "T", "eta_l", "eta_g", "mu", "sigma"])
    _require_defined(is_exact, T=T, S=S, K=K, eta_l=eta_l, eta_g=eta_g)
    dist_sq, C0, N, S, K, T, eta_l, eta_g, mu, sigma = vals
    ex = is_exact
    h = effective_step(K, eta_l, eta_g, exact=ex, dps=dps)
    V0 = initial_potential(dist_sq, C0, N, S, h, constant=potential_constant, exact=ex, dps=dps)
    W = weight_sum(rounds, mu, h, exact=ex, dps=dps)
    return V0 / (h * W) + noise_term(noise_constant, sigma, S, K, eta_g, h, exact=ex, dps=dps)


def nonconvex_rhs(*, f_gap, beta, S, K, T, eta_l, eta_g, sigma, gap_constant=14, noise_constant=70,
                  exact=None, dps=DEFAULT_DPS):
    """Right side of ``SCAFFOLD.NonconvexFiniteRoundConvergence`` (Lean
    ``SCAFFOLD.nonconvexRHS P S K T ηl ηg fLower``):

        14 (f(x0) - f_low) / (h T) + 70 beta h sigma^2 / (K S) * (1 + S / eta_g^2)

    f_gap = f(x0) - f_low (Lean ``objective P.f P.x0 - fLower``; >= 0 under the hypotheses);
    beta = ``P.β``, sigma = ``P.σ``. ``gap_constant`` and ``noise_constant`` replace 14 and 70
    (the statement reader's constant profile varies them). Source: SCAFFOLD Appendix E.2,
    Lemma 19 (PDF p. 34), the source of the constants 14 and 70, summed over the rounds as in
    equations (26)-(27) (PDF p. 31), with the warm-start controls of PDF p. 35.
    """
    vals, is_exact = coerce([f_gap, beta, S, K, T, eta_l, eta_g, sigma], exact=exact, dps=dps,
                            names=["f_gap", "beta", "S", "K", "T", "eta_l", "eta_g", "sigma"])
    _require_defined(is_exact, T=T, S=S, K=K, eta_l=eta_l, eta_g=eta_g)
    f_gap, beta, S, K, T, eta_l, eta_g, sigma = vals
    ex = is_exact
    h = effective_step(K, eta_l, eta_g, exact=ex, dps=dps)
    if gap_constant == 14 and noise_constant == 70:
        return 14 * f_gap / (h * T) + noise_term(70 * beta, sigma, S, K, eta_g, h, exact=ex, dps=dps)
    (c_gap, c_noise), _ = coerce([gap_constant, noise_constant], exact=ex, dps=dps)
    return c_gap * f_gap / (h * T) + noise_term(c_noise * beta, sigma, S, K, eta_g, h, exact=ex, dps=dps)
