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

Lean semantics: Lean's real division has ``x / 0 = 0`` and ``0⁻¹ = 0``, so the Lean definitions are
total: with ``mu h = 2`` the weights ``(1 - mu h/2)⁻¹ ^ (r+1)`` are 0, ``weightSum`` is 0 and
``V_0 / (h W_T)`` is 0. As a Python API these functions raise
:class:`pyfed.errors.UndefinedValue` on such inputs (a zero divisor is almost always a mistake);
``lean=True`` (the statement reader's evaluation, :mod:`pyfed.statements.evaluate`) evaluates
them as Lean does instead, so a statement that drops a hypothesis is decided as Lean reads it.

Python functions keep numeric signatures; where the Lean definition takes the problem ``P``,
the controls ``c0`` or ``xstar`` (``initialPotential P S h c0 xstar``, ``convexRHS P S K T ηl ηg μ
c0 xstar``, ``nonconvexRHS P S K T ηl ηg fLower``), the Python function takes the numbers the
Lean body reads from them (``dist_sq = ‖P.x0 - xstar‖²``, ``C0 = initialControlError P c0 xstar``,
``N``, ``sigma = P.σ``, ``beta = P.β``, ``f_gap = objective P.f P.x0 - fLower``).
"""

from __future__ import annotations

import numpy as np
import sympy

from ..errors import InputError, UndefinedValue, check_natural
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
    "noise_variance",
]


def _index(n, name: str = "T"):
    """A natural-number index (N, S, K, T, r): an int for numbers, kept as is when symbolic.

    Lean types these as ``ℕ``: a non-integer (``2.5``, ``"5/2"``) or a negative value raises
    :class:`pyfed.errors.InputError` naming ``name`` -- it is never truncated."""
    if isinstance(n, sympy.Basic) and n.free_symbols:
        return n
    return check_natural(name, n)


def _naturals(**values):
    """Validate several natural-number arguments (see :func:`_index`); returns them as ints
    (symbols unchanged), in order: a natural given as ``3.0`` or ``"3"`` is the exact 3."""
    return [_index(v, name) for name, v in values.items()]


def _require_defined(mode, **values):
    """The right sides divide by T, S, K, eta_g and h = K eta_l eta_g: a zero there is an
    :class:`pyfed.errors.UndefinedValue` naming it (an InputError, not a bare ZeroDivisionError).
    Values outside the hypotheses but nonzero are allowed: evaluating beyond a hypothesis is how
    ``--relax`` searches work."""
    if mode == "symbolic":
        return
    for name, v in values.items():
        if v == 0:
            raise UndefinedValue(name, "must be nonzero: the right side divides by it")


def _ldiv(a, b):
    """Lean's real division: ``a / b``, and 0 (in b's arithmetic) when b is exactly 0."""
    if _exact_zero(b):
        return b * 0
    return a / b


def _exact_zero(b) -> bool:
    """True iff ``b`` is exactly 0 (a python-flint ball only when it is the exact point 0; a sympy
    expression only when it is provably 0, never one with free symbols)."""
    if isinstance(b, sympy.Basic):
        return b.is_zero is True
    is_exact = getattr(b, "is_exact", None)
    if callable(is_exact):
        return bool(is_exact()) and b == 0
    return b == 0


def _q_nonzero(q, mu, h):
    """q = 1 - mu h / 2 must be nonzero for the weights q^-(r+1) (mu h = 2 leaves them undefined)."""
    if not isinstance(q, sympy.Basic) and q == 0:
        raise UndefinedValue("mu", f"mu*h = 2 (mu = {mu}, h = {h}) makes q = 1 - mu h/2 = 0: the weights "
                                   "w_r = q^-(r+1) are undefined (the hypothesis mu h <= S/(15 N) excludes it)")


def noise_variance(sigma=None, sigma_sq=None):
    """The oracle-noise variance input of the right sides: ``(value, is_square)``.

    Exactly one of ``sigma`` (the noise level, E||xi||^2 = sigma^2) and ``sigma_sq`` (sigma^2
    itself) is given; ``sigma_sq`` keeps a rational variance exact when sigma is irrational
    (sigma^2 = 2). Raises InputError when both or neither are given."""
    if sigma is not None and sigma_sq is not None:
        raise InputError("sigma_sq", "give either sigma or sigma_sq (= sigma^2), not both")
    if sigma is None and sigma_sq is None:
        raise InputError("sigma", "missing: give sigma (noise level) or sigma_sq (its square)")
    return (sigma, False) if sigma_sq is None else (sigma_sq, True)


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


def weight(r: int, mu, h, *, exact=None, dps=DEFAULT_DPS, lean=False):
    """w_r = q^-(r+1) with q = 1 - mu*h/2 (Lean ``SCAFFOLD.weight μ h r = (1 - μ * h / 2)⁻¹ ^ (r + 1)``),
    for 0 <= r < T.

    mu = 0 gives w_r = 1. Raises :class:`pyfed.errors.UndefinedValue` (an InputError and a
    ZeroDivisionError) if q = 0, i.e. mu h = 2 (outside the hypotheses); with ``lean=True`` that
    weight is Lean's ``0⁻¹ ^ (r+1) = 0``. r must be a natural number.
    """
    r = _index(r, "r")
    q = contraction(mu, h, exact=exact, dps=dps)
    if lean:
        return _ldiv(q * 0 + 1, q) ** (r + 1)
    _q_nonzero(q, mu, h)
    return (1 / q) ** (r + 1)


def weights(T: int, mu, h, *, exact=None, dps=DEFAULT_DPS, lean=False) -> list:
    """[w_0, ..., w_{T-1}] (length T list of Fraction or mpf). UndefinedValue if mu h = 2
    (``lean=True``: T zeros there, as Lean's ``0⁻¹ = 0`` gives)."""
    T = _index(T, "T")
    q = contraction(mu, h, exact=exact, dps=dps)
    if lean:
        inv = _ldiv(q * 0 + 1, q)
    else:
        _q_nonzero(q, mu, h)
        inv = 1 / q
    out, w = [], 1
    for _ in range(T):
        w = w * inv
        out.append(w)
    return out


def weight_sum(T: int, mu, h, *, exact=None, dps=DEFAULT_DPS, lean=False):
    """W_T = sum_{r=0}^{T-1} q^-(r+1) (Lean ``SCAFFOLD.weightSum μ h T``).

    Closed form (q^-T - 1)/(1 - q) when q != 1, and T when mu*h = 0, so a huge T costs one
    power, not T terms (exact mode: one big-rational power; mpmath mode: no overflow since
    mpf exponents are unbounded). UndefinedValue if mu h = 2 (q = 0); with ``lean=True`` that sum
    is Lean's 0 (every weight is ``0⁻¹ ^ (r+1) = 0``). T must be a natural number.
    """
    q = contraction(mu, h, exact=exact, dps=dps)
    T = _index(T, "T")
    if lean and _exact_zero(q):
        return q * 0
    _q_nonzero(q, mu, h)
    if isinstance(q, sympy.Basic) or isinstance(T, sympy.Basic):
        # symbolic mode (drift check): the definition itself, a sum over r = 0..T-1
        r = sympy.Dummy("r")
        return sympy.Sum((1 / q) ** (r + 1), (r, 0, T - 1))
    if q == 1:
        return q * 0 + T
    return ((1 / q) ** T - 1) / (1 - q)


def initial_control_error(c0, grads_star, *, exact=None, dps=DEFAULT_DPS):
    """C_0 = (1/N) sum_i ||c_i^0 - grad f_i(x*)||^2 (Lean ``SCAFFOLD.initialControlError P c0 xstar``).

    c0, grads_star: arrays shaped (N, d) (client controls and client gradients at x*). d = 0
    (empty vectors) gives an exact 0 (``Fraction(0)``; an mpf 0 with ``exact=False``).

    Raises InputError when the shapes differ or are not (N, d) with N >= 1.
    """
    c0 = np.asarray(c0, dtype=object)
    g = np.asarray(grads_star, dtype=object)
    if c0.shape != g.shape or c0.ndim != 2:
        raise InputError("c0", f"c0 and grads_star must both have shape (N, d); got {c0.shape} and {g.shape}")
    N = c0.shape[0]
    if N < 1:
        raise InputError("c0", "needs N >= 1 clients (C0 averages over the clients)")
    flat, is_exact = coerce(list(c0.ravel()) + list(g.ravel()), exact=exact, dps=dps)
    n = c0.size
    diff = np.array([a - b for a, b in zip(flat[:n], flat[n:])], dtype=object)
    (zero, n_clients), _ = coerce([0, N], exact=is_exact, dps=dps)
    return (zero + sum_squares(diff)) / n_clients


def squared_distance(x, y, *, exact=None, dps=DEFAULT_DPS):
    """||x - y||^2 for two (d,) vectors, exact when both are rational (d = 0: an exact 0)."""
    x = np.asarray(x, dtype=object).ravel()
    y = np.asarray(y, dtype=object).ravel()
    if x.shape != y.shape:
        raise InputError("x", f"x and y must have the same length, got {len(x)} and {len(y)}")
    flat, is_exact = coerce(list(x) + list(y), exact=exact, dps=dps)
    n = len(x)
    (zero,), _ = coerce([0], exact=is_exact, dps=dps)
    return zero + sum_squares(np.array([a - b for a, b in zip(flat[:n], flat[n:])], dtype=object))


def initial_potential(dist_sq, C0, N, S, h, *, constant=9, exact=None, dps=DEFAULT_DPS, lean=False):
    """V_0 = ||x0 - x*||^2 + 9 N h^2 / S * C_0 (Lean ``SCAFFOLD.initialPotential P S h c0 xstar``).

    dist_sq: ||x0 - x*||^2 (Lean ``‖P.x0 - xstar‖ ^ 2``); C0: initial control error (Lean
    ``initialControlError P c0 xstar``); N: number of clients of ``P``; S clients per round; h
    effective step. N and S are natural numbers (InputError otherwise). ``constant`` replaces the
    9 (the statement reader's constant profile varies it; the Lean definition has 9).
    ``lean=True``: S = 0 gives Lean's ``x / 0 = 0`` for the second term.
    """
    N, S = _naturals(N=N, S=S)
    (dist_sq, C0, N, S, h, c), _ = coerce([dist_sq, C0, N, S, h, constant], exact=exact, dps=dps)
    if lean:
        return dist_sq + _ldiv(c * N * h**2, S) * C0
    if constant == 9 and not isinstance(c, sympy.Basic):
        return dist_sq + 9 * N * h**2 / S * C0
    return dist_sq + c * N * h**2 / S * C0


def noise_term(constant, sigma=None, S=None, K=None, eta_g=None, h=None, *, sigma_sq=None, exact=None,
               dps=DEFAULT_DPS, lean=False):
    """constant * h * sigma^2 / (K S) * (1 + S / eta_g^2), the variance term shared by both
    right-hand sides (constant = 12 convex; 70*beta nonconvex).

    Give the noise as ``sigma`` or as ``sigma_sq`` = sigma^2 (keyword; exact when sigma^2 is
    rational even if sigma is not, e.g. sigma_sq = 2). S and K are natural numbers. ``lean=True``:
    each division by 0 is Lean's 0 (``K S = 0`` or ``eta_g = 0``)."""
    noise, squared = noise_variance(sigma, sigma_sq)
    S, K = _naturals(S=S, K=K)
    (c, noise, S, K, eta_g, h), _ = coerce([constant, noise, S, K, eta_g, h], exact=exact, dps=dps)
    var = noise if squared else noise**2
    if lean:
        return _ldiv(c * h * var, K * S) * (1 + _ldiv(S, eta_g**2))
    return c * h * var / (K * S) * (1 + S / eta_g**2)


def convex_rhs(*, dist_sq, C0, N, S, K, T, eta_l, eta_g, mu, sigma=None, sigma_sq=None, potential_constant=9,
               noise_constant=12, exact=None, dps=DEFAULT_DPS, lean=False):
    """Right side of ``SCAFFOLD.ConvexFiniteRoundConvergence`` (Lean
    ``SCAFFOLD.convexRHS P S K T ηl ηg μ c0 xstar``):

        V_0 / (h W_T) + 12 h sigma^2 / (K S) * (1 + S / eta_g^2)

    with h = K eta_l eta_g, V_0 = dist_sq + 9 N h^2 / S * C0, W_T = weight_sum(T, mu, h).

    Parameters: dist_sq = ||x0 - x*||^2 (:func:`squared_distance`); C0 = initial control error
    (:func:`initial_control_error`; for a rational quadratic problem ``P`` keep it exact with
    ``initial_control_error(c0, P.grads_exact(P.x_star_exact))``); N clients; S per round; K
    local steps; T rounds; eta_l, eta_g step sizes; mu strong convexity (>= 0); sigma noise
    standard deviation, or ``sigma_sq`` = sigma^2 instead (exactly one of the two; sigma_sq = 2
    gives an exact rational right side although sigma = sqrt 2 is irrational). N, S, K, T are
    natural numbers. Source: seed 000 (Lemma 15 consequence), PDF p. 31.

    ``potential_constant`` and ``noise_constant`` replace the constants 9 and 12 (the statement
    reader's constant profile varies them; the Lean definition has 9 and 12).

    Raises InputError for NaN/inf inputs, for a non-integer or negative N, S, K, T (never
    truncated: T = 2.5 is an error, not T = 2), for sigma and sigma_sq both or neither given, and
    UndefinedValue (an InputError) for T, S, K, eta_l, eta_g equal to 0 or mu h = 2 (the formula
    divides by them); other values outside the hypotheses are evaluated (see
    :func:`convex_hypotheses`), since searching beyond a hypothesis needs them.

    ``lean=True``: no UndefinedValue; every division by 0 is Lean's ``x / 0 = 0`` (mu h = 2 gives
    W_T = 0, so V_0 / (h W_T) = 0 and only the noise term remains).
    """
    noise, squared = noise_variance(sigma, sigma_sq)
    N, S, K, T = _naturals(N=N, S=S, K=K, T=T)  # ints (or symbols): exact in every mode
    rounds = T  # an index, not a real: kept an int (or a symbol) in every mode
    N0, S0, K0 = N, S, K
    vals, is_exact = coerce([dist_sq, C0, N, S, K, T, eta_l, eta_g, mu, noise], exact=exact, dps=dps,
                            names=["dist_sq", "C0", "N", "S", "K", "T", "eta_l", "eta_g", "mu",
                                   "sigma_sq" if squared else "sigma"])
    if not lean:
        _require_defined(is_exact, T=T, S=S, K=K, eta_l=eta_l, eta_g=eta_g)
    dist_sq, C0, N, S, K, T, eta_l, eta_g, mu, noise = vals
    ex = is_exact
    h = effective_step(K, eta_l, eta_g, exact=ex, dps=dps)
    lk = {"lean": True} if lean else {}     # the default call keeps the plain signature (the drift check patches it)
    V0 = initial_potential(dist_sq, C0, N0, S0, h, constant=potential_constant, exact=ex, dps=dps, **lk)
    W = weight_sum(rounds, mu, h, exact=ex, dps=dps, **lk)
    nkw = {"sigma_sq": noise} if squared else {"sigma": noise}
    first = _ldiv(V0, h * W) if lean else V0 / (h * W)
    return first + noise_term(noise_constant, S=S0, K=K0, eta_g=eta_g, h=h, exact=ex, dps=dps, **lk, **nkw)


def nonconvex_rhs(*, f_gap, beta, S, K, T, eta_l, eta_g, sigma=None, sigma_sq=None, gap_constant=14,
                  noise_constant=70, exact=None, dps=DEFAULT_DPS, lean=False):
    """Right side of ``SCAFFOLD.NonconvexFiniteRoundConvergence`` (Lean
    ``SCAFFOLD.nonconvexRHS P S K T ηl ηg fLower``):

        14 (f(x0) - f_low) / (h T) + 70 beta h sigma^2 / (K S) * (1 + S / eta_g^2)

    f_gap = f(x0) - f_low (Lean ``objective P.f P.x0 - fLower``; >= 0 under the hypotheses);
    beta = ``P.β``, sigma = ``P.σ`` -- or ``sigma_sq`` = sigma^2 instead (exactly one of them);
    S, K, T natural numbers; errors as in :func:`convex_rhs`. ``gap_constant`` and
    ``noise_constant`` replace 14 and 70 (the statement reader's constant profile varies them).
    Source: SCAFFOLD Appendix E.2,
    Lemma 19 (PDF p. 34), the source of the constants 14 and 70, summed over the rounds as in
    equations (26)-(27) (PDF p. 31), with the warm-start controls of PDF p. 35.
    ``lean=True``: every division by 0 is Lean's ``x / 0 = 0`` (no UndefinedValue).
    """
    noise, squared = noise_variance(sigma, sigma_sq)
    S, K, T = _naturals(S=S, K=K, T=T)
    S0, K0 = S, K
    vals, is_exact = coerce([f_gap, beta, S, K, T, eta_l, eta_g, noise], exact=exact, dps=dps,
                            names=["f_gap", "beta", "S", "K", "T", "eta_l", "eta_g",
                                   "sigma_sq" if squared else "sigma"])
    if not lean:
        _require_defined(is_exact, T=T, S=S, K=K, eta_l=eta_l, eta_g=eta_g)
    f_gap, beta, S, K, T, eta_l, eta_g, noise = vals
    ex = is_exact
    h = effective_step(K, eta_l, eta_g, exact=ex, dps=dps)
    nkw = {"sigma_sq": noise} if squared else {"sigma": noise}
    if lean:
        (c_gap, c_noise), _ = coerce([gap_constant, noise_constant], exact=ex, dps=dps)
        return _ldiv(c_gap * f_gap, h * T) + noise_term(c_noise * beta, S=S0, K=K0, eta_g=eta_g, h=h, exact=ex,
                                                        dps=dps, lean=True, **nkw)
    if gap_constant == 14 and noise_constant == 70:
        return 14 * f_gap / (h * T) + noise_term(70 * beta, S=S0, K=K0, eta_g=eta_g, h=h, exact=ex, dps=dps, **nkw)
    (c_gap, c_noise), _ = coerce([gap_constant, noise_constant], exact=ex, dps=dps)
    return c_gap * f_gap / (h * T) + noise_term(c_noise * beta, S=S0, K=K0, eta_g=eta_g, h=h, exact=ex, dps=dps,
                                                **nkw)
