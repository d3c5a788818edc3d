"""The arithmetic of the FedAvg statements (Field Guide, Section 6.1): one place per formula.

Every function mirrors a definition of the Lean model ``FedAvg`` (``lean/Pyfed/FedAvg/``, after
the published ``Definitions/Def_FedAvg_Model.lean`` of ``prove2me/formalpedia``); the Lean name
is given in each docstring. Python names are the Lean names in snake case:

==========================  =====================================================================
``drift_rhs``               ``FedAvg.driftRHS P τ η`` = 18 τ² η² ζ² + 4 τ η² σ²  (Lemma 2)
``convergence_rhs``         ``FedAvg.convergenceRHS P τ T η`` = D²/(2ητT) + ησ²/M + 4τη²Lσ²
                            + 18τ²η²Lζ²  (Theorem 1, eq. (15))
``progress_term``           ``FedAvg.progressTerm`` = (‖x̄^{t,0} − x⋆‖² − E[‖x̄^{t,τ} − x⋆‖² | F_{tτ}])/(2ητ)
``deviation_term``          ``FedAvg.deviationTerm`` = ησ²/M + L/(Mτ) Σᵢ Σ_{k<τ} E[‖xᵢ^{t,k} − x̄^{t,k}‖² | F_{tτ}]
``progress_rhs``            ``FedAvg.progressRHS`` = progress_term + deviation_term  (Lemma 1)
``optimized_step``          ``FedAvg.optimizedStep P τ T`` (eq. (16))
``optimized_rhs``           ``FedAvg.optimizedRHS P τ T`` (eq. (17))
==========================  =====================================================================

The conditional expectations inside ``progressTerm``/``deviationTerm`` are inputs here (numbers
computed by an engine), so the Python functions are the arithmetic of those definitions.

Inputs. σ and ζ enter the polynomial right sides only through σ² and ζ², and a certified ζ is in
general a square root (ζ = maxᵢ ‖bᵢ − b̄‖ for quadratic clients): every function accepts either
``sigma``/``zeta`` or ``sigma_sq``/``zeta_sq`` (exactly one of each pair), and D always as
``dist_sq`` = D² = ‖x₀ − x⋆‖² (``FedAvg.distance P ^ 2``). With rational squares every polynomial
right side is an exact :class:`fractions.Fraction`.

Arithmetic (as :mod:`pyfed.theory.bounds`): exact ``Fraction`` when every input is rational,
``mpmath.mpf`` at :data:`pyfed.exact.DEFAULT_DPS` digits when some input is a float, certified
``flint.arb`` balls when some input is a ball, sympy expressions when some input is a symbol
(the Lean drift check). Roots: eqs. (16)-(17) take square and cube roots, so with rational
inputs :func:`optimized_step` and :func:`optimized_rhs` return a ``Fraction`` when the value is
rational and otherwise an *exact* algebraic sympy number (sums of ``r**(1/n)`` with rational
r); :func:`pyfed.exact.to_arb` encloses it in a certified ball, :func:`pyfed.exact.to_mpf`
evaluates it. Which of the four step candidates attains the minimum is decided exactly by
comparing sixth powers of the candidates (each candidate is r^(1/n), n ∈ {1, 2, 3}, r rational),
the way :func:`pyfed.theory.nonconvex_hypotheses` decides its cube-root hypothesis.

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.1 (PDF p. 40, eqs. (11)-(14)), Section 6.1.2 (PDF p. 41, Lemma 1, Lemma 2, Theorem 1,
eqs. (15)-(17)), Appendix D.1 (PDF pp. 86-87).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy
from flint import arb

from ..errors import InputError
from ..exact import DEFAULT_DPS, coerce, to_fraction
from .hypotheses import Hypothesis

__all__ = [
    "drift_rhs", "convergence_rhs", "progress_term", "deviation_term", "progress_rhs",
    "StepCandidate", "optimized_step_candidates", "optimized_step_choice", "optimized_step",
    "optimized_rhs", "optimized_rhs_terms", "radical", "radical_argmin", "fedavg_hypotheses",
    "tuned_hypotheses",
]


# ----------------------------------------------------------------------------- inputs

def _square(name: str, value, value_sq, *, required: bool = True):
    """value**2 or value_sq (exactly one given); kept as given otherwise (coerced later)."""
    if value is not None and value_sq is not None:
        raise InputError(name, f"give {name} or {name}_sq, not both")
    if value is None and value_sq is None:
        if not required:
            return None
        raise InputError(name, f"missing: give {name} (>= 0) or {name}_sq (its square)")
    if value is not None:
        if isinstance(value, str):  # "p/q" strings are exact rationals
            f = to_fraction(value)
            if f is None:
                raise InputError(name, f"{value!r} is not a number")
            value = f
        return value * value
    return value_sq


def _nonzero(mode, **values):
    """The right sides divide by τ, T, η, M, L: a zero there is an InputError naming it."""
    if mode == "symbolic":
        return
    for name, v in values.items():
        if v == 0:
            raise InputError(name, "must be nonzero: the right side divides by it")


def _coerce(names, values, exact, dps):
    return coerce(values, exact=exact, dps=dps, names=names)


# ----------------------------------------------------------------------------- Lemma 2

def drift_rhs(tau, eta, *, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None, exact=None,
              dps=DEFAULT_DPS):
    """Right side of ``FedAvg.BoundedClientDrift`` (Lean ``FedAvg.driftRHS P τ η``):

        18 τ² η² ζ² + 4 τ η² σ²

    tau: local steps per round τ; eta: local step η; sigma (or sigma_sq): the oracle's noise
    bound σ (E‖g − ∇Fᵢ‖² ≤ σ²); zeta (or zeta_sq): the heterogeneity bound ζ
    (‖∇Fᵢ(x) − ∇F(x)‖ ≤ ζ). Returns a Fraction for rational τ, η, σ², ζ².

    Source: Field Guide, Section 6.1.2, PDF p. 41, Lemma 2; Appendix D.2, PDF pp. 87-88.
    """
    s2 = _square("sigma", sigma, sigma_sq)
    z2 = _square("zeta", zeta, zeta_sq)
    (tau, eta, s2, z2), _ = _coerce(["tau", "eta", "sigma_sq", "zeta_sq"], [tau, eta, s2, z2], exact, dps)
    return 18 * tau**2 * eta**2 * z2 + 4 * tau * eta**2 * s2


# ----------------------------------------------------------------------------- Theorem 1, eq. (15)

def convergence_rhs(*, dist_sq, M, tau, T, eta, L, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None,
                    exact=None, dps=DEFAULT_DPS):
    """Right side of ``FedAvg.ConvexFedAvgConvergence`` (Lean ``FedAvg.convergenceRHS P τ T η``):

        D²/(2 η τ T) + η σ²/M + 4 τ η² L σ² + 18 τ² η² L ζ²

    dist_sq: D² = ‖x₀ − x⋆‖²; M clients; tau local steps; T rounds; eta step; L smoothness;
    sigma/sigma_sq, zeta/zeta_sq as in :func:`drift_rhs`. Raises InputError for τ, T, η or M
    equal to 0 (the formula divides by them); other values outside the hypotheses are
    evaluated (see :func:`fedavg_hypotheses`).

    Source: Field Guide, Section 6.1.2, PDF p. 41, Theorem 1, equation (15).
    """
    s2 = _square("sigma", sigma, sigma_sq)
    z2 = _square("zeta", zeta, zeta_sq)
    vals, mode = _coerce(["dist_sq", "M", "tau", "T", "eta", "L", "sigma_sq", "zeta_sq"],
                         [dist_sq, M, tau, T, eta, L, s2, z2], exact, dps)
    _nonzero(mode, tau=tau, T=T, eta=eta, M=M)
    D2, M, tau, T, eta, L, s2, z2 = vals
    return (D2 / (2 * eta * tau * T) + eta * s2 / M + 4 * tau * eta**2 * L * s2
            + 18 * tau**2 * eta**2 * L * z2)


# ----------------------------------------------------------------------------- Lemma 1

def progress_term(start_dist_sq, end_dist_sq, tau, eta, *, exact=None, dps=DEFAULT_DPS):
    """Lean ``FedAvg.progressTerm R t``: (‖x̄^{t,0} − x⋆‖² − E[‖x̄^{t,τ} − x⋆‖² | F_{tτ}]) / (2 η τ).

    start_dist_sq: ‖x̄^{t,0} − x⋆‖² (the round start is F_{tτ}-measurable); end_dist_sq: the
    conditional expectation E[‖x̄^{t,τ} − x⋆‖² | F_{tτ}] (a number computed by an engine).
    """
    vals, mode = _coerce(["start_dist_sq", "end_dist_sq", "tau", "eta"],
                         [start_dist_sq, end_dist_sq, tau, eta], exact, dps)
    _nonzero(mode, tau=tau, eta=eta)
    a, b, tau, eta = vals
    return (a - b) / (2 * eta * tau)


def deviation_term(drift_sum, M, tau, eta, L, *, sigma=None, sigma_sq=None, exact=None, dps=DEFAULT_DPS):
    """Lean ``FedAvg.deviationTerm R t``: η σ²/M + L/(M τ) Σᵢ Σ_{k<τ} E[‖xᵢ^{t,k} − x̄^{t,k}‖² | F_{tτ}].

    drift_sum: the double sum of conditional client drifts (k = 0..τ−1, every client).
    """
    s2 = _square("sigma", sigma, sigma_sq)
    vals, mode = _coerce(["drift_sum", "M", "tau", "eta", "L", "sigma_sq"], [drift_sum, M, tau, eta, L, s2],
                         exact, dps)
    _nonzero(mode, M=M, tau=tau)
    ds, M, tau, eta, L, s2 = vals
    return eta * s2 / M + L / (M * tau) * ds


def progress_rhs(*, start_dist_sq, end_dist_sq, drift_sum, M, tau, eta, L, sigma=None, sigma_sq=None,
                 exact=None, dps=DEFAULT_DPS):
    """Right side of ``FedAvg.PerRoundProgress`` (Lean ``FedAvg.progressRHS R t`` =
    ``progressTerm R t + deviationTerm R t``), from the conditional expectations (numbers).

    Source: Field Guide, Section 6.1.2, PDF p. 41, Lemma 1; Appendix D.1, PDF pp. 86-87,
    equations (24)-(27).
    """
    return (progress_term(start_dist_sq, end_dist_sq, tau, eta, exact=exact, dps=dps)
            + deviation_term(drift_sum, M, tau, eta, L, sigma=sigma, sigma_sq=sigma_sq, exact=exact, dps=dps))


# ----------------------------------------------------------------------------- radicals

def radical(r, n: int, *, mode=True, dps=DEFAULT_DPS):
    """r^(1/n) for r >= 0 in the given arithmetic mode.

    mode True (exact): a Fraction when r is the n-th power of a rational, else the exact sympy
    number ``Rational(r)**Rational(1, n)``; "ball": a certified arb ball; False: mpmath;
    "symbolic": a sympy expression.
    """
    n = int(n)
    if mode == "symbolic":
        return r if n == 1 else r ** sympy.Rational(1, n)
    if mode == "ball":
        r = r if isinstance(r, arb) else arb(r)
        return r if n == 1 else r.root(n)
    if mode is False:
        with mpmath.workdps(dps):
            return r if n == 1 else mpmath.root(r, n)
    r = Fraction(r)
    if r < 0:
        raise InputError("radicand", f"{r} < 0 has no real {n}-th root here")
    if n == 1:
        return r
    p, ok_p = sympy.integer_nthroot(r.numerator, n)
    q, ok_q = sympy.integer_nthroot(r.denominator, n)
    if ok_p and ok_q:
        return Fraction(int(p), int(q))
    return sympy.Rational(r.numerator, r.denominator) ** sympy.Rational(1, n)


def _public(value):
    """A sympy number that is rational -> Fraction; anything else unchanged."""
    if isinstance(value, sympy.Basic) and value.is_Rational:
        return Fraction(int(value.p), int(value.q))
    return value


# ----------------------------------------------------------------------------- eq. (16)

@dataclass(frozen=True)
class StepCandidate:
    """One term of the tuned step's minimum, written as ``radicand ** (1/root)``.

    Attributes
    ----------
    name : str
        ``"smoothness"`` (1/(4L)), ``"noise_sqrt"`` (√M D/(√τ √T σ)), ``"noise_cbrt"``
        (D^{2/3}/(τ^{2/3} T^{1/3} L^{1/3} σ^{2/3})) or ``"heterogeneity"`` (D^{2/3}/(τ T^{1/3}
        L^{1/3} ζ^{2/3})), in the order of the Lean ``min`` (outermost first).
    statement : str
        The term as printed in eq. (16).
    radicand : Fraction | mpf | arb | sympy.Expr
        r with term = r^(1/root): 1/(4L), M D²/(τ T σ²), D²/(τ² T L σ²), D²/(τ³ T L ζ²).
    root : int
        1, 2, 3, 3.
    """

    name: str
    statement: str
    radicand: object
    root: int


def _tuned_inputs(dist_sq, M, tau, T, L, s2, z2, exact, dps, need=("dist_sq", "sigma_sq", "zeta_sq")):
    vals, mode = _coerce(["dist_sq", "M", "tau", "T", "L", "sigma_sq", "zeta_sq"],
                         [dist_sq, M, tau, T, L, s2, z2], exact, dps)
    if mode != "symbolic":
        D2, M_, tau_, T_, L_, s2_, z2_ = vals
        for nm, v in (("tau", tau_), ("T", T_), ("M", M_), ("L", L_)):
            if not v > 0:
                raise InputError(nm, f"must be > 0 for the tuned step (eq. (16)), got {v}")
        for nm, v in (("dist_sq", D2), ("sigma_sq", s2_), ("zeta_sq", z2_)):
            if nm in need and not v > 0:
                raise InputError(nm.removesuffix("_sq") if nm != "dist_sq" else "dist_sq",
                                 f"must be > 0: eq. (16) divides by it (the tuned statement assumes "
                                 f"D, sigma, zeta > 0), got {v}")
    return vals, mode


def optimized_step_candidates(*, dist_sq, M, tau, T, L, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None,
                              exact=None, dps=DEFAULT_DPS) -> list:
    """The four terms of eq. (16) as :class:`StepCandidate` (radicand, root), Lean order.

    Raises InputError when D², σ², ζ², τ, T, M or L is not > 0 (the tuned statement's regime).
    """
    s2 = _square("sigma", sigma, sigma_sq)
    z2 = _square("zeta", zeta, zeta_sq)
    (D2, M, tau, T, L, s2, z2), _ = _tuned_inputs(dist_sq, M, tau, T, L, s2, z2, exact, dps)
    return [
        StepCandidate("smoothness", "1/(4L)", 1 / (4 * L), 1),
        StepCandidate("noise_sqrt", "sqrt(M) D/(sqrt(tau) sqrt(T) sigma)", M * D2 / (tau * T * s2), 2),
        StepCandidate("noise_cbrt", "D^(2/3)/(tau^(2/3) T^(1/3) L^(1/3) sigma^(2/3))",
                      D2 / (tau**2 * T * L * s2), 3),
        StepCandidate("heterogeneity", "D^(2/3)/(tau T^(1/3) L^(1/3) zeta^(2/3))",
                      D2 / (tau**3 * T * L * z2), 3),
    ]


def radical_argmin(radicals) -> int:
    """Index of the smallest of the positive numbers r_j^(1/n_j) (``radicals``: a sequence of
    (r_j, n_j) with n_j in {1, 2, 3}), the first one on ties. Exact for rational r_j:
    r_i^(1/n_i) <= r_j^(1/n_j) iff r_i^(6/n_i) <= r_j^(6/n_j). Float radicands compare in floats;
    arb balls must be separable (InputError ``precision`` otherwise)."""
    keys = [r ** (6 // int(n)) for r, n in radicals]
    best = 0
    for j in range(1, len(keys)):
        if isinstance(keys[j], arb):
            if keys[j] < keys[best]:
                best = j
            elif not keys[j] >= keys[best]:
                raise InputError("precision", "the candidates of eq. (16) cannot be ordered at this "
                                              "ball precision; raise the precision")
        elif isinstance(keys[j], sympy.Basic) and keys[j].free_symbols:
            raise InputError("inputs", "the minimiser of eq. (16) is undefined for symbolic inputs")
        elif keys[j] < keys[best]:
            best = j
    return best


def optimized_step_choice(**kw) -> int:
    """Index (0..3, Lean order) of the candidate of eq. (16) attaining the minimum (the first
    one on ties), decided *exactly* for rational inputs by :func:`radical_argmin` (all
    candidates are positive). Keyword arguments as :func:`optimized_step`."""
    exact, dps = kw.pop("exact", None), kw.pop("dps", DEFAULT_DPS)
    cands = optimized_step_candidates(exact=exact, dps=dps, **kw)
    return radical_argmin([(c.radicand, c.root) for c in cands])


def optimized_step(*, dist_sq, M, tau, T, L, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None,
                   exact=None, dps=DEFAULT_DPS):
    """The tuned step of Theorem 1, eq. (16) (Lean ``FedAvg.optimizedStep P τ T``):

        η = min{ 1/(4L), √M D/(√τ √T σ), D^{2/3}/(τ^{2/3} T^{1/3} L^{1/3} σ^{2/3}),
                 D^{2/3}/(τ T^{1/3} L^{1/3} ζ^{2/3}) }

    Exact mode (rational L, D², σ², ζ², M, τ, T): the minimising candidate is decided exactly
    (:func:`optimized_step_choice`); its value is returned as a Fraction when rational, else as an
    exact sympy algebraic number r^(1/n). Ball mode: a certified arb ball; mpmath mode: mpf;
    symbolic mode (sympy symbols): ``sympy.Min`` of the four terms.

    Raises InputError outside the regime D, σ, ζ, τ, T, M, L > 0 (the published statement is
    restricted to positive denominators; Lean's x/0 = 0 convention is not reproduced).

    Source: Field Guide, Section 6.1.2, PDF p. 41, Theorem 1, equation (16).
    """
    cands = optimized_step_candidates(dist_sq=dist_sq, M=M, tau=tau, T=T, L=L, sigma=sigma, zeta=zeta,
                                      sigma_sq=sigma_sq, zeta_sq=zeta_sq, exact=exact, dps=dps)
    mode = _mode_of(cands[0].radicand, cands[1].radicand)
    if mode == "symbolic":
        return sympy.Min(*[radical(c.radicand, c.root, mode=mode) for c in cands])
    if mode is False:
        with mpmath.workdps(dps):
            return min(radical(c.radicand, c.root, mode=False, dps=dps) for c in cands)
    j = optimized_step_choice(dist_sq=dist_sq, M=M, tau=tau, T=T, L=L, sigma=sigma, zeta=zeta,
                              sigma_sq=sigma_sq, zeta_sq=zeta_sq, exact=exact, dps=dps)
    return _public(radical(cands[j].radicand, cands[j].root, mode=mode, dps=dps))


def _mode_of(*values):
    if any(isinstance(v, sympy.Basic) and v.free_symbols for v in values):
        return "symbolic"
    if any(isinstance(v, arb) for v in values):
        return "ball"
    if any(isinstance(v, mpmath.mpf) for v in values):
        return False
    return True


# ----------------------------------------------------------------------------- eq. (17)

def optimized_rhs_terms(*, dist_sq, M, tau, T, L, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None,
                        exact=None, dps=DEFAULT_DPS) -> list:
    """The four terms of eq. (17) as (name, coefficient, radicand, root): term = c · r^(1/n),

        2 L D²/(τ T)                      = 2 · (L D²/(τ T))
        2 σ D / √(M τ T)                  = 2 · (σ² D²/(M τ T))^(1/2)
        5 L^{1/3} σ^{2/3} D^{4/3}/(τ^{1/3} T^{2/3})  = 5 · (L σ² D⁴/(τ T²))^(1/3)
        19 L^{1/3} ζ^{2/3} D^{4/3}/T^{2/3}             = 19 · (L ζ² D⁴/T²)^(1/3)
    """
    s2 = _square("sigma", sigma, sigma_sq)
    z2 = _square("zeta", zeta, zeta_sq)
    (D2, M, tau, T, L, s2, z2), _ = _tuned_inputs(dist_sq, M, tau, T, L, s2, z2, exact, dps, need=())
    return [("optimization", 2, L * D2 / (tau * T), 1),
            ("noise_sqrt", 2, s2 * D2 / (M * tau * T), 2),
            ("noise_cbrt", 5, L * s2 * D2**2 / (tau * T**2), 3),
            ("heterogeneity", 19, L * z2 * D2**2 / T**2, 3)]


def optimized_rhs(*, dist_sq, M, tau, T, L, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None,
                  exact=None, dps=DEFAULT_DPS):
    """Right side of ``FedAvg.TunedConvexFedAvgConvergence`` (Lean ``FedAvg.optimizedRHS P τ T``):

        2 L D²/(τ T) + 2 σ D/√(M τ T) + 5 L^{1/3} σ^{2/3} D^{4/3}/(τ^{1/3} T^{2/3})
          + 19 L^{1/3} ζ^{2/3} D^{4/3}/T^{2/3}

    Exact mode: a Fraction when the sum is rational term by term, else an exact sympy algebraic
    number (sum of radicals); ball / mpmath / symbolic modes as :func:`optimized_step`.

    Source: Field Guide, Section 6.1.2, PDF p. 41, Theorem 1, equation (17).
    """
    terms = optimized_rhs_terms(dist_sq=dist_sq, M=M, tau=tau, T=T, L=L, sigma=sigma, zeta=zeta,
                                sigma_sq=sigma_sq, zeta_sq=zeta_sq, exact=exact, dps=dps)
    mode = _mode_of(*[t[2] for t in terms])
    if mode is True:
        vals = [radical(r, n, mode=True) for _, _, r, n in terms]
        total = sympy.Integer(0)
        for (_, c, _, _), v in zip(terms, vals):
            total += c * (sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v)
        return _public(total)
    if mode is False:
        with mpmath.workdps(dps):
            return sum((c * radical(r, n, mode=False, dps=dps) for _, c, r, n in terms), mpmath.mpf(0))
    out = 0
    for _, c, r, n in terms:
        out = out + c * radical(r, n, mode=mode)
    return out


# ----------------------------------------------------------------------------- hypotheses

def _h(key, statement, margin, strict=False):
    if margin is None:
        return Hypothesis(key, statement, False, None)
    return Hypothesis(key, statement, bool(margin > 0) if strict else bool(margin >= 0), margin)


def fedavg_hypotheses(*, M, tau, T, eta, L, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None, exact=None,
                      dps=DEFAULT_DPS) -> list:
    """Hypotheses shared by ``FedAvg.PerRoundProgress``, ``FedAvg.BoundedClientDrift`` and
    ``FedAvg.ConvexFedAvgConvergence``, in order: M >= 1 (``Problem.clients_pos``), 0 < τ, 0 < T,
    L > 0 (``Problem.smoothness_pos``), 0 < η, η <= 1/(4L), and, when given, σ >= 0 and ζ >= 0
    (``noise_nonneg``, ``heterogeneity_nonneg``; with ``*_sq`` given: the square is >= 0).

    Margins are rhs − lhs of each hypothesis (exact for rational inputs); ``step_size`` has
    margin ``None`` (and fails) when L <= 0. Never raises on a violated hypothesis.
    """
    names = ["M", "tau", "T", "eta", "L"]
    vals = [M, tau, T, eta, L]
    extra = []
    for nm, v, v2 in (("sigma", sigma, sigma_sq), ("zeta", zeta, zeta_sq)):
        if v is not None or v2 is not None:
            if v is not None and v2 is not None:
                raise InputError(nm, f"give {nm} or {nm}_sq, not both")
            extra.append((nm, v if v is not None else v2, v is None))
    vs, _ = coerce(vals + [e[1] for e in extra], exact=exact, dps=dps, names=names + [e[0] for e in extra])
    M, tau, T, eta, L = vs[:5]
    out = [
        _h("clients", "M >= 1", M - 1),
        _h("local_steps", "0 < tau", tau, strict=True),
        _h("rounds", "0 < T", T, strict=True),
        _h("smoothness", "L > 0", L, strict=True),
        _h("eta", "0 < eta", eta, strict=True),
        _h("step_size", "eta <= 1/(4L)", (1 / (4 * L) - eta) if L > 0 else None),
    ]
    for (nm, _, is_sq), v in zip(extra, vs[5:]):
        out.append(_h(nm, f"{nm}{'^2' if is_sq else ''} >= 0", v))
    return out


def tuned_hypotheses(*, M, tau, T, L, dist_sq, sigma=None, zeta=None, sigma_sq=None, zeta_sq=None, exact=None,
                     dps=DEFAULT_DPS) -> list:
    """Hypotheses of ``FedAvg.TunedConvexFedAvgConvergence``, in order: M >= 1, 0 < τ, 0 < T,
    L > 0, 0 < D (``0 < distance P``: margin D² > 0), 0 < σ, 0 < ζ (margins σ², ζ² when squares
    are given, else σ, ζ). The step is not a hypothesis: it is ``optimizedStep P τ T``.
    """
    s_val, s_sq = sigma, sigma_sq
    z_val, z_sq = zeta, zeta_sq
    if (s_val is None) == (s_sq is None):
        raise InputError("sigma", "give exactly one of sigma, sigma_sq")
    if (z_val is None) == (z_sq is None):
        raise InputError("zeta", "give exactly one of zeta, zeta_sq")
    vs, _ = coerce([M, tau, T, L, dist_sq, s_val if s_val is not None else s_sq,
                    z_val if z_val is not None else z_sq], exact=exact, dps=dps,
                   names=["M", "tau", "T", "L", "dist_sq", "sigma", "zeta"])
    M, tau, T, L, D2, s, z = vs
    return [
        _h("clients", "M >= 1", M - 1),
        _h("local_steps", "0 < tau", tau, strict=True),
        _h("rounds", "0 < T", T, strict=True),
        _h("smoothness", "L > 0", L, strict=True),
        _h("distance", "0 < D (D^2 = ||x0 - x*||^2 > 0)", D2, strict=True),
        _h("sigma", "0 < sigma" if s_sq is None else "0 < sigma (sigma^2 > 0)", s, strict=True),
        _h("zeta", "0 < zeta" if z_sq is None else "0 < zeta (zeta^2 > 0)", z, strict=True),
    ]
