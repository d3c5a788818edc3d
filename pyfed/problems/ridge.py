r"""Smooth convex functions beyond quadratics, with exact or certified data: *ridge functions*

    f(x) = ½ xᵀQx − ⟨b, x⟩ + c + Σ_m w_m φ(⟨a_m, x⟩ − o_m),      w_m ≥ 0, Q ⪰ 0 symmetric,

with one profile φ per function, each convex with 0 ≤ φ'' ≤ κ_φ:

* ``huber`` (threshold δ > 0): φ(z) = z²/2 for |z| ≤ δ, δ|z| − δ²/2 beyond (κ = 1): smooth,
  convex, with *linear regions*; piecewise quadratic, so values and gradients at rational points
  are exact rationals;
* ``relu2``: φ(z) = max(0, z)²/2 (κ = 1): mixtures of these are convex with a curvature that
  changes (add ``Q = μ I`` for strong convexity); exact rationals;
* ``logcosh``: φ(z) = log cosh z (κ = 1) and ``softplus``: φ(z) = log(1 + eᶻ) − log 2 (κ = 1/4):
  analytic, values and gradients transcendental, evaluated in certified balls (python-flint
  ``arb``);
* ``none`` (no ridge terms): a quadratic.

The Hessian is Q + Σ_m w_m φ''(z_m) a_m a_mᵀ, so the certified constants come from the family's
own formula (:meth:`RidgeFunction.smoothness`, :meth:`RidgeFunction.strong_convexity`): β is a
rational with β I ⪰ Q + κ Σ w_m a_m a_mᵀ and μ a rational with Q ⪰ μ I, each checked by an exact
LDLᵀ (:func:`pyfed.problems.quadratic.is_psd_exact`), never read off a sample.

:func:`centred` builds a client set whose equal-weight average has its minimiser at a given
rational point (the gradient of the average vanishes there exactly), which the run statements'
``IsMinimizer`` and ``F(x⋆)`` need. Every function has a JSON form (:meth:`RidgeFunction.to_json`,
:func:`ridge_from_json`, exact ``"p/q"`` strings) so a witness re-checks exactly.

Source of the profiles: the worst cases of first-order methods on smooth convex functions are
Huber-like (Taylor, Hendrickx & Glineur, Math. Program. 161, 2017, §4; Drori & Teboulle 2014);
max(0, x)² and log-cosh / softplus are the standard smooth losses with changing curvature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..exact import rational_str, to_arb
from .quadratic import is_psd_exact

__all__ = ["RidgeFunction", "PROFILES", "EXACT_PROFILES", "CURVATURE_SUP", "ridge_from_json", "centred",
           "certified_upper", "certified_lower", "NotExact", "gradient_rational", "value_at_zero", "dphi_at_zero"]

#: The profiles φ and their sup of φ'' (the κ of the smoothness bound).
CURVATURE_SUP = {"huber": Fraction(1), "relu2": Fraction(1), "logcosh": Fraction(1), "softplus": Fraction(1, 4),
                 "none": Fraction(0)}
PROFILES = tuple(CURVATURE_SUP)
#: Profiles whose values and gradients at rational points are rational (exact arithmetic).
EXACT_PROFILES = ("huber", "relu2", "none")


class NotExact(Exception):
    """A transcendental value asked for in exact arithmetic (use the ball or float path)."""


def _F(v) -> Fraction:
    if isinstance(v, Fraction):
        return v
    if isinstance(v, bool) or isinstance(v, float):
        raise InputError("instance", f"{v!r} is not an exact rational")
    try:
        return Fraction(v)
    except (TypeError, ValueError, ZeroDivisionError):
        raise InputError("instance", f"{v!r} is not an exact rational") from None


def _q(v) -> str:
    return rational_str(Fraction(v))


@dataclass(frozen=True)
class RidgeFunction:
    """f(x) = ½ xᵀQx − ⟨b, x⟩ + c + Σ_m w_m φ(⟨a_m, x⟩ − o_m) (module docstring).

    Q : (d, d) tuple of Fractions (symmetric, PSD); b : (d,); rows : (m, d) the a_m; offsets (m,):
    the o_m; weights (m,): the w_m ≥ 0; profile : a key of :data:`CURVATURE_SUP`; delta : the Huber
    threshold δ > 0 (``huber`` only); c : the constant. Raises InputError for shapes that disagree,
    a negative weight, an asymmetric Q or δ ≤ 0."""

    Q: tuple
    b: tuple
    rows: tuple = ()
    offsets: tuple = ()
    weights: tuple = ()
    profile: str = "none"
    delta: Fraction = Fraction(1)
    c: Fraction = Fraction(0)
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self):
        d = len(self.b)
        if len(self.Q) != d or any(len(r) != d for r in self.Q):
            raise InputError("instance", f"Q must be {d} x {d}")
        if any(self.Q[i][j] != self.Q[j][i] for i in range(d) for j in range(d)):
            raise InputError("instance", "Q must be symmetric")
        m = len(self.rows)
        if len(self.offsets) != m or len(self.weights) != m or any(len(r) != d for r in self.rows):
            raise InputError("instance", "rows (m x d), offsets (m) and weights (m) must agree")
        if any(w < 0 for w in self.weights):
            raise InputError("instance", "ridge weights must be >= 0 (a convex function)")
        if self.profile not in CURVATURE_SUP:
            raise InputError("instance", f"unknown ridge profile {self.profile!r}; known: {', '.join(PROFILES)}")
        if self.profile == "huber" and not self.delta > 0:
            raise InputError("instance", "the Huber threshold delta must be > 0")

    @classmethod
    def make(cls, Q, b, rows=(), offsets=(), weights=(), profile="none", delta=1, c=0) -> "RidgeFunction":
        """A ridge function from any exact numbers (converted to Fractions)."""
        return cls(tuple(tuple(_F(v) for v in r) for r in Q), tuple(_F(v) for v in b),
                   tuple(tuple(_F(v) for v in r) for r in rows), tuple(_F(v) for v in offsets),
                   tuple(_F(v) for v in weights), profile if rows else "none", _F(delta), _F(c))

    @property
    def d(self) -> int:
        return len(self.b)

    @property
    def exact(self) -> bool:
        """Values and gradients at rational points are rational."""
        return self.profile in EXACT_PROFILES or not self.rows

    # ------------------------------------------------------------------ exact rationals
    def _z(self, x):
        return [sum((a * xi for a, xi in zip(r, x)), Fraction(0)) - o for r, o in zip(self.rows, self.offsets)]

    def _quad(self, x):
        Qx = [sum((q * xi for q, xi in zip(r, x)), Fraction(0)) for r in self.Q]
        return Qx

    def value(self, x) -> Fraction:
        """f(x) exactly (x: d rationals). :class:`NotExact` for a transcendental profile."""
        if not self.exact:
            raise NotExact(f"{self.profile} values are transcendental")
        x = [Fraction(v) for v in x]
        Qx = self._quad(x)
        out = sum((a * q for a, q in zip(x, Qx)), Fraction(0)) / 2 - sum((a * v for a, v in zip(self.b, x)),
                                                                          Fraction(0)) + self.c
        for w, z in zip(self.weights, self._z(x)):
            out += w * _phi_exact(self.profile, z, self.delta)
        return out

    def grad(self, x) -> list:
        """∇f(x) exactly (a list of d Fractions). :class:`NotExact` for a transcendental profile."""
        if not self.exact:
            raise NotExact(f"{self.profile} gradients are transcendental")
        x = [Fraction(v) for v in x]
        g = [q - bi for q, bi in zip(self._quad(x), self.b)]
        for w, r, z in zip(self.weights, self.rows, self._z(x)):
            s = w * _dphi_exact(self.profile, z, self.delta)
            if s:
                g = [gi + s * a for gi, a in zip(g, r)]
        return g

    # ------------------------------------------------------------------ certified balls
    def value_ball(self, x):
        """f(x) as a python-flint ``arb`` (x: d arbs or exact numbers; current precision)."""
        x = [to_arb(v) for v in x]
        out = to_arb(self.c)
        for i in range(self.d):
            for j in range(self.d):
                if self.Q[i][j]:
                    out += to_arb(self.Q[i][j]) * x[i] * x[j] / 2
            out -= to_arb(self.b[i]) * x[i]
        for w, r, o in zip(self.weights, self.rows, self.offsets):
            z = sum((to_arb(a) * xi for a, xi in zip(r, x)), to_arb(0)) - to_arb(o)
            out += to_arb(w) * _phi_ball(self.profile, z, self.delta)
        return out

    def grad_ball(self, x) -> list:
        """∇f(x) as d python-flint ``arb`` balls."""
        x = [to_arb(v) for v in x]
        g = []
        for i in range(self.d):
            v = -to_arb(self.b[i])
            for j in range(self.d):
                if self.Q[i][j]:
                    v += to_arb(self.Q[i][j]) * x[j]
            g.append(v)
        for w, r, o in zip(self.weights, self.rows, self.offsets):
            z = sum((to_arb(a) * xi for a, xi in zip(r, x)), to_arb(0)) - to_arb(o)
            s = to_arb(w) * _dphi_ball(self.profile, z, self.delta)
            g = [gi + s * to_arb(a) for gi, a in zip(g, r)]
        return g

    # ------------------------------------------------------------------ floats (search only)
    def _float_data(self):
        if "float" not in self._cache:
            self._cache["float"] = (np.array(self.Q, dtype=float).reshape(self.d, self.d),
                                    np.array(self.b, dtype=float),
                                    np.array(self.rows, dtype=float).reshape(len(self.rows), self.d),
                                    np.array(self.offsets, dtype=float), np.array(self.weights, dtype=float),
                                    float(self.delta), float(self.c))
        return self._cache["float"]

    def value_float(self, x) -> float:
        """f(x) in floating point (steers a search; never decides anything)."""
        Q, b, R, o, w, dl, c = self._float_data()
        x = np.asarray(x, dtype=float)
        out = 0.5 * x @ Q @ x - b @ x + c
        if len(w):
            out += float(w @ _phi_float(self.profile, R @ x - o, dl))
        return float(out)

    def grad_float(self, x) -> np.ndarray:
        """∇f(x) in floating point (steers a search; never decides anything)."""
        Q, b, R, o, w, dl, _c = self._float_data()
        x = np.asarray(x, dtype=float)
        g = Q @ x - b
        if len(w):
            g = g + R.T @ (w * _dphi_float(self.profile, R @ x - o, dl))
        return g

    # ------------------------------------------------------------------ certified constants
    def curvature_matrix(self) -> list:
        """Q + κ Σ_m w_m a_m a_mᵀ (exact): every Hessian of f is ⪯ it."""
        kappa = CURVATURE_SUP[self.profile]
        M = [list(r) for r in self.Q]
        for w, r in zip(self.weights, self.rows):
            for i in range(self.d):
                for j in range(self.d):
                    M[i][j] += kappa * w * r[i] * r[j]
        return M

    def smoothness(self) -> Fraction:
        """A certified β: a rational with β I ⪰ every Hessian (exact PSD test of β I − M)."""
        if "beta" not in self._cache:
            self._cache["beta"] = certified_upper(self.curvature_matrix())
        return self._cache["beta"]

    def strong_convexity(self) -> Fraction:
        """A certified μ ≥ 0: a rational with Q ⪰ μ I (exact PSD test), φ'' ≥ 0 doing the rest."""
        if "mu" not in self._cache:
            self._cache["mu"] = max(Fraction(0), certified_lower([list(r) for r in self.Q]))
        return self._cache["mu"]

    def convex(self) -> bool:
        """Q ⪰ 0 (exact): with w ≥ 0 and convex φ, f is convex."""
        return bool(is_psd_exact(np.array([list(r) for r in self.Q], dtype=object)))

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        """Exact JSON (``"p/q"`` strings), read back by :func:`ridge_from_json`."""
        out = {"family": "ridge", "profile": self.profile, "Q": [[_q(v) for v in r] for r in self.Q],
               "b": [_q(v) for v in self.b]}
        if self.rows:
            out.update(rows=[[_q(v) for v in r] for r in self.rows], offsets=[_q(v) for v in self.offsets],
                       weights=[_q(v) for v in self.weights])
            if self.profile == "huber":
                out["delta"] = _q(self.delta)
        if self.c:
            out["c"] = _q(self.c)
        return out

    def formula(self) -> str:
        """The function in words (what a counterexample file states)."""
        terms = {"huber": f"H_δ with δ = {_q(self.delta)} (z²/2 for |z| ≤ δ, δ|z| − δ²/2 beyond)",
                 "relu2": "max(0, z)²/2", "logcosh": "log cosh z", "softplus": "log(1 + e^z) − log 2",
                 "none": ""}
        out = "½ xᵀQx − ⟨b, x⟩" + (" + c" if self.c else "")
        if self.rows:
            out += f" + Σ_m w_m φ(⟨a_m, x⟩ − o_m), φ(z) = {terms[self.profile]}"
        return out


def ridge_from_json(data: dict) -> RidgeFunction:
    """The :class:`RidgeFunction` of :meth:`RidgeFunction.to_json` (InputError naming ``instance``
    for a malformed record)."""
    if not isinstance(data, dict) or data.get("family") != "ridge":
        raise InputError("instance", "expected a ridge function record ({\"family\": \"ridge\", ...})")
    try:
        return RidgeFunction.make(data["Q"], data["b"], data.get("rows", ()), data.get("offsets", ()),
                                  data.get("weights", ()), data.get("profile", "none"), data.get("delta", 1),
                                  data.get("c", 0))
    except KeyError as exc:
        raise InputError(f"instance.{exc.args[0]}", "missing") from None


# ---------------------------------------------------------------------- the profiles

def _phi_exact(profile, z, delta):
    if profile == "huber":
        return z * z / 2 if abs(z) <= delta else delta * abs(z) - delta * delta / 2
    if profile == "relu2":
        return z * z / 2 if z > 0 else Fraction(0)
    raise NotExact(profile)


def _dphi_exact(profile, z, delta):
    if profile == "huber":
        return max(-delta, min(delta, z))
    if profile == "relu2":
        return z if z > 0 else Fraction(0)
    raise NotExact(profile)


def _phi_ball(profile, z, delta):
    from flint import arb

    if profile in ("huber", "relu2"):
        dl = to_arb(delta)
        if profile == "relu2":
            if z > 0:
                return z * z / 2
            if z < 0 or z == 0:
                return to_arb(0)
            return (z * z / 2).union(to_arb(0))        # a ball across the kink: both pieces
        if abs(z) < dl:
            return z * z / 2
        if abs(z) > dl:
            return dl * abs(z) - dl * dl / 2
        return (z * z / 2).union(dl * abs(z) - dl * dl / 2)
    if profile == "logcosh":
        # log cosh z = |z| + log1p(e^{-2|z|}) - log 2 (no overflow at large |z|)
        a = abs(z)
        return a + (-2 * a).exp().log1p() - arb(2).log()
    if profile == "softplus":
        # log(1 + e^z) - log 2 = max(z, 0) + log1p(e^{-|z|}) - log 2
        return (z + abs(z)) / 2 + (-abs(z)).exp().log1p() - arb(2).log()
    raise InputError("instance", f"unknown ridge profile {profile!r}")


def _dphi_ball(profile, z, delta):
    if profile == "huber":
        dl = to_arb(delta)
        if abs(z) < dl:
            return z
        if z > dl:
            return dl
        if z < -dl:
            return -dl
        return z.union(dl if z > 0 else -dl) if not (z == 0) else z
    if profile == "relu2":
        if z > 0:
            return z
        if z < 0 or z == 0:
            return to_arb(0)
        return z.union(to_arb(0))
    if profile == "logcosh":
        return z.tanh()
    if profile == "softplus":
        return 1 / (1 + (-z).exp())
    raise InputError("instance", f"unknown ridge profile {profile!r}")


def _phi_float(profile, z, delta):
    if profile == "huber":
        a = np.abs(z)
        return np.where(a <= delta, 0.5 * z * z, delta * a - 0.5 * delta * delta)
    if profile == "relu2":
        return 0.5 * np.maximum(z, 0.0) ** 2
    if profile == "logcosh":
        a = np.abs(z)
        return a + np.log1p(np.exp(-2 * a)) - np.log(2.0)
    if profile == "softplus":
        return np.logaddexp(0.0, z) - np.log(2.0)
    return np.zeros_like(z)


def _dphi_float(profile, z, delta):
    if profile == "huber":
        return np.clip(z, -delta, delta)
    if profile == "relu2":
        return np.maximum(z, 0.0)
    if profile == "logcosh":
        return np.tanh(z)
    if profile == "softplus":
        return 0.5 * (1.0 + np.tanh(0.5 * z))
    return np.zeros_like(z)


def dphi_at_zero(profile) -> Fraction:
    """φ'(0), rational for every profile (0, or 1/2 for softplus)."""
    return Fraction(1, 2) if profile == "softplus" else Fraction(0)


# ---------------------------------------------------------------------- certified bounds

def _nice(x: float, up: bool):
    """Rationals on the safe side of ``x`` within a relative 10⁻⁶ of it, simplest first (the caller
    certifies each exactly; floating point only proposes)."""
    tol = 1e-6 * max(abs(x), 1e-3)
    out = [Fraction(x).limit_denominator(k) for k in (12, 1000)]       # 109/12: the exact value, often
    out = [c for c in out if abs(float(c) - x) <= tol]
    for den in (1, 2, 4, 8, 16, 32, 64, 256, 1024, 4096, 2 ** 16, 2 ** 24, 2 ** 40):
        k = math.ceil(x * den) if up else math.floor(x * den)
        for v in ((k, k + 1) if up else (k, k - 1)):
            cand = Fraction(int(v), den)
            if abs(float(cand) - x) <= tol or den == 2 ** 40:
                out.append(cand)
    return out


def certified_upper(M) -> Fraction:
    """A rational β ≥ λ_max(M) (M symmetric, exact), certified by an exact PSD test of β I − M;
    the simplest such number near the floating-point λ_max."""
    A = np.array([[float(v) for v in r] for r in M], dtype=float) if M else np.zeros((0, 0))
    d = len(M)
    if d == 0:
        return Fraction(0)
    lam = float(np.linalg.eigvalsh(A).max())
    for cand in _nice(lam, up=True):
        if is_psd_exact(np.array([[(cand if i == j else 0) - M[i][j] for j in range(d)] for i in range(d)],
                                 dtype=object)):
            return cand
    # far-off floating point: Gershgorin (always valid)
    return max(sum(abs(Fraction(v)) for v in r) for r in M)


def certified_lower(M) -> Fraction:
    """A rational μ ≤ λ_min(M) (M symmetric, exact), certified by an exact PSD test of M − μ I."""
    d = len(M)
    if d == 0:
        return Fraction(0)
    A = np.array([[float(v) for v in r] for r in M], dtype=float)
    lam = float(np.linalg.eigvalsh(A).min())
    for cand in _nice(lam, up=False):
        if is_psd_exact(np.array([[M[i][j] - (cand if i == j else 0) for j in range(d)] for i in range(d)],
                                 dtype=object)):
            return cand
    return min(Fraction(M[i][i]) - sum(abs(Fraction(M[i][j])) for j in range(d) if j != i) for i in range(d))


# ---------------------------------------------------------------------- client sets

def centred(clients: list, at=None) -> list:
    """The clients with their linear terms shifted so that the gradient of their equal-weight
    average vanishes at ``at`` (default 0) exactly: b_i ← b_i + ∇F(at)·(shared equally). Needs
    rational gradients at ``at``: an exact profile, or offsets 0 and ``at`` = 0 (φ'(0) is rational
    for every profile). The average is then minimised at ``at`` (a convex function with a zero
    gradient)."""
    n = len(clients)
    d = clients[0].d
    at = [Fraction(0)] * d if at is None else [Fraction(v) for v in at]
    total = [Fraction(0)] * d
    for f in clients:
        g = gradient_rational(f, at)
        total = [t + gi for t, gi in zip(total, g)]
    shift = [t / n for t in total]
    out = []
    for f in clients:
        out.append(RidgeFunction(f.Q, tuple(bi + s for bi, s in zip(f.b, shift)), f.rows, f.offsets, f.weights,
                                 f.profile, f.delta, f.c))
    return out


def gradient_rational(f: RidgeFunction, x) -> list:
    """∇f(x) exactly where it is rational: anywhere for an exact profile, at 0 with offsets 0 for a
    transcendental one (φ'(0) is rational); InputError elsewhere."""
    if f.exact:
        return f.grad(x)
    if any(x) or any(f.offsets):
        raise InputError("instance", f"the {f.profile} profile has a rational gradient only at 0 with offsets 0")
    s = dphi_at_zero(f.profile)
    g = [-bi for bi in f.b]
    for w, r in zip(f.weights, f.rows):
        g = [gi + w * s * a for gi, a in zip(g, r)]
    return g


def value_at_zero(f: RidgeFunction) -> Fraction:
    """f(0) exactly for every profile with offsets 0 (φ(0) = 0 for each profile as defined here)."""
    if f.exact:
        return f.value([Fraction(0)] * f.d)
    if any(f.offsets):
        raise NotExact(f"{f.profile} at a nonzero offset")
    return f.c
