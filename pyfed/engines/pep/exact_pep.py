"""Exact description of a performance-estimation problem (PEP): every quantity a linear form, with
rational coefficients, in the entries of a Gram matrix and in function values.

A PEP here is a list of *leaf* vectors (free starting points, x⋆, the gradients returned by the
oracle at new points, free controls) and of *function values* (one per function and point). Every
point, gradient and iterate of the method is a rational combination of the leaves
(:class:`Vec`); every inner product of two such vectors is a linear form in the Gram matrix
G = (⟨leaf_a, leaf_b⟩)_{a,b}; a function value is a variable of its own. A :class:`Form` carries
the coefficients of G_ab (a ≤ b), of the function values and a constant.

:class:`ExactPEP` holds

* ``constraints``: the interpolation inequalities ``form ≤ 0`` of the class F_{μ,L} of L-smooth
  μ-strongly convex functions (Taylor, Hendrickx & Glineur, Math. Program. 161, 2017, Thm 4),
  one per ordered pair of distinct points of the same function;
* ``metric`` and ``init``: the statement to certify is ``metric ≤ τ · init`` for every Gram
  matrix and function values satisfying the constraints (``init`` may be the zero form).

The builders below mirror the PEPit constructions of :mod:`.anchors`, :mod:`.scaffold` and
:mod:`pyfed.models.scaffold.pep` call for call, with exact rational step sizes. The interpolation
inequalities are necessary conditions: every function of the class, evaluated along the method,
satisfies them, which is all an upper bound needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

__all__ = ["Vec", "Form", "ExactPEP", "gram_matrix", "pep_gradient_growth_exact", "pep_perturbed_strong_convexity_exact",
           "pep_nonexpansive_exact", "pep_scaffold_exact"]


def _q(v) -> Fraction:
    return v if isinstance(v, Fraction) else Fraction(v)


class Vec:
    """A rational combination of leaf vectors: ``coef`` maps leaf index -> nonzero Fraction."""

    __slots__ = ("coef",)

    def __init__(self, coef=None):
        self.coef = {k: v for k, v in (coef or {}).items() if v != 0}

    def __add__(self, other):
        out = dict(self.coef)
        for k, v in other.coef.items():
            out[k] = out.get(k, 0) + v
        return Vec(out)

    def __sub__(self, other):
        return self + (-1) * other

    def __rmul__(self, s):
        s = _q(s)
        return Vec({k: s * v for k, v in self.coef.items()})

    def key(self):
        """Hashable exact identity of the vector (two iterates with equal keys are one point)."""
        return tuple(sorted(self.coef.items()))


def mean_vec(vs):
    """(1/n) Σ vs (exact)."""
    total = Vec()
    for v in vs:
        total = total + v
    return Fraction(1, len(vs)) * total


@dataclass
class Form:
    """A linear form Σ_{a≤b} gram[(a,b)]·G_ab + Σ_j fval[j]·F_j + const, rational coefficients."""

    gram: dict = field(default_factory=dict)
    fval: dict = field(default_factory=dict)
    const: Fraction = Fraction(0)

    def __add__(self, other):
        g, f = dict(self.gram), dict(self.fval)
        for k, v in other.gram.items():
            g[k] = g.get(k, 0) + v
        for k, v in other.fval.items():
            f[k] = f.get(k, 0) + v
        return Form({k: v for k, v in g.items() if v != 0}, {k: v for k, v in f.items() if v != 0},
                    self.const + other.const)

    def __sub__(self, other):
        return self + (-1) * other

    def __rmul__(self, s):
        s = _q(s)
        if s == 0:
            return Form()
        return Form({k: s * v for k, v in self.gram.items()}, {k: s * v for k, v in self.fval.items()},
                    s * self.const)


def inner(u: Vec, v: Vec) -> Form:
    """⟨u, v⟩ as a form in the Gram entries (G_ab with a ≤ b; an off-diagonal entry counts twice
    in a symmetric matrix, once here)."""
    g: dict = {}
    for a, x in u.coef.items():
        for b, y in v.coef.items():
            k = (a, b) if a <= b else (b, a)
            g[k] = g.get(k, 0) + x * y
    return Form({k: c for k, c in g.items() if c != 0})


def sq(u: Vec) -> Form:
    """‖u‖² as a form."""
    return inner(u, u)


def fvalue(j: int, coef=1) -> Form:
    """coef · F_j."""
    return Form({}, {j: _q(coef)})


class _Function:
    """One function of F_{μ,L} as seen by the PEP: its points, gradients and values."""

    def __init__(self, pep, index, L, mu):
        self.pep, self.index, self.L, self.mu = pep, index, _q(L), _q(mu)
        self.points = []   # (key, x: Vec, g: Vec, fvalue index)

    def _lookup(self, x):
        k = x.key()
        for key, p, g, j in self.points:
            if key == k:
                return p, g, j
        return None

    def add_point(self, x: Vec, g: Vec | None = None, name: str = "x"):
        """Register x with gradient g (a new leaf when None) and a new function value."""
        found = self._lookup(x)
        if found is not None:
            return found
        if g is None:
            g = self.pep.new_leaf(f"g{self.index}({name})")
        j = self.pep.new_fvalue(f"f{self.index}({name})")
        self.points.append((x.key(), x, g, j))
        return x, g, j

    def gradient(self, x: Vec, name: str = "x") -> Vec:
        return self.add_point(x, name=name)[1]

    def value(self, x: Vec, name: str = "x") -> Form:
        return fvalue(self.add_point(x, name=name)[2])

    def interpolation(self, keep=None):
        """The interpolation inequalities of F_{μ,L} on the points registered, as (name, form ≤ 0):
        f_j - f_i + ⟨g_j, x_i - x_j⟩ + 1/(2(1 - μ/L)) (‖g_i - g_j‖²/L + μ‖x_i - x_j‖²
        - 2(μ/L)⟨g_j - g_i, x_j - x_i⟩) ≤ 0 for every ordered pair i ≠ j (only the pairs (a, b) of
        point indices with ``keep(a, b)`` true when ``keep`` is given: a relaxation)."""
        L, mu = self.L, self.mu
        c = 1 / (2 * (1 - mu / L))
        out = []
        for a, (_, xi, gi, fi) in enumerate(self.points):
            for b, (_, xj, gj, fj) in enumerate(self.points):
                if a == b or (keep is not None and not keep(a, b)):
                    continue
                form = fvalue(fj) - fvalue(fi) + inner(gj, xi - xj)
                quad = (1 / L) * sq(gi - gj)
                if mu != 0:
                    quad = quad + mu * sq(xi - xj) - (2 * mu / L) * inner(gj - gi, xj - xi)
                out.append((f"f{self.index}: points {a},{b}", form + c * quad))
        return out


class ExactPEP:
    """An exact PEP: ``leaves`` (names of the Gram basis), ``fvalues`` (names), ``constraints``
    (list of (name, :class:`Form`) meaning form ≤ 0), ``metric`` and ``init`` (the claim is
    metric ≤ τ·init on the feasible set), ``description`` (what was built, for reports)."""

    def __init__(self, description: str = ""):
        self.leaves: list[str] = []
        self.fvalues: list[str] = []
        self.functions: list[_Function] = []
        self.extra: list = []
        self.metric = Form()
        self.init = Form()
        self.description = description
        self._constraints = None
        #: None (every interpolation inequality) or keep(a, b) selecting pairs of point indices of
        #: each function (fewer inequalities: a relaxation, sound for upper bounds and certificates)
        self.keep_pair = None

    def new_leaf(self, name: str) -> Vec:
        self.leaves.append(name)
        return Vec({len(self.leaves) - 1: Fraction(1)})

    def new_fvalue(self, name: str) -> int:
        self.fvalues.append(name)
        return len(self.fvalues) - 1

    def new_function(self, L, mu=0) -> _Function:
        if not (0 <= _q(mu) < _q(L)):
            raise ValueError(f"the class F_(mu,L) needs 0 <= mu < L (mu={mu}, L={L})")
        f = _Function(self, len(self.functions), L, mu)
        self.functions.append(f)
        return f

    def stationary_point(self, fs) -> tuple:
        """x⋆ with Σ_i ∇f_i(x⋆) = 0: a new leaf x⋆, gradients of f_0..f_{N-2} new leaves, the last
        one minus their sum (as PEPit's ``stationary_point`` of a sum). Returns (x⋆, [g_i⋆])."""
        xs = self.new_leaf("x*")
        gs = [self.new_leaf(f"g{f.index}(x*)") for f in fs[:-1]]
        last = Vec()
        for g in gs:
            last = last - g
        gs.append(last)
        for f, g in zip(fs, gs):
            f.add_point(xs, g, name="x*")
        return xs, gs

    @property
    def constraints(self) -> list:
        if self._constraints is None:
            out = []
            for f in self.functions:
                out.extend(f.interpolation(self.keep_pair))
            self._constraints = out + list(self.extra)
        return self._constraints

    def sizes(self) -> dict:
        return {"leaves": len(self.leaves), "function_values": len(self.fvalues),
                "constraints": len(self.constraints)}


def gram_matrix(form: Form, n: int) -> list:
    """The symmetric n × n matrix Q with ⟨Q, G⟩ = the form's Gram part (Q_ab = coef/2 off the
    diagonal)."""
    Q = [[Fraction(0)] * n for _ in range(n)]
    for (a, b), v in form.gram.items():
        if a == b:
            Q[a][a] = Fraction(v)
        else:
            Q[a][b] = Q[b][a] = Fraction(v) / 2
    return Q


# ---------------------------------------------------------------------------------------- builders
def pep_gradient_growth_exact(N: int = 2, beta=1, factor=2) -> ExactPEP:
    """``SCAFFOLD.GradientGrowth``: (1/N) Σ_i ‖∇h_i(x) - ∇h_i(x⋆)‖² - factor·β (F(x) - F(x⋆)) ≤ 0
    for convex β-smooth h_i, x⋆ a stationary point of F = (1/N) Σ h_i (τ = 0, no initial form)."""
    pep = ExactPEP(f"GradientGrowth N={N} beta={beta} factor={factor}")
    beta = _q(beta)
    fs = [pep.new_function(beta, 0) for _ in range(N)]
    xs, gs = pep.stationary_point(fs)
    x = pep.new_leaf("x")
    lhs, gap = Form(), Form()
    for f, g in zip(fs, gs):
        lhs = lhs + Fraction(1, N) * sq(f.gradient(x) - g)
        gap = gap + Fraction(1, N) * (f.value(x) - f.value(xs))
    pep.metric = lhs - (_q(factor) * beta) * gap
    pep.init = sq(x - xs)
    return pep


def pep_perturbed_strong_convexity_exact(beta=1, mu=0) -> ExactPEP:
    """``SCAFFOLD.PerturbedStrongConvexity`` for one client: f(z) - f(y) + μ/4‖y - z‖² - β‖z - x‖²
    - ⟨∇f(x), z - y⟩ ≤ 0 for f β-smooth μ-strongly convex (τ = 0)."""
    pep = ExactPEP(f"PerturbedStrongConvexity beta={beta} mu={mu}")
    beta, mu = _q(beta), _q(mu)
    f = pep.new_function(beta, mu)
    x, y, z = pep.new_leaf("x"), pep.new_leaf("y"), pep.new_leaf("z")
    pep.metric = (f.value(z, "z") - f.value(y, "y") + (mu / 4) * sq(y - z) - beta * sq(z - x)
                  - inner(f.gradient(x, "x"), z - y))
    pep.init = sq(x - y) + sq(y - z)
    return pep


def pep_nonexpansive_exact(beta=1, eta=1, mu=0) -> ExactPEP:
    """``SCAFFOLD.GradientStepNonexpansive`` squared: ‖x - y - η(∇h(x) - ∇h(y))‖² ≤ 1·‖x - y‖²
    (τ = 1)."""
    pep = ExactPEP(f"GradientStepNonexpansive beta={beta} eta={eta} mu={mu}")
    beta, eta, mu = _q(beta), _q(eta), _q(mu)
    h = pep.new_function(beta, mu)
    x, y = pep.new_leaf("x"), pep.new_leaf("y")
    pep.metric = sq(x - y - eta * (h.gradient(x, "x") - h.gradient(y, "y")))
    pep.init = sq(x - y)
    return pep


def pep_scaffold_exact(N: int, K: int, eta_l, eta_g, beta, mu, gap_coefs: dict, grad_coefs: dict,
                       pot_coef, *, controls: bool = True) -> ExactPEP:
    """Deterministic SCAFFOLD (option II controls, S = N, σ = 0) or, with ``controls=False``,
    FedAvg (controls frozen at 0), as :func:`pyfed.models.scaffold.pep._build`:

    metric = Σ_r gap_coefs[r] (F(x_r) - F⋆) + Σ_r grad_coefs[r] ‖∇F(x_r)‖² (r = 0..R, R the
    largest round with a coefficient), init = ‖x0 - x⋆‖² + pot_coef·(1/N) Σ_i ‖c_i - ∇f_i(x⋆)‖²
    (c_i = 0 for FedAvg). All coefficients exact rationals."""
    pep = ExactPEP(f"{'SCAFFOLD' if controls else 'FedAvg'} N={N} K={K} eta_l={eta_l} eta_g={eta_g} "
                   f"beta={beta} mu={mu}")
    eta_l, eta_g, pot_coef = _q(eta_l), _q(eta_g), _q(pot_coef)
    fs = [pep.new_function(beta, mu) for _ in range(N)]
    xs, gstar = pep.stationary_point(fs)
    x0 = pep.new_leaf("x0")
    c = [pep.new_leaf(f"c{i}") for i in range(N)] if controls else [Vec() for _ in range(N)]
    C0 = Form()
    for i in range(N):
        C0 = C0 + Fraction(1, N) * sq(c[i] - gstar[i])
    pep.init = sq(x0 - xs) + pot_coef * C0

    def F_at(x, name):
        return Form() + Fraction(1, N) * _sum_forms([f.value(x, name) for f in fs])

    F_star = F_at(xs, "x*")
    x = x0
    R = max(list(gap_coefs) + list(grad_coefs) + [0])
    metric = Form()
    for r in range(R + 1):
        if r in gap_coefs:
            metric = metric + _q(gap_coefs[r]) * (F_at(x, f"x{r}") - F_star)
        if r in grad_coefs:
            metric = metric + _q(grad_coefs[r]) * sq(mean_vec([f.gradient(x, f"x{r}") for f in fs]))
        if r == R:
            break
        cbar = mean_vec(c)
        new_c, y_last = [], []
        for i, f in enumerate(fs):
            y = x
            grads = []
            for k in range(K):
                g = f.gradient(y, f"y{i},{r},{k}")
                grads.append(g)
                y = y - eta_l * ((g - c[i] + cbar) if controls else g)
            y_last.append(y)
            new_c.append(mean_vec(grads))
        x = x + eta_g * (mean_vec(y_last) - x)
        if controls:
            c = new_c
    pep.metric = metric
    return pep


def _sum_forms(forms) -> Form:
    total = Form()
    for f in forms:
        total = total + f
    return total
