"""Hypotheses of the SCAFFOLD theorems, each reported by name with its margin.

A hypothesis check never raises on a violated hypothesis: it reports it, because searching
*beyond* a hypothesis (``pyfed search --relax``) is how a user learns what it protects.
Malformed input (NaN, a non-integer K) still raises :class:`pyfed.errors.InputError`.

Margins are "right side minus left side" of the hypothesis written as ``lhs <= rhs``
(or ``lhs < rhs``): a hypothesis holds iff its margin is >= 0 (> 0 for strict ones).
They are exact rationals when the inputs are, mpmath numbers otherwise. The nonconvex
step-size condition h <= (S/N)^(2/3)/(24 beta) involves a cube root; it is *decided*
exactly as (24 beta h)^3 <= (S/N)^2 and its margin is reported in mpmath.

Source: seed 000 (SCAFFOLD.ConvexFiniteRoundConvergence hypotheses); SCAFFOLD
Appendix E.2, Lemma 19 (PDF p. 34) with equations (26)-(27) (PDF p. 31) and the warm start of
PDF p. 35, for the nonconvex step-size condition.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath

from ..exact import DEFAULT_DPS, coerce, to_mpf
from .bounds import _naturals, effective_step, noise_variance

__all__ = ["Hypothesis", "convex_hypotheses", "nonconvex_hypotheses", "failing"]


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a theorem, evaluated on an instance.

    Attributes
    ----------
    key : str
        Stable machine name (``"step_size"``, ``"mu_h"``, ...), used by ``--relax``.
    statement : str
        The hypothesis in plain math, e.g. ``"h <= 1/(81 beta)"``.
    holds : bool
        Decided exactly when the inputs are rational.
    margin : Fraction | mpmath.mpf | None
        rhs - lhs of the hypothesis; ``None`` when undefined (e.g. beta <= 0 in 1/(81 beta)).
    """

    key: str
    statement: str
    holds: bool
    margin: object


def _h(key, statement, margin, strict=False):
    if margin is None:
        return Hypothesis(key, statement, False, None)
    return Hypothesis(key, statement, bool(margin > 0) if strict else bool(margin >= 0), margin)


def _common(N, S, K, T, eta_l, eta_g, beta, sigma, squared=False):
    out = [
        _h("clients", "N >= 1", N - 1),
        _h("participation", "1 <= S <= N", min(S - 1, N - S)),
        _h("local_steps", "K >= 1", K - 1),
        _h("rounds", "T >= 1", T - 1),
        _h("beta", "beta > 0", beta, strict=True),
        _h("sigma", "sigma^2 >= 0" if squared else "sigma >= 0", sigma),
        _h("eta_l", "eta_l > 0", eta_l, strict=True),
        _h("eta_g", "eta_g >= 1", eta_g - 1),
    ]
    return out


def convex_hypotheses(*, N, S, K, T, eta_l, eta_g, beta, mu, sigma=None, sigma_sq=None, convexity=None,
                      exact=None, dps=DEFAULT_DPS):
    """Hypotheses of ``SCAFFOLD.ConvexFiniteRoundConvergence`` (seed 000), in order:
    N >= 1, 1 <= S <= N, K >= 1, T >= 1, beta > 0, sigma >= 0, eta_l > 0, eta_g >= 1,
    mu >= 0, h <= 1/(81 beta), mu h <= S/(15 N), and, when ``convexity`` is given, "every f_i is
    mu-strongly convex" (Lean ``Convexity P mu``).

    ``convexity``: ``(holds, margin)`` from the problem (``Problem.convexity(mu)``) — a property
    of the client functions, not of these numbers, so only the problem can decide it.

    The noise is given as ``sigma`` or as ``sigma_sq`` = sigma^2 (exactly one).

    Returns a list of :class:`Hypothesis` (all of them, holding or not).

    Raises InputError when N, S, K or T is not a natural number (a non-integer such as K = 2.5,
    or a negative value: Lean types them as ``ℕ``), or for sigma and sigma_sq both/neither given.
    """
    noise, squared = noise_variance(sigma, sigma_sq)
    N, S, K, T = _naturals(N=N, S=S, K=K, T=T)
    (N, S, K, T, eta_l, eta_g, beta, mu, sigma), ex = coerce(
        [N, S, K, T, eta_l, eta_g, beta, mu, noise], exact=exact, dps=dps)
    h = effective_step(K, eta_l, eta_g, exact=ex, dps=dps)
    out = _common(N, S, K, T, eta_l, eta_g, beta, sigma, squared)
    out.append(_h("mu", "mu >= 0", mu))
    out.append(_h("step_size", "h <= 1/(81 beta)", (1 / (81 * beta) - h) if beta > 0 else None))
    out.append(_h("mu_h", "mu h <= S/(15 N)", (S / (15 * N) - mu * h) if N > 0 else None))
    if convexity is not None:
        holds, margin = convexity
        out.append(Hypothesis("convexity", "every f_i is mu-strongly convex", bool(holds), margin))
    return out


def nonconvex_hypotheses(*, N, S, K, T, eta_l, eta_g, beta, sigma=None, sigma_sq=None, f_low=None, f_x0=None,
                         f_low_certificate: str | None = None, exact=None, dps=DEFAULT_DPS):
    """Hypotheses of ``SCAFFOLD.NonconvexFiniteRoundConvergence`` (SCAFFOLD Appendix E.2,
    Lemma 19, PDF p. 34, with equations (26)-(27), PDF p. 31), in order: the common ones (as in
    :func:`convex_hypotheses`), h <= (S/N)^(2/3)/(24 beta) (Lean ``effectiveStep K ηl ηg ≤
    Real.rpow ((S : ℝ) / (N : ℝ)) (2 / 3 : ℝ) / (24 * P.β)``), and f_low <= f everywhere (Lean
    ``∀ x, fLower ≤ objective P.f x``).

    The last one is a property of the problem, not of numbers: it holds iff the problem
    supplies ``f_low_certificate`` (the derivation of its lower bound) and, as a sanity
    check, f_low <= f(x0) (margin f(x0) - f_low).

    Noise as ``sigma`` or ``sigma_sq``; errors as in :func:`convex_hypotheses`.
    """
    noise, squared = noise_variance(sigma, sigma_sq)
    N, S, K, T = _naturals(N=N, S=S, K=K, T=T)
    (N, S, K, T, eta_l, eta_g, beta, sigma), ex = coerce(
        [N, S, K, T, eta_l, eta_g, beta, noise], exact=exact, dps=dps)
    h = effective_step(K, eta_l, eta_g, exact=ex, dps=dps)
    out = _common(N, S, K, T, eta_l, eta_g, beta, sigma, squared)
    stmt = "h <= (S/N)^(2/3)/(24 beta)"
    if beta > 0 and N > 0 and S >= 0:
        ratio = S / N
        if h <= 0:
            holds = True
        else:
            holds = bool((24 * beta * h) ** 3 <= ratio**2)  # exact decision (no cube root)
        with mpmath.workdps(dps):
            margin = mpmath.cbrt(to_mpf(ratio, dps)) ** 2 / (24 * to_mpf(beta, dps)) - to_mpf(h, dps)
        out.append(Hypothesis("step_size", stmt, holds, margin))
    else:
        out.append(Hypothesis("step_size", stmt, False, None))
    if f_low is None or f_x0 is None:
        out.append(Hypothesis("f_low", "f_low <= f(x) for all x", False, None))
    else:
        (fl, fx), _ = coerce([f_low, f_x0], exact=None, dps=dps)
        gap = fx - fl
        out.append(Hypothesis("f_low", "f_low <= f(x) for all x",
                              bool(f_low_certificate) and gap >= 0, gap))
    return out


def failing(hypotheses) -> list[Hypothesis]:
    """The hypotheses that do not hold."""
    return [h for h in hypotheses if not h.holds]
