"""The seed-000 ``Run`` of SCAFFOLD on clients beyond quadratics, exactly: every sample path.

With exact gradients (zero noise: the model's oracle law only bounds the noise's conditional
second moment by σ², so a noiseless oracle is a ``Run`` for every σ ≥ 0) the run is a finite
mixture over its client samples: each round every client's virtual local path
``y_{k+1} = y_k − ηl (∇fᵢ(y_k) − cᵢ + c̄)`` from the server iterate (c̄ the mean control), then a
uniformly random S-subset 𝒮 of the N clients (probability 1/C(N, S) each), the sampled clients'
controls ``cᵢ⁺ = K⁻¹ Σ_k ∇fᵢ(y_k)`` and the server step
``x⁺ = x + (ηg/S) Σ_{i∈𝒮} (y_K − x)``; the
warm start ``none`` gives ``cᵢ⁰ = ∇fᵢ(x0)``. :func:`path_moments` follows every state exactly
(states reached by several subsets merged, so full participation is one path), and returns the
per-round E[F(x_r)] − F⋆ and E‖∇F(x_r)‖² the exact-moment engine returns for quadratics
(:class:`pyfed.engines.exact.propagation.MomentResult`).

Source: Karimireddy et al., SCAFFOLD, Algorithm 1 (option II in the average-gradient form of
Appendix E); the Lean ``SCAFFOLD.Run`` of ``lean/Pyfed/Scaffold/Model.lean``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

from ...engines.exact.propagation import MomentResult
from ...errors import InputError

__all__ = ["path_moments", "MAX_STATES"]

#: At most this many distinct states per round (S < N and many rounds multiply the sample paths).
MAX_STATES = 4096


def _mean(vs, n, d):
    return tuple(sum((v[j] for v in vs), Fraction(0)) / n for j in range(d))


def path_moments(problem, *, S: int, K: int, T: int, eta_l, eta_g, x0, c0=None) -> MomentResult:
    """Per-round exact statistics of the ``Run`` on ``problem`` (a
    :class:`pyfed.problems.clients.ClientSet`) with zero noise (module docstring). ``c0`` None is
    the warm start. Raises InputError when the sample paths exceed :data:`MAX_STATES` states."""
    N, d = problem.N, problem.d
    el, eg = Fraction(eta_l), Fraction(eta_g)
    x = tuple(Fraction(v) for v in x0)
    if c0 is None:
        c = tuple(tuple(problem.grad(i, x)) for i in range(N))
    else:
        c = tuple(tuple(Fraction(v) for v in row) for row in c0)
    states = {(x, c): Fraction(1)}
    subsets = [frozenset(B) for B in itertools.combinations(range(N), S)]
    pB = Fraction(1, comb(N, S))
    gaps, grad_sq, mean_x = [], [], []
    for r in range(T + 1):
        gap = sq = Fraction(0)
        mx = [Fraction(0)] * d
        for (xs, _cs), p in states.items():
            gap += p * (problem.value_exact(xs) - problem.f_star)
            g = _mean([problem.grad(i, xs) for i in range(N)], N, d)
            sq += p * sum((v * v for v in g), Fraction(0))
            mx = [a + p * v for a, v in zip(mx, xs)]
        gaps.append(gap)
        grad_sq.append(sq)
        mean_x.append(mx)
        if r == T:
            break
        nxt: dict = {}
        for (xs, cs), p in states.items():
            cbar = _mean(cs, N, d)
            ends, newc = [], []
            for i in range(N):
                y = xs
                gsum = [Fraction(0)] * d
                for _k in range(K):
                    gi = problem.grad(i, y)
                    gsum = [a + b for a, b in zip(gsum, gi)]
                    y = tuple(yj - el * (gj - cij + cbj) for yj, gj, cij, cbj in zip(y, gi, cs[i], cbar))
                ends.append(y)
                newc.append(tuple(v / K for v in gsum))
            for B in subsets:
                step = [sum((ends[i][j] - xs[j] for i in B), Fraction(0)) for j in range(d)]
                xn = tuple(a + eg / S * s for a, s in zip(xs, step))
                cn = tuple(newc[i] if i in B else cs[i] for i in range(N))
                key = (xn, cn)
                nxt[key] = nxt.get(key, Fraction(0)) + p * pB
        if len(nxt) > MAX_STATES:
            raise InputError("instance", f"{len(nxt)} distinct sample-path states after round {r + 1} (more than "
                                         f"{MAX_STATES}): fewer rounds, or S = N")
        states = nxt
    return MomentResult(gaps=gaps, grad_sq=grad_sq, exact=True, arithmetic="exact rational (every sample path)",
                        algorithm="scaffold_run", mean_x=mean_x)
