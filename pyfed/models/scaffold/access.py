"""How a statement's terms meet an instance: the model quantities in one arithmetic (exact rationals
:class:`ExactAccess`, certified balls :class:`BallAccess`, floating data :class:`FloatAccess`,
symbols for the run's statistics :class:`SymbolicAccess`), :func:`bind` (the statement's names
-> values on an instance) and :func:`linear_form` (the left side as c + Σ a_r G_r + Σ b_r D_r,
for Monte Carlo and the PEP)."""

from __future__ import annotations

from fractions import Fraction
from fractions import Fraction as Fr

import numpy as np
import sympy

from ... import theory
from ...engines.exact.model import _minimiser, _problem_data
from ...evaluation.numbers import EvaluationError, Undecided, to_exact
from ...exact import as_float, to_arb, to_fraction
from ...statements.evaluate import MINIMIZER_KEY, X0_KEY, RunRef, Valuation, VecRef, evaluate
from ...theory import (
    effective_step,
    initial_control_error,
    squared_distance,
    weight_sum,
    weights,
)
from .instance import RunInstance, is_exact_problem

__all__ = ["ExactAccess", "BallAccess", "FloatAccess", "SymbolicAccess", "NotLinear", "bind", "linear_form", "exact_weights"]


class ExactAccess:
    """Model quantities of a rational quadratic instance in exact rationals (``res``: the exact
    moments, or None when only the right side and hypotheses are needed)."""

    arithmetic = "exact"

    def __init__(self, inst: RunInstance, res=None):
        p = inst.problem
        self.problem, self.inst, self.res = p, inst, res
        self.N, self.d = p.N, p.d
        self.beta = Fraction(p.beta)
        self.sigma = Fraction(inst.sigma)
        self.x0 = VecRef(X0_KEY, np.asarray(inst.x0, dtype=object))
        self.minimizer = VecRef(MINIMIZER_KEY, p.x_star_exact)
        self.f_star = p.f_star

    def dist_sq(self, u, v):
        return squared_distance(u.value, v.value)

    def norm_sq(self, u):
        return sum((x * x for x in u.value), Fraction(0))

    def control_error(self, c0, xs):
        return initial_control_error(c0, self.problem.grads_exact(xs.value))

    def objective(self, x):
        return self.problem.value_exact(x.value)

    def _offset(self, xs):
        return 0 if xs.key == MINIMIZER_KEY else self.f_star - self.objective(xs)

    def gap(self, r, xs):
        return self.res.gaps[r] + self._offset(xs)

    def grad_sq(self, r):
        return self.res.grad_sq[r]

    def weighted_gap(self, run, xs, mu):
        h = effective_step(run.K, run.eta_l, run.eta_g)
        ws, W = exact_weights(run.T, mu, h)
        off = self._offset(xs)
        gaps = self.res.gaps[:run.T] if not off else [g + off for g in self.res.gaps[:run.T]]
        if W == 0:      # Lean: (weightSum …)⁻¹ = 0⁻¹ = 0 (μ h = 2)
            return Fraction(0)
        if isinstance(W, sympy.Basic):      # an irrational μ: exact sympy, never a float
            return sum((w * _sympy(g) for w, g in zip(ws, gaps)), sympy.Integer(0)) / W
        return sum((w * g for w, g in zip(ws, gaps)), Fraction(0)) / W

    def average_grad_sq(self, run):
        return sum(self.res.grad_sq[:run.T], Fraction(0)) / run.T


class BallAccess:
    """Model quantities in certified balls (the exact-moment engine's ball field ``F``; must be
    used inside ``F.active()``); mirrors :func:`pyfed.engines.exact.decide_convex`'s ball path."""

    arithmetic = "ball"

    def __init__(self, F, inst: RunInstance, res, x0v, c0v):
        p = inst.problem
        self.problem, self.inst, self.res, self.F = p, inst, res, F
        self.N, self.d = p.N, p.d
        A, b = _problem_data(F, p)
        xs, fstar = _minimiser(F, p, A, b)
        self.A, self.b, self.xs, self.fstar = A, b, xs, fstar
        self.beta = to_arb(p.beta)
        self.sigma = to_arb(inst.sigma)
        self.x0 = VecRef(X0_KEY, x0v)
        self.minimizer = VecRef(MINIMIZER_KEY, xs)
        self.c0v = c0v

    def dist_sq(self, u, v):
        return sum(((u.value[j] - v.value[j]) ** 2 for j in range(self.d)), to_arb(0))

    def norm_sq(self, u):
        return sum((u.value[j] ** 2 for j in range(self.d)), to_arb(0))

    def control_error(self, c0, xs):
        gstar = [self.A[i].dot(xs.value) - self.b[i] for i in range(self.N)]
        return sum(((c0[i][j] - gstar[i][j]) ** 2 for i in range(self.N) for j in range(self.d)),
                   to_arb(0)) / self.N

    def objective(self, x):
        invN = self.F.scalar(Fr(1, self.N))
        Abar, bbar = self.A.sum(axis=0) * invN, self.b.sum(axis=0) * invN
        v = x.value
        return v.dot(Abar).dot(v) * self.F.scalar(Fr(1, 2)) - bbar.dot(v) if self.d else self.F.scalar(0)

    def _offset(self, xs):
        return None if xs.key == MINIMIZER_KEY else self.fstar - self.objective(xs)

    def gap(self, r, xs):
        off = self._offset(xs)
        return self.res.gaps[r] if off is None else self.res.gaps[r] + off

    def grad_sq(self, r):
        return self.res.grad_sq[r]

    def weighted_gap(self, run, xs, mu):
        el, eg, m = to_arb(run.eta_l), to_arb(run.eta_g), to_arb(mu)
        h = theory.effective_step(run.K, el, eg)
        ws, W = theory.weights(run.T, m, h, lean=True), theory.weight_sum(run.T, m, h, lean=True)
        off = self._offset(xs)
        lhs = to_arb(0)
        for w, g in zip(ws, self.res.gaps[:run.T]):
            lhs = lhs + w * (g if off is None else g + off)
        if W.is_exact() and W == 0:     # Lean: 0⁻¹ = 0 (μ h = 2)
            return to_arb(0)
        if W.contains(0):
            raise Undecided("weightSum is a ball containing 0")
        return lhs / W

    def average_grad_sq(self, run):
        lhs = to_arb(0)
        for g in self.res.grad_sq[:run.T]:
            lhs = lhs + g
        return lhs / run.T


class FloatAccess:
    """Model quantities of a problem with floating data (real data): the same numpy formulas the
    default report has always used; statistics are Monte Carlo's (not available here)."""

    arithmetic = "float"

    def __init__(self, inst: RunInstance, exact_scalars: bool = False):
        p = inst.problem
        self.problem, self.inst = p, inst
        self.N, self.d = p.N, p.d
        conv = (lambda v: Fraction(v) if isinstance(v, float) else v) if exact_scalars else (lambda v: v)
        self.beta = conv(p.beta)
        self.sigma = conv(inst.sigma)
        self.conv = conv
        self.x0 = VecRef(X0_KEY, inst.x0)
        self.minimizer = VecRef(MINIMIZER_KEY, p.x_star)
        self.f_star = p.f_star

    def dist_sq(self, u, v):
        return self.conv(float(np.sum((np.asarray(u.value, dtype=float) - np.asarray(v.value, dtype=float)) ** 2)))

    def norm_sq(self, u):
        return self.conv(float(np.sum(np.asarray(u.value, dtype=float) ** 2)))

    def control_error(self, c0, xs):
        p = self.problem
        gs = p.client_grads(np.broadcast_to(np.asarray(xs.value, dtype=float), (p.N, p.d)))
        return self.conv(float(np.mean(np.sum((np.asarray(c0, dtype=float) - gs) ** 2, axis=1))))

    def objective(self, x):
        return self.conv(float(self.problem.value(np.asarray(x.value, dtype=float))))

    def _stat(self, *a):
        raise EvaluationError(None, "the run's statistics of a floating-data instance are estimated by Monte Carlo")

    gap = grad_sq = weighted_gap = average_grad_sq = _stat


class SymbolicAccess:
    """Exact parameter values with the run's per-round statistics as sympy symbols: G_r (gap of
    round r, key ``(\"gap\", r, xstar)``), D_r (key ``(\"gradsq\", r)``). ``pep=True`` also makes
    ``‖x0 - x⋆‖²`` and ``C₀`` the symbols ``D``, ``C`` (other problem quantities are then
    errors: the PEP knows the function class, not the data)."""

    arithmetic = "symbolic"

    def __init__(self, base, *, pep: bool = False):
        self.base, self.pep = base, pep
        self.N, self.d = base.N, base.d
        self.beta = _sympy(base.beta)
        self.sigma = _sympy(base.sigma)
        self.x0 = base.x0
        self.minimizer = base.minimizer
        self.atoms: dict = {}
        self.D, self.C = sympy.Symbol("distSq"), sympy.Symbol("C0")

    def atom(self, key):
        if key not in self.atoms:
            name = "_".join(str(k) for k in key)
            self.atoms[key] = sympy.Symbol(f"stat_{name}")
        return self.atoms[key]

    def _not_pep(self, what):
        raise NotLinear(f"the right side at σ = 0 involves {what}, not only ‖x0 - x⋆‖² and C₀")

    def dist_sq(self, u, v):
        if self.pep:
            if {u.key, v.key} == {X0_KEY, MINIMIZER_KEY}:
                return self.D
            self._not_pep(f"‖{u.key} - {v.key}‖")
        return _sympy(self.base.dist_sq(u, v))

    def norm_sq(self, u):
        if self.pep:
            self._not_pep(f"‖{u.key}‖")
        return _sympy(self.base.norm_sq(u))

    def control_error(self, c0, xs):
        if self.pep:
            if xs.key == MINIMIZER_KEY:
                return self.C
            self._not_pep("C₀ at a point other than the minimiser")
        return _sympy(self.base.control_error(c0, xs))

    def objective(self, x):
        if self.pep:
            self._not_pep(f"F({x.key}) (objective P.f)")
        return _sympy(self.base.objective(x))

    def gap(self, r, xs):
        g = self.atom(("gap", r))
        if xs.key == MINIMIZER_KEY:
            return g
        if self.pep:
            self._not_pep("a gap to a point other than the minimiser")
        return g + _sympy(self.base.f_star) - _sympy(self.base.objective(xs))

    def grad_sq(self, r):
        return self.atom(("gradsq", r))

    def weighted_gap(self, run, xs, mu):
        h = effective_step(run.K, to_exact(run.eta_l), to_exact(run.eta_g))
        ws, W = exact_weights(run.T, mu, h)
        if W == 0:      # Lean: 0⁻¹ = 0 (μ h = 2)
            return sympy.Integer(0)
        return sum((_sympy(w / W) * self.gap(r, xs) for r, w in enumerate(ws)), sympy.Integer(0))

    def average_grad_sq(self, run):
        return sum((self.grad_sq(r) for r in range(run.T)), sympy.Integer(0)) / run.T


def exact_weights(T: int, mu, h):
    """Lean's weights ``(1 - μ h/2)⁻¹ ^ (r+1)``, r < T, and their sum, exactly: Fractions for a
    rational μ and h (:func:`pyfed.theory.weights` with ``lean=True``: μ h = 2 gives zeros), exact
    sympy numbers for an irrational μ (``weightedGap A xstar (Real.sqrt 2)``) -- never mpmath,
    which would make an "exact" verdict rest on rounded weights."""
    m, hq = to_exact(mu), to_exact(h)
    if to_fraction(m) is not None and to_fraction(hq) is not None:
        m, hq = to_fraction(m), to_fraction(hq)
        return weights(T, m, hq, lean=True), weight_sum(T, m, hq, lean=True)
    q = sympy.simplify(1 - _sympy(m) * _sympy(hq) / 2)
    inv = sympy.Integer(0) if q.is_zero else 1 / q
    ws = [inv ** (r + 1) for r in range(int(T))]
    return ws, sum(ws, sympy.Integer(0))


def _sympy(v):
    if isinstance(v, sympy.Basic):
        return v
    f = to_fraction(v)
    if f is None and isinstance(v, float):
        f = Fraction(v)
    if f is None:
        return sympy.sympify(v)
    return sympy.Rational(f.numerator, f.denominator)


class NotLinear(Exception):
    """The left side is not a linear combination of per-round statistics (or, for the PEP, the
    right side is not a combination of ‖x0 - x⋆‖² and C₀); the message says why."""


def bind(st, inst: RunInstance, access) -> Valuation:
    """The :class:`Valuation` of ``st`` on ``inst`` with the model quantities of ``access``."""
    ar = access.arithmetic

    def real(v):
        if ar == "ball":
            return to_arb(v)
        if ar == "symbolic":
            return _sympy(v)
        if ar == "exact":
            f = to_fraction(v)
            if f is None and isinstance(v, float):
                f = Fraction(v)
            return f if f is not None else v
        return v

    p = inst.problem
    env: dict = {}
    for prm in st.parameters:
        r = prm.role
        if r == "P":
            env[prm.name] = "P"
        elif r in ("nu", "Omega") or prm.kind in ("instance", "space", "measure"):
            env[prm.name] = None
        elif r == "d":
            env[prm.name] = p.d
        elif r == "N":
            env[prm.name] = p.N
        elif r in ("S", "K", "T"):
            env[prm.name] = int(getattr(inst, r))
        elif r in ("eta_l", "eta_g"):
            env[prm.name] = real(getattr(inst, r))
        elif r == "mu":
            env[prm.name] = real(inst.mu if inst.mu is not None else p.mu)
        elif r == "f_low":
            v = inst.f_low if inst.f_low is not None else p.f_low
            env[prm.name] = as_float(v) if ar == "float" else real(v)
        elif r == "xstar":
            env[prm.name] = access.minimizer if inst.xstar is None else VecRef(prm.name, _vec(inst.xstar, access))
        elif r == "c0":
            env[prm.name] = _controls(inst.c0, access)
        elif r == "free":
            v = inst.free[prm.name]
            if prm.kind == "nat":
                env[prm.name] = int(v)
            elif prm.kind == "real":
                env[prm.name] = real(v)
            elif prm.kind == "vector":
                env[prm.name] = VecRef(prm.name, _vec(v, access))
            else:
                env[prm.name] = _controls(v, access)
    run = RunRef(int(inst.S), int(inst.K), int(inst.T), real(inst.eta_l), real(inst.eta_g))
    env[st.role_of("A")] = run
    val = Valuation(ar, env, access)
    val.definitions = st.definitions
    return val


def _vec(v, access):
    if access.arithmetic == "ball":
        return np.array([to_arb(x) for x in v], dtype=object)
    if access.arithmetic == "float":
        return np.asarray(v, dtype=float)
    return np.array([Fraction(x) for x in v], dtype=object)


def _controls(c, access):
    if access.arithmetic == "ball":
        return getattr(access, "c0v", None) if c is None else \
            np.array([[to_arb(x) for x in row] for row in c], dtype=object)
    if access.arithmetic == "float":
        return np.asarray(c, dtype=float)
    return np.array([[Fraction(x) for x in row] for row in c], dtype=object)


def linear_form(st, inst: RunInstance, *, access=None, pep: bool = False):
    """The left side on ``inst`` as ``(c, {("gap", r): a_r, ("gradsq", r): b_r})`` with exact
    sympy coefficients: LHS = c + Σ a_r G_r + Σ b_r D_r. Raises :class:`NotLinear` (with the
    reason) when the left side is not affine in the per-round statistics."""
    base = access or (ExactAccess(inst) if is_exact_problem(inst.problem) else FloatAccess(inst, True))
    sa = SymbolicAccess(base, pep=pep)
    val = bind(st, inst, sa)
    expr = sympy.expand(sympy.sympify(evaluate(st.lhs, val)))
    syms = list(sa.atoms.values())
    try:
        poly = sympy.Poly(expr, *syms) if syms else None
    except sympy.PolynomialError:
        poly = None
    if syms and (poly is None or poly.total_degree() > 1 or any(s in str(expr) for s in ()) ):
        raise NotLinear(f"the left side `{st.lhs.text[:60]}` is not a linear combination of per-round "
                        "expectations (Monte Carlo estimates expectations, so it cannot estimate it without bias)")
    coefs = {}
    const = expr
    for key, s in sa.atoms.items():
        c = expr.coeff(s)
        if c.free_symbols:
            raise NotLinear(f"the coefficient of {key} depends on another statistic")
        if c != 0:
            coefs[key] = c
        const = const - c * s
    const = sympy.simplify(const)
    if const.free_symbols:
        raise NotLinear("the left side is not affine in the per-round statistics")
    return const, coefs
