"""Matching an implementation's oracle calls to the algorithm's.

The algorithm's calls of a selected client in a round are its K local steps, in order, at the
points y_{i,0} = x, y_{i,1}, ... (and, for SCAFFOLD option I, one fresh sample at x, anywhere).
An implementation may make other calls too (a diagnostic gradient, an evaluation, a client
trained twice), and with pyfed's noise every call draws its own noise (keyed by the call's index
j). :func:`match_client` finds every assignment of the algorithm's calls to the client's calls
that is consistent with the points: the local step k is a call at y_{i,k} (within the precision's
bound), later than step k - 1's, and y_{i,k+1} is computed exactly from the noise that very call
received. The engine then replays the round with those draws; the calls left over are reported as
extra calls. When no assignment exists the deepest failure says where the local path first
differs (:class:`MatchFailure`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

__all__ = ["Assignment", "MatchFailure", "match_client", "MAX_ASSIGNMENTS"]

#: At most this many assignments per client are kept (ambiguity arises only from repeated calls
#: at one point, e.g. a diagnostic gradient at x).
MAX_ASSIGNMENTS = 8


@dataclass
class Assignment:
    """One consistent assignment for one client.

    Attributes
    ----------
    local : tuple of int
        The call index j of each local step k = 0..K-1.
    control : int | None
        Option I's fresh call at x (None otherwise).
    points : list of (d,) Fractions
        y_{i,0..K} along the matched draws (exact).
    grads : list of (d,) Fractions
        The stochastic gradient (with the call's noise) of each local step (exact).
    """

    local: tuple
    control: int | None
    points: list
    grads: list

    def used(self) -> set:
        return set(self.local) | ({self.control} if self.control is not None else set())


@dataclass
class MatchFailure:
    """Where the local path first differs.

    Attributes
    ----------
    client : int
    step : int
        k of the first point y_{i,k} not found among the calls (K: option I's call at x).
    expected : (d,) Fractions
    observed : ndarray (d,) | None
        The first call after the last matched one (None: the client made no further call).
    history : list of ((d,) Fractions, (d,) Fractions)
        The matched points and their gradients before step k.
    used : tuple of int
        The matched call indices.
    """

    client: int
    step: int
    expected: np.ndarray
    observed: np.ndarray | None
    history: list = field(default_factory=list)
    used: tuple = ()


def match_client(ctx, i: int, x, corr, calls: list, noise_of, close_point) -> tuple[list, MatchFailure | None]:
    """Assignments of the algorithm's calls of client i to ``calls`` [(j, y float64 (d,))].

    ``x`` (d,) exact start point; ``corr`` SCAFFOLD's c - c_i (None otherwise); ``noise_of(j)``
    the exact noise vector (d,) of the client's call j; ``close_point(observed, expected, k)``
    whether a call point matches y_{i,k} within the precision's bound. Returns (assignments, the
    deepest failure when there is no assignment)."""
    spec = ctx.spec
    A_i, b_i = ctx.A[i], ctx.b[i]
    K = spec.K
    option_one = spec.algorithm == "scaffold" and spec.option == "I"
    found: list = []
    deepest: list = [None]

    def fail(k, y, last_j, hist, js):
        nxt = next((pt for j, pt in calls if j > last_j and j not in js), None)
        f = MatchFailure(i, k, y, nxt, list(hist), tuple(js))
        if deepest[0] is None or k > deepest[0].step:
            deepest[0] = f

    def dfs(k, last_j, y, hist, js):
        if len(found) >= MAX_ASSIGNMENTS:
            return
        if k == K:
            pts = [p for p, _ in hist] + [y]
            grads = [g for _, g in hist]
            if not option_one:
                found.append(Assignment(tuple(js), None, pts, grads))
                return
            ok = False
            for j, pt in calls:
                if j not in js and close_point(pt, x, 0):
                    ok = True
                    found.append(Assignment(tuple(js), j, pts, grads))
            if not ok:
                fail(K, np.array(x, dtype=object), -1, hist, js)
            return
        ok = False
        for j, pt in calls:
            if j <= last_j or not close_point(pt, y, k):
                continue
            ok = True
            g = A_i.dot(y) - b_i + noise_of(j)
            step = g
            if corr is not None:
                step = step + corr
            elif spec.algorithm == "fedprox":
                step = step + spec.mu * (y - x)
            dfs(k + 1, j, y - spec.eta_l * step, hist + [(y, g)], js + [j])
        if not ok:
            fail(k, y, last_j, hist, js)

    dfs(0, -1, np.array(x, dtype=object), [], [])
    return found, (None if found else deepest[0])


def exact_noise(scale: Fraction, signs) -> np.ndarray:
    """s * eps as exact Fractions (d,)."""
    return np.array([scale * int(e) for e in signs], dtype=object)
