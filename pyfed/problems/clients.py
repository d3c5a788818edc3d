"""A finite set of smooth convex client functions beyond quadratics, with exact data:
:class:`ClientSet` (F = N⁻¹ Σᵢ fᵢ with fᵢ a :class:`pyfed.problems.ridge.RidgeFunction` of an exact
profile or a :class:`pyfed.problems.interpolation.InterpolatedFunction`), the problem of a
deterministic run (zero noise) whose every gradient is an exact rational.

Its minimiser is given, not solved for: the constructor checks ∇F(x⋆) = 0 exactly (F is convex, so
that makes x⋆ a minimiser and F(x⋆) its minimum). β is the largest of the clients' certified
smoothness constants and μ the smallest of their certified strong-convexity constants (each from
its family's formula, :mod:`pyfed.problems.ridge`, or from its interpolation class). The interface
is the one the exact engines read of a :class:`pyfed.problems.quadratic.QuadraticProblem`
(``N``, ``d``, ``beta``, ``mu``, ``x_star_exact``, ``f_star``, ``f_low``, ``value_exact``,
``grads_exact``, ``convexity``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..exact import rational_str, to_fraction
from .interpolation import interpolated_from_json
from .ridge import RidgeFunction, ridge_from_json

__all__ = ["ClientSet", "client_from_json"]


def client_from_json(data: dict):
    """One client function from its JSON (``family`` ``ridge`` or ``interpolated``)."""
    fam = (data or {}).get("family")
    if fam == "ridge":
        return ridge_from_json(data)
    if fam == "interpolated":
        return interpolated_from_json(data)
    raise InputError("instance.clients", f"unknown client family {fam!r} (ridge, interpolated)")


class ClientSet:
    """N exact client functions, F = mean, minimiser ``x_star`` (module docstring).

    clients : list of RidgeFunction (exact profiles) / InterpolatedFunction, all on ``Space d``;
    x_star : (d,) rationals with ∇F(x⋆) = 0 exactly (InputError otherwise). Raises InputError for a
    transcendental profile (no exact rational gradients) or clients of different dimensions."""

    exact = True

    def __init__(self, clients, x_star, name: str = "client set"):
        self.clients = list(clients)
        if not self.clients:
            raise InputError("instance.clients", "at least one client")
        self.N = len(self.clients)
        self.d = self.clients[0].d
        if any(f.d != self.d for f in self.clients):
            raise InputError("instance.clients", "every client on the same Space d")
        if any(isinstance(f, RidgeFunction) and not f.exact for f in self.clients):
            raise InputError("instance.clients", "a transcendental profile has no exact gradients for an exact run")
        self.name = name
        self.x_star_exact = np.array([Fraction(v) for v in x_star], dtype=object)
        g = self.grads_exact(self.x_star_exact).sum(axis=0)
        if any(v != 0 for v in g):
            raise InputError("instance.xstar", "the gradient of the clients' average does not vanish there")
        self.f_star = self.value_exact(self.x_star_exact)
        self.f_low = self.f_star
        self.beta = max(Fraction(f.smoothness()) for f in self.clients)
        self.mu = min(Fraction(f.strong_convexity()) for f in self.clients)
        if self.beta <= 0:
            self.beta = Fraction(1, 1024)
        self.derivations = {"f_low": "f_low = F(x*) exactly (x* has a zero gradient of the convex average)"}

    # the interface of the exact engines
    def value_exact(self, x) -> Fraction:
        x = [Fraction(v) for v in x]
        return sum((f.value(x) for f in self.clients), Fraction(0)) / self.N

    def grad(self, i: int, x) -> list:
        return self.clients[i].grad([Fraction(v) for v in x])

    def grads_exact(self, x):
        x = [Fraction(v) for v in x]
        return np.array([self.clients[i].grad(x) for i in range(self.N)], dtype=object).reshape(self.N, self.d)

    def convexity(self, mu):
        """(every fᵢ μ-strongly convex by its certificate, margin): μ ≤ the clients' smallest μ."""
        m = to_fraction(mu)
        if m is None:
            return False, None
        return m <= self.mu, self.mu - m

    def to_json(self) -> list:
        return [f.to_json() for f in self.clients]

    def formula(self) -> str:
        kinds = sorted({f.formula() for f in self.clients})
        return "; ".join(kinds)

    def __repr__(self) -> str:
        return (f"ClientSet(name={self.name!r}, N={self.N}, d={self.d}, beta={rational_str(self.beta)}, "
                f"mu={rational_str(self.mu)})")

