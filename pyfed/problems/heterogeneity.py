r"""Certified heterogeneity constants ζ: sup over x of maxᵢ ‖∇Fᵢ(x) − ∇F(x)‖ (F = M⁻¹ Σᵢ Fᵢ).

The FedAvg statements (Field Guide, Section 6.1, "uniform heterogeneity condition"; Lean field
``FedAvg.Problem.heterogeneous``) need a number ζ with ‖∇Fᵢ(x) − ∇F(x)‖ ≤ ζ for every client i
and *every* x. :func:`heterogeneity` returns one, with its derivation, for

* **quadratic clients sharing one Hessian** Fᵢ(x) = ½ xᵀAx − bᵢᵀx: ∇Fᵢ(x) − ∇F(x) = b̄ − bᵢ does
  not depend on x, so the smallest valid constant is ζ = maxᵢ ‖bᵢ − b̄‖, and ζ² is computed
  *exactly* (a Fraction: rational data, or float data taken at their exact binary value). ζ itself
  is a square root in general, so pyfed keeps ζ² (``zeta_sq``) and compares squares.
* **clients with different Hessians**: ∇Fᵢ(x) − ∇F(x) = (Aᵢ − Ā)x − (bᵢ − b̄) grows without
  bound along any direction v with (Aᵢ − Ā)v ≠ 0, so no finite ζ exists: rejected with
  :class:`pyfed.errors.InputError` naming ``A``.
* **finite-sum logistic losses with the same regulariser on every client**
  (:class:`pyfed.problems.logistic.FiniteSumProblem`, e.g. L2-logistic regression): a certified
  *upper bound*, derived below.

Logistic derivation. Fᵢ(x) = (1/nᵢ) Σ_{j∈Jᵢ} φ(s_j a_jᵀx) + R(x) with the same R for every client
(φ(t) = log(1 + e^{−t}), label y_j ∈ {0, 1}, s_j = 2y_j − 1). The regulariser cancels in
∇Fᵢ − ∇F, and with u_j(x) = expit(a_jᵀx) − y_j,

    ∇Fᵢ(x) − ∇F(x) = Σ_j c_{ij} u_j(x) a_j,   c_{ij} = (1 − 1/M)/nᵢ for j ∈ Jᵢ,  −1/(M n_k) for j ∈ J_k, k ≠ i.

Since expit ∈ (0, 1), u_j ∈ (−1, 0) when y_j = 1 and u_j ∈ (0, 1) when y_j = 0, i.e.
u_j = −s_j/2 + v_j with |v_j| < 1/2. Hence, for every x,

    ‖∇Fᵢ(x) − ∇F(x)‖ ≤ ½ ‖Σ_j c_{ij} s_j a_j‖ + ½ Σ_j |c_{ij}| ‖a_j‖
                      = ½ ‖wᵢ − w̄‖ + ½ ((1 − 2/M) mᵢ + m̄),

with wᵢ = (1/nᵢ) Σ_{j∈Jᵢ} s_j a_j, w̄ = M⁻¹ Σ_k w_k, mᵢ = (1/nᵢ) Σ_{j∈Jᵢ} ‖a_j‖, m̄ = M⁻¹ Σ_k m_k
(triangle inequality and |v_j| ≤ ½). ζ = maxᵢ of the right side. It is evaluated in certified
ball arithmetic (python-flint ``arb``, 128 bits) from the features' exact binary values, and the
upper end of the ball is rounded up to a float: a certified upper bound, which is what the
statements need (they are monotone in ζ: a larger ζ only weakens ``driftRHS`` and
``convergenceRHS``).

Source of the condition: Wang et al., *A Field Guide to Federated Optimization*,
arXiv:2107.06917v1, Section 6.1.1, PDF p. 40, equation (14).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InputError, check_int, check_rng
from .logistic import FiniteSumProblem
from .quadratic import QuadraticProblem

__all__ = ["Heterogeneity", "heterogeneity", "quadratic_heterogeneity", "finite_sum_heterogeneity",
           "shared_hessian_quadratic"]


@dataclass(frozen=True)
class Heterogeneity:
    """A certified heterogeneity constant.

    Attributes
    ----------
    zeta_sq : Fraction
        ζ² (exact rational): the exact supremum (``exact=True``) or the square of a certified
        upper bound (``exact=False``).
    zeta : float
        ζ for display, rounded *up* (never used in an exact computation).
    per_client_sq : tuple of Fraction
        Client i's bound squared (length M).
    exact : bool
        True when ζ² is the smallest valid constant (shared-Hessian quadratics).
    derivation : str
        How it was obtained (shown in reports).
    """

    zeta_sq: Fraction
    zeta: float
    per_client_sq: tuple
    exact: bool
    derivation: str
    details: dict = field(default_factory=dict)


def _sqrt_up(v: Fraction) -> float:
    """A float >= sqrt(v) (v an exact rational >= 0)."""
    if v == 0:
        return 0.0
    s = math.sqrt(float(v))
    while Fraction(s) ** 2 < v:
        s = math.nextafter(s, math.inf)
    return s


def quadratic_heterogeneity(problem) -> Heterogeneity:
    """ζ² = maxᵢ ‖bᵢ − b̄‖² exactly for a :class:`QuadraticProblem` whose clients share one Hessian.

    Raises
    ------
    InputError
        argument ``A`` when two clients have different Hessians (then ‖∇Fᵢ(x) − ∇F(x)‖ =
        ‖(Aᵢ − Ā)x − (bᵢ − b̄)‖ is unbounded in x: no finite ζ); ``problem`` for a non-quadratic problem.
    """

    if not isinstance(problem, QuadraticProblem):
        raise InputError("problem", f"expected a QuadraticProblem, got {type(problem).__name__}")
    N, d = problem.N, problem.d
    if problem.exact:
        A = problem.A_exact
        b = [[Fraction(v) for v in row] for row in problem.b_exact]
        same = all(A[i, j, k] == A[0, j, k] for i in range(N) for j in range(d) for k in range(d))
    else:
        A = problem.A
        b = [[Fraction(float(v)) for v in row] for row in problem.b]  # exact binary values
        same = bool(np.array_equal(A, np.broadcast_to(A[0], A.shape)))
    if not same:
        i = next(i for i in range(N) if not (np.array_equal(np.asarray(A[i], dtype=object),
                                                             np.asarray(A[0], dtype=object))))
        raise InputError("A", f"clients 0 and {i} have different Hessians: then ||grad F_i(x) - grad F(x)|| = "
                              "||(A_i - mean A) x - (b_i - mean b)|| grows without bound in x, so no finite "
                              "heterogeneity constant zeta exists (the FedAvg statements need one); use one "
                              "Hessian shared by every client")
    bbar = [sum((b[i][k] for i in range(N)), Fraction(0)) / N for k in range(d)]
    per = tuple(sum(((b[i][k] - bbar[k]) ** 2 for k in range(d)), Fraction(0)) for i in range(N))
    z2 = max(per) if per else Fraction(0)
    return Heterogeneity(
        zeta_sq=z2, zeta=_sqrt_up(z2), per_client_sq=per, exact=True,
        derivation=("shared Hessian: grad F_i(x) - grad F(x) = mean(b) - b_i for every x, so zeta^2 = "
                    "max_i ||b_i - mean(b)||^2 exactly (the smallest valid constant)"))


def finite_sum_heterogeneity(problem, prec: int = 128) -> Heterogeneity:
    """A certified upper bound on ζ for a finite-sum logistic problem whose clients share the
    regulariser (derivation in the module docstring), evaluated in arb ball arithmetic.

    Raises InputError(``problem``) for a problem without per-sample logistic data.
    """
    from flint import arb, ctx

    if not all(hasattr(problem, a) for a in ("X", "signs", "offsets", "counts", "loss_derivative_bound")):
        raise InputError("problem", f"{type(problem).__name__} is not a finite-sum logistic problem "
                                    "(needs per-sample features, labels and client offsets)")
    if float(problem.loss_derivative_bound) != 1.0:
        raise InputError("problem", "the derivation assumes the logistic loss (|expit - y| <= 1)")
    M, d = int(problem.N), int(problem.d)
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        X = problem.X
        signs = problem.signs

        def sqrt_up(x):   # a ball above sqrt(max(x, 0)): only upper bounds are needed below
            u = x.upper()
            return arb(u).sqrt() if u > 0 else arb(0)
        w, m = [], []
        for i in range(M):
            lo, hi = int(problem.offsets[i]), int(problem.offsets[i + 1])
            n_i = hi - lo
            wi = [arb(0)] * d
            mi = arb(0)
            for j in range(lo, hi):
                row = [arb(float(v)) for v in X[j]]
                s = int(signs[j])
                wi = [a + s * r for a, r in zip(wi, row)]
                mi += sqrt_up(sum((r * r for r in row), arb(0)))
            w.append([a / n_i for a in wi])
            m.append(mi / n_i)
        wbar = [sum((w[i][k] for i in range(M)), arb(0)) / M for k in range(d)]
        per, per_up = [], []
        for i in range(M):
            dist = sqrt_up(sum(((w[i][k] - wbar[k]) ** 2 for k in range(d)), arb(0)))
            # (1 - 2/M) m_i + mean m = (1 - 1/M) m_i + (1/M) sum_{k != i} m_k: nonnegative weights,
            # so upper bounds of the m_k give an upper bound
            others = sum((m[k] for k in range(M) if k != i), arb(0))
            bound = (dist + (1 - arb(1) / M) * m[i] + others / M) / 2
            up = math.nextafter(float(bound.upper()), math.inf) if bound.upper() > 0 else 0.0
            per.append(bound)
            per_up.append(up)
    finally:
        ctx.prec = old
    zeta = max(per_up) if per_up else 0.0
    return Heterogeneity(
        zeta_sq=Fraction(zeta) ** 2, zeta=zeta, per_client_sq=tuple(Fraction(u) ** 2 for u in per_up),
        exact=False,
        derivation=("same regulariser on every client (it cancels); |expit - y| < 1 written as -s/2 + v, |v| < 1/2: "
                    "zeta_i <= ||w_i - mean w||/2 + ((1 - 2/M) m_i + mean m)/2 with w_i the client's mean signed "
                    "feature and m_i its mean feature norm; evaluated in arb balls (128 bits), rounded up"),
        details={"per_client_upper": per_up})


def heterogeneity(problem) -> Heterogeneity:
    """The certified heterogeneity constant of ``problem`` (dispatch on its class): exact for
    shared-Hessian quadratics (:func:`quadratic_heterogeneity`), a certified upper bound for
    finite-sum logistic problems (:func:`finite_sum_heterogeneity`).

    Raises InputError: ``A`` for quadratic clients with different Hessians (no finite ζ),
    ``problem`` for a class without a derivation.
    """

    if isinstance(problem, QuadraticProblem):
        return quadratic_heterogeneity(problem)
    if isinstance(problem, FiniteSumProblem):
        return finite_sum_heterogeneity(problem)
    raise InputError("problem", f"no heterogeneity derivation for {type(problem).__name__} "
                                "(supported: shared-Hessian QuadraticProblem, finite-sum logistic problems)")


def shared_hessian_quadratic(M: int, d: int, rng, *, mu=Fraction(1, 10), L=1, heterogeneity=1,
                             name: str | None = None):
    """A seeded rational quadratic instance whose M clients share one Hessian (the class on which
    ζ is exact): A = mu I + scale · B Bᵀ with B entries in {k/4} scaled so that lambda_max(A) <= L
    (trace bound), bᵢ entries in {k/4}·heterogeneity. Returns a :class:`QuadraticProblem`.

    Raises InputError for M < 1, d < 1 or not 0 <= mu <= L, L > 0.
    """

    rng = check_rng(rng)
    M = check_int("M", M, minimum=1)
    d = check_int("d", d, minimum=1)
    mu_f, L_f = Fraction(mu), Fraction(L)
    if not (0 <= mu_f <= L_f and L_f > 0):
        raise InputError("mu", f"need 0 <= mu <= L and L > 0, got mu={mu}, L={L}")
    B = np.array([[Fraction(int(v), 4) for v in row] for row in rng.integers(-4, 5, size=(d, d))], dtype=object)
    G = B @ B.T
    tr = sum(G[j, j] for j in range(d)) or Fraction(1)
    A = G * ((L_f - mu_f) / tr) + np.eye(d, dtype=object) * mu_f
    h = Fraction(heterogeneity)
    b = np.array([[Fraction(int(v), 4) * h for v in rng.integers(-8, 9, size=d)] for _ in range(M)], dtype=object)
    return QuadraticProblem(np.array([A] * M, dtype=object), b, name=name or f"quadratic-shared-hessian-M{M}-d{d}")
