r"""A function of the class F_{μ,L} through given points, values and gradients, exactly: the
constructive interpolation of Taylor, Hendrickx & Glineur (*Smooth strongly convex interpolation
and exact worst-case performance of first-order methods*, Math. Program. 161, 2017, Thm 4).

Data {(x_i, g_i, f_i)} (rational) are F_{μ,L}-interpolable iff, with g̃_i = g_i − μ x_i,
f̃_i = f_i − μ‖x_i‖²/2 and L' = L − μ,

    f̃_i ≥ f̃_j + ⟨g̃_j, x_i − x_j⟩ + ‖g̃_i − g̃_j‖² / (2 L')      for every i ≠ j,

and then f = f̃ + μ‖·‖²/2 with (the conjugate of the max of the conjugate data's quadratics)

    f̃(x) = min_{λ ∈ Δ}  L'/2 ‖x − Σ_i λ_i z_i‖² + Σ_i λ_i c_i,     z_i = x_i − g̃_i / L',
                                                                  c_i = f̃_i − ‖g̃_i‖² / (2 L'),

∇f̃(x) = L' (x − Σ_i λ*_i z_i): an L'-smooth convex function with f̃(x_i) = f̃_i, ∇f̃(x_i) = g̃_i.
:class:`InterpolatedFunction` evaluates it exactly at any rational point (the simplex QP solved
exactly: the support guessed in floating point, the KKT system solved in rationals and its sign
conditions checked; other supports are enumerated when the guess fails), so a counterexample
built from it re-checks exactly, and its class membership is certified by the exact check of the
inequalities above (:func:`check_interpolable`), not by a sample.

:func:`repair_values` moves rounded function values (a PEP's numerical worst case) to the largest
values below them that satisfy the inequalities (a system of difference constraints, solved
exactly by Bellman–Ford), or says which pair of points cannot be interpolated.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..exact import rational_str

__all__ = ["InterpolatedFunction", "NotInterpolable", "check_interpolable", "repair_values", "interpolated_from_json",
           "solve_exact"]


class NotInterpolable(Exception):
    """The data are not interpolable by a function of F_{μ,L}; the message says where."""


def _F(v) -> Fraction:
    return v if isinstance(v, Fraction) else Fraction(v)


def _dot(u, v):
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def _tilde(points, grads, values, mu):
    gt = [[g - mu * x for g, x in zip(gi, xi)] for gi, xi in zip(grads, points)]
    ft = None if values is None else [f - mu * _dot(x, x) / 2 for f, x in zip(values, points)]
    return gt, ft


def _weights(points, gt, Lp):
    """w[i][j] with the constraint f̃_i ≥ f̃_j + w[i][j] (i ≠ j)."""
    n = len(points)
    w = [[None] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                dg = [a - b for a, b in zip(gt[i], gt[j])]
                w[i][j] = _dot(gt[j], [a - b for a, b in zip(points[i], points[j])]) + _dot(dg, dg) / (2 * Lp)
    return w


def check_interpolable(points, grads, values, mu, L) -> str | None:
    """None when the data are F_{μ,L}-interpolable (exact test of every pair), else why not."""
    mu, L = _F(mu), _F(L)
    if not (0 <= mu < L):
        return f"the class needs 0 <= mu < L (mu = {mu}, L = {L})"
    gt, ft = _tilde(points, grads, values, mu)
    w = _weights(points, gt, L - mu)
    for i in range(len(points)):
        for j in range(len(points)):
            if i != j and ft[i] < ft[j] + w[i][j]:
                return (f"points {j} -> {i}: f_{i} is below the lower bound the class imposes from point {j} "
                        f"by {float(ft[j] + w[i][j] - ft[i]):.3g}")
    return None


def repair_values(points, grads, targets, mu, L) -> list:
    """The largest function values ≤ ``targets`` (componentwise) with which the data are
    F_{μ,L}-interpolable (points and gradients kept), exactly; raises :class:`NotInterpolable`
    when no values make them so (the gradients alone break co-coercivity along a cycle)."""
    mu, L = _F(mu), _F(L)
    if not (0 <= mu < L):
        raise NotInterpolable(f"the class needs 0 <= mu < L (mu = {mu}, L = {L})")
    points = [[_F(v) for v in x] for x in points]
    grads = [[_F(v) for v in g] for g in grads]
    gt, ft = _tilde(points, grads, [_F(v) for v in targets], mu)
    n = len(points)
    w = _weights(points, gt, L - mu)
    for _ in range(n + 1):
        changed = False
        for i in range(n):
            for j in range(n):
                if i != j and ft[j] > ft[i] - w[i][j]:
                    ft[j] = ft[i] - w[i][j]
                    changed = True
        if not changed:
            return [f + mu * _dot(x, x) / 2 for f, x in zip(ft, points)]
    raise NotInterpolable("the gradients violate the class's co-coercivity along a cycle of points (no function "
                          "values can repair it)")


class InterpolatedFunction:
    """The Taylor–Hendrickx–Glineur interpolant of F_{μ,L} through exact data (module docstring).

    points, grads : (n, d) rationals; values : (n,) rationals; mu, L : the class (0 ≤ μ < L).
    Raises :class:`NotInterpolable` when the data are not interpolable (checked exactly)."""

    def __init__(self, points, grads, values, mu, L):
        self.points = [tuple(_F(v) for v in x) for x in points]
        self.grads = [tuple(_F(v) for v in g) for g in grads]
        self.values = [_F(v) for v in values]
        self.mu, self.L = _F(mu), _F(L)
        if not self.points:
            raise NotInterpolable("no data points")
        self.d = len(self.points[0])
        why = check_interpolable(self.points, self.grads, self.values, self.mu, self.L)
        if why:
            raise NotInterpolable(why)
        self.Lp = self.L - self.mu
        gt, ft = _tilde(self.points, self.grads, self.values, self.mu)
        self.z = [tuple(x - g / self.Lp for x, g in zip(xi, gi)) for xi, gi in zip(self.points, gt)]
        self.cst = [f - _dot(g, g) / (2 * self.Lp) for f, g in zip(ft, gt)]
        self._index = {x: k for k, x in enumerate(self.points)}
        self._memo: dict = {}

    # ------------------------------------------------------------------ exact
    def _at(self, x):
        x = tuple(_F(v) for v in x)
        if x in self._memo:
            return self._memo[x]
        k = self._index.get(x)
        if k is not None:
            out = (self.values[k], list(self.grads[k]))
        else:
            lam = self._solve(x)
            zl = [sum((lk * z[j] for lk, z in zip(lam, self.z)), Fraction(0)) for j in range(self.d)]
            r = [a - b for a, b in zip(x, zl)]
            ftil = self.Lp * _dot(r, r) / 2 + sum((lk * c for lk, c in zip(lam, self.cst)), Fraction(0))
            gtil = [self.Lp * v for v in r]
            out = (ftil + self.mu * _dot(x, x) / 2, [g + self.mu * v for g, v in zip(gtil, x)])
        if len(self._memo) < 4096:
            self._memo[x] = out
        return out

    def value(self, x) -> Fraction:
        """f(x) exactly."""
        return self._at(x)[0]

    def grad(self, x) -> list:
        """∇f(x) exactly."""
        return list(self._at(x)[1])

    def _solve(self, x) -> list:
        """The exact minimiser λ of the simplex QP at x (module docstring)."""
        n = len(self.z)
        guess = self._float_support(x)
        tried = set()
        for S in itertools.chain([guess], _neighbours(guess, n), _all_supports(n)):
            S = tuple(sorted(S))
            if not S or S in tried:
                continue
            tried.add(S)
            lam = self._kkt(x, S)
            if lam is not None:
                return lam
        raise NotInterpolable("the interpolant's quadratic program has no exact solution (internal error)")

    def _kkt(self, x, S):
        """λ (length n) when the KKT system on support S has a solution meeting every sign
        condition, else None."""
        m = len(S)
        Lp = self.Lp
        Zs = [self.z[i] for i in S]
        A = [[Lp * _dot(Zs[a], Zs[b]) for b in range(m)] + [Fraction(1)] for a in range(m)]
        A.append([Fraction(1)] * m + [Fraction(0)])
        rhs = [Lp * _dot(Zs[a], x) - self.cst[S[a]] for a in range(m)] + [Fraction(1)]
        sol = solve_exact(A, rhs)
        if sol is None:
            return None
        lamS, nu = sol[:m], sol[m]
        if any(v < 0 for v in lamS):
            return None
        lam = [Fraction(0)] * len(self.z)
        for k, i in enumerate(S):
            lam[i] = lamS[k]
        zl = [sum((lk * z[j] for lk, z in zip(lam, self.z)), Fraction(0)) for j in range(self.d)]
        r = [a - b for a, b in zip(x, zl)]
        for i in range(len(self.z)):
            if i not in S and -Lp * _dot(self.z[i], r) + self.cst[i] + nu < 0:
                return None
        return lam

    def _float_support(self, x):
        from scipy.optimize import minimize
        Z = np.array([[float(v) for v in z] for z in self.z])
        c = np.array([float(v) for v in self.cst])
        xf = np.array([float(v) for v in x])
        Lp = float(self.Lp)
        n = len(c)

        def obj(lam):
            r = xf - Z.T @ lam
            return 0.5 * Lp * r @ r + c @ lam

        def jac(lam):
            return -Lp * Z @ (xf - Z.T @ lam) + c
        start = np.full(n, 1.0 / n)
        res = minimize(obj, start, jac=jac, method="SLSQP", bounds=[(0.0, 1.0)] * n,
                       constraints=[{"type": "eq", "fun": lambda lam: lam.sum() - 1.0, "jac": lambda lam: np.ones(n)}],
                       options={"ftol": 1e-14, "maxiter": 200})
        lam = np.clip(res.x, 0, None)
        return tuple(i for i in range(n) if lam[i] > 1e-9) or (int(np.argmax(lam)),)

    # ------------------------------------------------------------------ floats (search only)
    def value_float(self, x) -> float:
        return float(self.value([Fraction(float(v)) for v in x]))

    def grad_float(self, x) -> np.ndarray:
        return np.array([float(v) for v in self.grad([Fraction(float(v)) for v in x])])

    # ------------------------------------------------------------------ class constants, JSON
    def smoothness(self) -> Fraction:
        return self.L

    def strong_convexity(self) -> Fraction:
        return self.mu

    def convex(self) -> bool:
        return True

    def to_json(self) -> dict:
        q = rational_str
        return {"family": "interpolated", "mu": q(self.mu), "L": q(self.L),
                "points": [[q(v) for v in x] for x in self.points], "grads": [[q(v) for v in g] for g in self.grads],
                "values": [q(v) for v in self.values]}

    def formula(self) -> str:
        cls = f"F_(μ={rational_str(self.mu)}, L={rational_str(self.L)})"
        return (f"the Taylor–Hendrickx–Glineur interpolant of {cls} "
                f"through {len(self.points)} points: f(x) = μ‖x‖²/2 + min over the simplex of "
                "L'/2 ‖x − Σ λ_i z_i‖² + Σ λ_i c_i")


def interpolated_from_json(data: dict) -> InterpolatedFunction:
    """The :class:`InterpolatedFunction` of :meth:`InterpolatedFunction.to_json` (InputError naming
    ``instance`` for a malformed record or data that are not interpolable)."""
    try:
        return InterpolatedFunction(data["points"], data["grads"], data["values"], data["mu"], data["L"])
    except KeyError as exc:
        raise InputError(f"instance.{exc.args[0]}", "missing") from None
    except (ValueError, TypeError, ZeroDivisionError) as exc:
        raise InputError("instance", f"malformed interpolated function: {exc}") from None
    except NotInterpolable as exc:
        raise InputError("instance", f"the recorded data are not interpolable: {exc}") from None


def _neighbours(S, n):
    S = set(S)
    for i in range(n):
        if i not in S:
            yield tuple(S | {i})
    for i in list(S):
        if len(S) > 1:
            yield tuple(S - {i})


def _all_supports(n):
    if n > 14:
        return
    for k in range(1, n + 1):
        yield from itertools.combinations(range(n), k)


def solve_exact(A, b):
    """The solution of A y = b (square, exact rationals) by Gauss–Jordan elimination, or None when A is
    singular."""
    n = len(A)
    M = [list(A[i]) + [b[i]] for i in range(n)]
    for c in range(n):
        piv = next((r for r in range(c, n) if M[r][c] != 0), None)
        if piv is None:
            return None
        M[c], M[piv] = M[piv], M[c]
        p = M[c][c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / p
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]
