r"""Instance families of the Lean model ``FedAvg.Problem`` that the FedAvg engines decide exactly.

An instance is a JSON dict of exact rationals (``"p/q"`` strings), read by
:func:`instance_from_json` into a :class:`~pyfed.models.fedavg.access.FedAvgRunInstance`
whose problem hypotheses (the fields of ``FedAvg.Problem``: convexity, L-smoothness,
``‖∇Fᵢ(x) − ∇F(x)‖ ≤ ζ`` everywhere, the noise bound) are decided exactly:

* ``quadratic`` (default): Fᵢ(x) = ½ xᵀAx − bᵢᵀx, one Hessian ``A`` shared by every client (then
  ζ² = maxᵢ ‖bᵢ − b̄‖² exactly; clients with different Hessians have unbounded gradient
  dissimilarity and are no ``Problem``), Gaussian oracle with E‖ξ‖² = σ²::

      {"A": [[d x d]], "b": [[d] x M], "L", "sigma", "zeta_sq" (optional), "tau", "T", "eta", "x0": [d]}

* ``sqrt``: one dimension, Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²) with Σbᵢ = Σcᵢ = 0 (F = a x²/2,
  x⋆ = 0, F⋆ = 0), σ = 0; different curvatures, ζ² ≥ maxᵢ (|bᵢ| + |cᵢ|)² certified (the supremum);
  runs in certified balls::

      {"family": "sqrt", "a", "b": [M], "c": [M], "L", "sigma": "0", "zeta_sq", "tau", "T", "eta", "x0": [x]}

* ``huber``: d dimensions, Fᵢ(x) = xᵀQx/2 − ⟨bᵢ, x⟩ + Σₘ c_{im} ψ(⟨uₘ, x⟩) with the Huber function
  ψ(s) = s²/2 (|s| ≤ 1), |s| − 1/2 (|s| > 1), Σᵢ bᵢ = 0 and Σᵢ c_{im} = 0 (F = xᵀQx/2, x⋆ = 0,
  F⋆ = 0), σ = 0; exact rational runs (``Q`` a symmetric PSD matrix, or ``"a"`` for Q = a I).
  ∇Fᵢ − ∇F = −bᵢ + Σₘ c_{im} clip(⟨uₘ, x⟩, −1, 1) uₘ, so ζ² ≥ maxᵢ max over the vertices
  s ∈ {−1, 1}^m of ‖−bᵢ + Σₘ c_{im} sₘ uₘ‖² is a certified bound (the supremum when the uₘ are
  independent); the Hessians Q + Σ_{m ∈ S} c_{im} uₘuₘᵀ (S the directions in their quadratic
  zone) are PSD for every S iff the one with every negative c_{im} is, and below L I iff the one
  with every positive c_{im} is (exact PSD tests). Clients with different curvature whose drift
  exceeds what shared-Hessian clients reach (τ²η²ζ² is their supremum)::

      {"family": "huber", "Q": [[d x d]] (or "a"), "b": [[d] x M], "c": [[m] x M], "u": [[d] x m], "L",
       "sigma": "0", "zeta_sq", "tau", "T", "eta", "x0": [d]}

* ``ridge``: d dimensions, Fᵢ(x) = ½ xᵀQx − ⟨bᵢ, x⟩ + c + Σₘ wₘ φ(⟨aₘ, x⟩ − oₘ) with one profile φ
  shared by every client (Huber, max(0, z)², log-cosh or softplus: :mod:`pyfed.problems.ridge`), so
  F itself is not quadratic (linear regions, changing curvature) while ∇Fᵢ − ∇F = −(bᵢ − b̄) is
  constant: ζ² = maxᵢ ‖bᵢ − b̄‖² exactly; ∇F(0) = 0 and F(0) = 0 (x⋆ = 0, F⋆ = 0) are checked
  exactly, L against the family's certified β (an exact PSD test); σ = 0; exact runs for Huber and
  max(0, z)², certified balls for log-cosh and softplus::

      {"family": "ridge", "profile", "Q": [[d x d]], "b": [[d] x M], "rows": [[d] x m], "offsets": [m],
       "weights": [m], "delta", "c", "L", "sigma": "0", "zeta_sq", "tau", "T", "eta", "x0": [d]}

``eta`` may be absent when the statement's run fixes the step (``optimizedStep P τ T``).

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section 6.1;
Lean ``FedAvg.Problem`` (``lean/Pyfed/FedAvg/Model.lean``).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from ...engines.exact.fedavg_margin import fedavg_setup
from ...errors import InputError
from ...evaluation.numbers import compare
from ...exact import rational_str
from ...oracles import GaussianOracle
from ...problems.quadratic import QuadraticProblem, is_psd_exact
from ...problems.ridge import RidgeFunction, gradient_rational, value_at_zero
from ...theory.hypotheses import Hypothesis
from .access import FedAvgRunInstance, Scalars

__all__ = ["instance_from_json", "SqrtClients", "HuberClients", "RidgeClients", "FAMILIES", "FAMILY_FORMULAS",
           "family_formula",
           "F", "q"]


def F(s) -> Fraction:
    """Parse an instance number (``"p/q"`` string, int or Fraction) into a Fraction; InputError
    naming ``instance`` for anything that is not an exact rational (floats included)."""
    if isinstance(s, Fraction):
        return s
    if isinstance(s, bool) or isinstance(s, float):
        raise InputError("instance", f"{s!r} is not an exact rational (write it as 'p/q')")
    if isinstance(s, (int, np.integer)):
        return Fraction(int(s))
    if isinstance(s, str):
        try:
            return Fraction(s.strip())
        except (ValueError, ZeroDivisionError):
            raise InputError("instance", f"{s!r} is not a rational 'p/q' string") from None
    raise InputError("instance", f"{s!r} ({type(s).__name__}) is not an exact rational")


def q(x) -> str:
    """An exact rational as its canonical ``"p/q"`` text (``"p"`` for integers)."""
    return rational_str(Fraction(x))

FAMILIES = ("quadratic", "sqrt", "huber", "ridge")

#: Each family's client functions and oracle, as the counterexample files state them (the numbers
#: are the instance's JSON keys of the same names; the module docstring has the hypotheses).
FAMILY_FORMULAS = {
    "quadratic": "Fᵢ(x) = ½ xᵀ A x − ⟨bᵢ, x⟩ (one Hessian A shared by every client, bᵢ the i-th row of b), "
                 "stochastic gradients ∇Fᵢ(x) + ξ with Gaussian ξ, E‖ξ‖² = σ² (sigma)",
    "sqrt": "Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²) in one dimension (Σbᵢ = Σcᵢ = 0, so F = a x²/2, x⋆ = 0, "
            "F⋆ = 0), exact gradients (σ = 0)",
    "huber": "Fᵢ(x) = xᵀQx/2 − ⟨bᵢ, x⟩ + Σₘ c_{im} ψ(⟨uₘ, x⟩), ψ(s) = s²/2 for |s| ≤ 1 and |s| − 1/2 beyond "
             "(Q = a I when a is given; Σᵢ bᵢ = 0, Σᵢ c_{im} = 0, so F = xᵀQx/2, x⋆ = 0, F⋆ = 0), exact gradients "
             "(σ = 0)",
    "ridge": "Fᵢ(x) = ½ xᵀQx − ⟨bᵢ, x⟩ + c + Σₘ wₘ φ(⟨aₘ, x⟩ − oₘ) with one profile φ for every client (Huber "
             "H_δ, max(0, z)²/2, log cosh z or log(1 + eᶻ) − log 2; aₘ the rows, oₘ the offsets), ∇F(0) = 0 and "
             "F(0) = 0 (x⋆ = 0, F⋆ = 0), exact gradients (σ = 0)",
}


def family_formula(inst: dict) -> str:
    """The client functions of the JSON instance ``inst`` (:data:`FAMILY_FORMULAS` of its
    ``family``, default ``quadratic``), so a witness can be re-derived by hand from its numbers.
    Raises InputError (argument ``instance``) for an unknown family."""
    fam = (inst or {}).get("family", "quadratic")
    if fam not in FAMILY_FORMULAS:
        raise InputError("instance", f"unknown family {fam!r}; known: {', '.join(FAMILIES)}")
    return f"{fam} family: {FAMILY_FORMULAS[fam]}"


def _hyp(key, statement, margin):
    if margin is None:
        return Hypothesis(key, statement, False, None)
    return Hypothesis(key, statement, bool(margin >= 0), margin)


def _ints(inst):
    out = []
    for k in ("tau", "T"):
        v = F(inst[k])
        if v.denominator != 1 or v < 0:
            raise InputError("instance", f"{k} must be a natural number, got {inst[k]!r}")
        out.append(int(v))
    return out


def instance_from_json(inst: dict, name: str | None = None) -> FedAvgRunInstance:
    """The :class:`FedAvgRunInstance` of a JSON instance (module docstring). Raises InputError
    (argument ``instance``) for a malformed dict."""
    if not isinstance(inst, dict):
        raise InputError("instance", f"must be a dict, got {type(inst).__name__}")
    fam = inst.get("family", "quadratic")
    try:
        if fam == "quadratic":
            return _quadratic(inst, name)
        if fam == "sqrt":
            return _sqrt(inst, name)
        if fam == "huber":
            return _huber(inst, name)
        if fam == "ridge":
            return _ridge(inst, name)
    except InputError:
        raise
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
        raise InputError("instance", f"malformed FedAvg instance ({type(exc).__name__}: {exc}); see "
                                     "pyfed.models.fedavg.families for the keys") from None
    raise InputError("instance", f"unknown family {fam!r}; known: {', '.join(FAMILIES)}")


def _eta(inst):
    return F(inst["eta"]) if "eta" in inst else None


def _quadratic(inst, name):

    A = [[F(v) for v in r] for r in inst["A"]]
    b = [[F(v) for v in r] for r in inst["b"]]
    M, d = len(b), len(A)
    if M < 1 or d < 1 or any(len(r) != d for r in A) or any(len(v) != d for v in b):
        raise InputError("instance", "A must be d x d and every b_i of length d (M >= 1 clients, d >= 1)")
    tau, T = _ints(inst)
    x0 = [F(v) for v in inst["x0"]]
    if len(x0) != d:
        raise InputError("instance", f"x0 must have {d} entries")
    P = QuadraticProblem(np.array([A] * M, dtype=object), np.array(b, dtype=object))
    sigma = F(inst["sigma"])
    if sigma < 0:
        raise InputError("instance", "sigma must be >= 0")
    L = F(inst["L"])
    z2 = F(inst["zeta_sq"]) if "zeta_sq" in inst else None
    s = fedavg_setup(P, sigma, tau=max(tau, 1), T=max(T, 1), eta=1, x0=x0, L=L, zeta_sq=z2)
    return FedAvgRunInstance(
        name=name or f"quadratic M={M} d={d}", description=_describe(inst), family="quadratic", M=M, d=d, tau=tau,
        T=T, eta=_eta(inst), L=L, sigma=sigma, sigma_sq=sigma * sigma, zeta_sq=s.zeta_sq, dist_sq=s.dist_sq, x0=x0,
        x_star=[Fraction(v) for v in P.x_star_exact], f_star=P.f_star, f_x0=P.value_exact(x0), problem=P,
        oracle=GaussianOracle(P, float(sigma)), hypotheses=list(s.hypotheses), exact=True,
        extra={"json": dict(inst), "zeta_derivation": s.heterogeneity.derivation})


def _describe(inst) -> str:
    fam = inst.get("family", "quadratic")
    keys = [k for k in ("tau", "T", "eta", "L", "sigma", "zeta_sq") if k in inst]
    return f"{fam}: " + ", ".join(f"{k}={inst[k]}" for k in keys) + f", x0={inst.get('x0')}"


# --------------------------------------------------------------------------- non-quadratic families

class SqrtClients:
    """Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²) in one dimension (module docstring)."""

    def __init__(self, a, b, c):
        self.a, self.b, self.c = a, list(b), list(c)

    def grad(self, i, x, S):
        (v,) = x
        a = S.lift(self.a)
        r = S.sqrt(S.add(S.lift(1), S.mul(v, v)))
        return [S.add(S.sub(S.mul(a, v), S.lift(self.b[i])), S.div(S.mul(S.lift(self.c[i]), v), r))]

    def value(self, x, S):
        (v,) = x
        return S.div(S.mul(S.lift(self.a), S.mul(v, v)), S.lift(2))


class HuberClients:
    """Fᵢ(x) = xᵀQx/2 − ⟨bᵢ, x⟩ + Σₘ c_{im} ψ(⟨uₘ, x⟩), ψ the Huber function (module docstring)."""

    def __init__(self, Q, b, c, u):
        self.Q, self.b, self.c, self.u = Q, b, c, u

    def _Qx(self, x, S):
        d = len(x)
        out = []
        for r in range(d):
            v = S.lift(0)
            for j in range(d):
                if self.Q[r][j] != 0:
                    v = S.add(v, S.mul(S.lift(self.Q[r][j]), x[j]))
            out.append(v)
        return out

    def grad(self, i, x, S):
        d = len(x)
        Qx = self._Qx(x, S)
        out = [S.sub(Qx[j], S.lift(self.b[i][j])) for j in range(d)]
        for m, um in enumerate(self.u):
            cim = self.c[i][m]
            if cim == 0:
                continue
            s = S.lift(0)
            for j in range(d):
                s = S.add(s, S.mul(S.lift(um[j]), x[j]))
            one = S.lift(1)
            # compare(a, b) is the sign of b - a: clip(s, -1, 1)
            clip = one if compare(one, s) > 0 else (S.neg(one) if compare(s, S.neg(one)) > 0 else s)
            for j in range(d):
                out[j] = S.add(out[j], S.mul(S.lift(cim * um[j]), clip))
        return out

    def value(self, x, S):
        n2 = S.lift(0)
        for v, w in zip(x, self._Qx(x, S)):
            n2 = S.add(n2, S.mul(v, w))
        return S.div(n2, S.lift(2))


def _exact_scalars():
    return Scalars("exact")


def _deterministic(inst, name, clients, d, M, hyps, exact, fam):
    tau, T = _ints(inst)
    x0 = [F(v) for v in inst["x0"]]
    if len(x0) != d:
        raise InputError("instance", f"x0 must have {d} entries")
    sigma = F(inst.get("sigma", "0"))
    hyps = list(hyps) + [_hyp("deterministic", "sigma = 0 (deterministic gradients)",
                              Fraction(0) if sigma == 0 else None)]
    dist_sq = sum((v * v for v in x0), Fraction(0))
    f_x0 = clients.value(x0, _exact_scalars()) if clients is not None and exact else None
    return FedAvgRunInstance(
        name=name or f"{fam} M={M} d={d}", description=_describe(inst), family="deterministic", M=M, d=d, tau=tau,
        T=T, eta=_eta(inst), L=F(inst["L"]), sigma=sigma, sigma_sq=sigma * sigma, zeta_sq=F(inst["zeta_sq"]),
        dist_sq=dist_sq, x0=x0, x_star=[Fraction(0)] * d, f_star=Fraction(0), f_x0=f_x0, clients=clients,
        hypotheses=hyps, exact=exact, extra={"json": dict(inst)})


def _sqrt(inst, name):
    a = F(inst["a"])
    b, c = [F(v) for v in inst["b"]], [F(v) for v in inst["c"]]
    if len(b) != len(c) or not b:
        raise InputError("instance", "b and c must list one number per client (M >= 1)")
    L, z2 = F(inst["L"]), F(inst["zeta_sq"])
    hyps = [_hyp("family_mean", "sum_i b_i = sum_i c_i = 0 (F = a x^2/2, x* = 0)",
                 Fraction(0) if sum(b) == 0 and sum(c) == 0 else None),
            _hyp("convexity", "every F_i convex (a + min(c_i, 0) >= 0)", a + min(min(c), 0)),
            _hyp("smooth", "every F_i L-smooth (L >= a + max(c_i, 0))", L - a - max(max(c), 0)),
            _hyp("heterogeneity", "zeta^2 >= max_i (|b_i| + |c_i|)^2",
                 z2 - max((abs(bi) + abs(ci)) ** 2 for bi, ci in zip(b, c)))]
    return _deterministic(inst, name, SqrtClients(a, b, c), 1, len(b), hyps, False, "sqrt")


def huber_zeta_sq(b, c, u) -> Fraction:
    """maxᵢ max_{s ∈ {−1,1}^m} ‖−bᵢ + Σₘ c_{im} sₘ uₘ‖² (a certified ζ² of the huber family)."""
    d, m = len(b[0]), len(u)
    best = Fraction(0)
    for bi, ci in zip(b, c):
        for signs in itertools.product((-1, 1), repeat=m):
            v = [-bi[j] + sum((ci[k] * signs[k] * u[k][j] for k in range(m)), Fraction(0)) for j in range(d)]
            best = max(best, sum((x * x for x in v), Fraction(0)))
    return best


def _huber(inst, name):

    b = [[F(v) for v in r] for r in inst["b"]]
    c = [[F(v) for v in r] for r in inst["c"]]
    u = [[F(v) for v in r] for r in inst["u"]]
    M, d, m = len(b), len(b[0]) if b else 0, len(u)
    if M < 1 or d < 1 or any(len(r) != d for r in b) or any(len(r) != m for r in c) or len(c) != M \
            or any(len(r) != d for r in u):
        raise InputError("instance", "b is M x d, c is M x m and u is m x d (M, d >= 1)")
    L, z2 = F(inst["L"]), F(inst["zeta_sq"])
    if "Q" in inst:
        Q = [[F(v) for v in r] for r in inst["Q"]]
        if len(Q) != d or any(len(r) != d for r in Q) or any(Q[r][s] != Q[s][r] for r in range(d) for s in range(d)):
            raise InputError("instance", "Q must be a symmetric d x d matrix")
    else:
        a = F(inst["a"])
        Q = [[a if r == s else Fraction(0) for s in range(d)] for r in range(d)]

    def hess(i, sign):
        H = [row[:] for row in Q]
        for k in range(m):
            if (c[i][k] < 0) if sign < 0 else (c[i][k] > 0):
                for r in range(d):
                    for s in range(d):
                        H[r][s] += c[i][k] * u[k][r] * u[k][s]
        return H
    conv = all(is_psd_exact(np.array(hess(i, -1), dtype=object)) for i in range(M))
    smooth = all(is_psd_exact(np.array([[(L if r == s else 0) - h for s, h in enumerate(row)]
                                        for r, row in enumerate(hess(i, 1))], dtype=object)) for i in range(M))
    mean_ok = all(sum((b[i][j] for i in range(M)), Fraction(0)) == 0 for j in range(d)) and \
        all(sum((c[i][k] for i in range(M)), Fraction(0)) == 0 for k in range(m))
    hyps = [_hyp("family_mean", "sum_i b_i = 0 and sum_i c_im = 0 (F = x^T Q x/2, x* = 0)",
                 Fraction(0) if mean_ok else None),
            _hyp("convexity", "every F_i convex (Q + sum_{c_im < 0} c_im u_m u_m^T PSD)", Fraction(0) if conv else None),
            _hyp("smooth", "every F_i L-smooth (L I - Q - sum_{c_im > 0} c_im u_m u_m^T PSD)",
                 Fraction(0) if smooth else None),
            _hyp("heterogeneity", "zeta^2 >= max_i max_s ||-b_i + sum_m c_im s_m u_m||^2", z2 - huber_zeta_sq(b, c, u))]
    return _deterministic(inst, name, HuberClients(Q, b, c, u), d, M, hyps, True, "huber")


class RidgeClients:
    """Fᵢ = one :class:`pyfed.problems.ridge.RidgeFunction` per client (module docstring, ``ridge``):
    gradients and F in exact rationals or certified balls, as the arithmetic ``S`` asks."""

    def __init__(self, fs):
        self.fs = list(fs)

    def grad(self, i, x, S):
        f = self.fs[i]
        if S.mode == "exact":
            return [S.lift(v) for v in f.grad([S.lift(v) for v in x])]
        if S.mode == "float":       # steering the search only
            return [S.lift(float(v)) for v in f.grad_float([float(v) for v in x])]
        return [S.lift(v) for v in f.grad_ball(x)]

    def value(self, x, S):
        if S.mode == "exact":
            tot = sum((f.value([S.lift(v) for v in x]) for f in self.fs), Fraction(0))
            return tot / len(self.fs)
        if S.mode == "float":
            return S.lift(sum(f.value_float([float(v) for v in x]) for f in self.fs) / len(self.fs))
        tot = None
        for f in self.fs:
            v = f.value_ball(x)
            tot = v if tot is None else tot + v
        return S.div(S.lift(tot), S.lift(len(self.fs)))


def _ridge(inst, name):

    b = [[F(v) for v in r] for r in inst["b"]]
    M = len(b)
    d = len(b[0]) if b else 0
    if M < 1 or d < 1 or any(len(r) != d for r in b):
        raise InputError("instance", "b is M x d (M, d >= 1)")
    fs = [RidgeFunction.make(inst["Q"], bi, inst.get("rows", ()), inst.get("offsets", ()), inst.get("weights", ()),
                             inst.get("profile", "none"), inst.get("delta", 1), inst.get("c", 0)) for bi in b]
    L, z2 = F(inst["L"]), F(inst["zeta_sq"])
    zero = [Fraction(0)] * d
    gsum = [Fraction(0)] * d
    try:
        for f in fs:
            gsum = [a + c for a, c in zip(gsum, gradient_rational(f, zero))]
        f0 = sum((value_at_zero(f) for f in fs), Fraction(0))
    except Exception:      # noqa: BLE001 -- a transcendental value at a nonzero offset: not this family
        gsum, f0 = None, None
    bbar = [sum((r[j] for r in b), Fraction(0)) / M for j in range(d)]
    het = max(sum(((r[j] - bbar[j]) ** 2 for j in range(d)), Fraction(0)) for r in b)
    curv = fs[0].curvature_matrix()
    smooth = is_psd_exact(np.array([[(L if r == c else 0) - curv[r][c] for c in range(d)] for r in range(d)],
                                   dtype=object))
    hyps = [_hyp("family_mean", "grad F(0) = 0 and F(0) = 0 (x* = 0, F* = 0)",
                 Fraction(0) if gsum is not None and not any(gsum) and f0 == 0 else None),
            _hyp("convexity", "every F_i convex (Q PSD, ridge weights >= 0)", Fraction(0) if fs[0].convex() else None),
            _hyp("smooth", "every F_i L-smooth (L I - Q - kappa sum_m w_m a_m a_m^T PSD)",
                 Fraction(0) if smooth else None),
            _hyp("heterogeneity", "zeta^2 >= max_i ||b_i - mean b||^2", z2 - het)]
    return _deterministic(inst, name, RidgeClients(fs), d, M, hyps, all(f.exact for f in fs), "ridge")

