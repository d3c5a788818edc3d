r"""Exact-moment engine for FedAvg at local-step granularity (the Field Guide model, Lean ``FedAvg``).

Model (Lean ``FedAvg.Run``; Wang et al., *A Field Guide to Federated Optimization*,
arXiv:2107.06917v1, Section 6.1.1, PDF p. 40): M clients, full participation, uniform weights,
τ local steps of size η, T rounds. Every round starts all clients at the previous round's
terminal average (round 0 at the deterministic x₀):

    xᵢ^{t,k+1} = xᵢ^{t,k} − η gᵢ^{t,k},    xᵢ^{t+1,0} = x̄^{t,τ} = M⁻¹ Σⱼ xⱼ^{t,τ}.

Quadratic clients Fᵢ(x) = ½ xᵀAᵢx − bᵢᵀx with additive oracle noise gᵢ = Aᵢx − bᵢ + ξ (ξ mean
zero, covariance Σᵢ, fresh at every call, independent across calls and clients;
:class:`pyfed.oracles.GaussianOracle` has Σᵢ = (σ²/d) I). Every quantity of the FedAvg statements
is then a finite computation, done exactly (python-flint ``fmpq_mat``) or in certified balls
(``arb_mat``).

Derivation
----------
**One round, as quadratic forms in the round start.** Write ỹ = (y, 1) for the round start y
(every client at y; in the Lean model y is F_{tτ}-measurable) and x̃ = (x, 1). Client i's local
step is x̃ ← Gᵢ x̃ − η (ξ, 0) with Gᵢ = [[I − ηAᵢ, η bᵢ], [0, 1]], so after k steps

    x̃ᵢ^{k} = Gᵢ^k ỹ + noise,   noise covariance Nᵢ^k:  Nᵢ^0 = 0,  Nᵢ^{k+1} = Dᵢ Nᵢ^k Dᵢᵀ + η² Σᵢ,

(Dᵢ = I − ηAᵢ), noises of different clients independent and mean zero. Hence the shadow iterate
x̄^k has mean map B_k = M⁻¹ Σᵢ Gᵢ^k and noise covariance M⁻² Σᵢ Nᵢ^k, and client i's drift
xᵢ^k − x̄^k has mean map Gᵢ^k − B_k and noise covariance (1 − 2/M) Nᵢ^k + M⁻² Σⱼ Nⱼ^k. For a
quadratic statistic s(x̃) = x̃ᵀ S x̃ of an affine image C x̃ + e (e mean zero, covariance V),

    E[s | y] = ỹᵀ (Cᵀ S C) ỹ + tr(S V) = ỹᵀ W ỹ,    W = Cᵀ S C + tr(S V) · e_{d+1} e_{d+1}ᵀ,

one (d+1)×(d+1) symmetric matrix per statistic (the constant goes to the homogeneous corner,
since ỹ's last entry is 1). :func:`fedavg_round_forms` computes these forms for every local step
k = 0..τ of a round:

* ``gap[k]``: E[F(x̄^k) − F⋆ | y] with S = Φ = [[Ā/2, −b̄/2], [−b̄ᵀ/2, −F⋆]];
* ``shadow_dist_sq[k]``: E[‖x̄^k − x⋆‖² | y] with S = [[I, −x⋆], [−x⋆ᵀ, ‖x⋆‖²]];
* ``drift[k][i]``: E[‖xᵢ^k − x̄^k‖² | y] with S = I (the mean map's last row vanishes).

Because the round start is synchronised and the noise is fresh, the conditional law of a round
given F_{tτ} depends only on y (and not on t): these forms *are* the conditional expectations of
Lemmas 1 and 2, for every round and every history.

**Rounds.** The next round start is x̄^{t,τ}: ỹ_{t+1} = B_τ ỹ_t + e with covariance
V_τ = M⁻² Σᵢ Nᵢ^τ, so the second moment Y_t = E[ỹ_t ỹ_tᵀ] follows Y_{t+1} = B_τ Y_t B_τᵀ + V_τ
(padded), Y₀ = x̃₀ x̃₀ᵀ, and every unconditional statistic is E[s^{t,k}] = tr(W_k Y_t):
:func:`fedavg_shadow_moments` returns them for every round t and local step k, and
A_t = τ⁻¹ Σ_{k=1}^{τ} E[F(x̄^{t,k}) − F⋆], A = T⁻¹ Σ_{t<T} A_t.

**Assumptions beyond the source.** Oracle noise additive, state-independent, mean zero with
known covariance, independent across clients and calls (the source assumes conditional
independence across clients, unbiasedness and a variance bound; the Gaussian law is one law
satisfying them). Cost: O(M τ d³) for the forms and O(T d³) for the rounds.

Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.1 (PDF p. 40, eqs. (11)-(14))
and Section 6.1.2 (PDF p. 41); Lean model ``FedAvg.Run`` (published ``Def_FedAvg_Model.lean``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...errors import InputError, check_int, check_nonnegative, check_positive
from .model import (
    _check_quadratic,
    _minimiser,
    _noise_covariances,
    _problem_data,
    _stat_forms,
    _vector,
    choose_field,
)

__all__ = ["RoundForms", "ShadowMoments", "fedavg_round_forms", "fedavg_shadow_moments", "form_value",
           "round_forms_in_field"]


# --------------------------------------------------------------------------- small matrix helpers

def _mat(F, arr):
    arr = np.asarray(arr, dtype=object)
    return F.mat(arr.shape[0], arr.shape[1], arr.ravel().tolist())


def _eye_mat(F, n):
    one, zero = F.scalar(1), F.scalar(0)
    return F.mat(n, n, [one if i == j else zero for i in range(n) for j in range(n)])


def _trace(F, m):
    t = F.scalar(0)
    for i in range(m.nrows()):
        t += m[i, i]
    return t


def _corner(F, n, value):
    """n x n matrix with ``value`` in the bottom-right (homogeneous) corner, 0 elsewhere."""
    z = F.mat(n, n)
    z[n - 1, n - 1] = value
    return z




def form_value(F, W, y):
    """ỹᵀ W ỹ for a form W ((d+1)x(d+1) F.mat) and a point y (d field scalars)."""
    n = W.nrows()
    v = list(y) + [F.scalar(1)]
    total = F.scalar(0)
    for i in range(n):
        for j in range(n):
            total += v[i] * W[i, j] * v[j]
    return total


# --------------------------------------------------------------------------- one round

@dataclass
class RoundForms:
    """Conditional expectations of one FedAvg round as quadratic forms in ỹ = (y, 1).

    Each form W is a (d+1)x(d+1) symmetric matrix (python-flint ``fmpq_mat`` in exact mode,
    ``arb_mat`` in ball mode) with E[statistic | round start y] = ỹᵀ W ỹ.

    Attributes
    ----------
    gap : list of τ+1 forms
        E[F(x̄^k) − F⋆ | y], k = 0..τ (k = 0 is F(y) − F⋆).
    shadow_dist_sq : list of τ+1 forms
        E[‖x̄^k − x⋆‖² | y].
    drift : list (τ+1) of lists (M) of forms
        E[‖xᵢ^k − x̄^k‖² | y].
    mean_map : (d+1)x(d+1)
        B_τ: E[(x̄^τ, 1) | y] = B_τ ỹ (the next round start's mean).
    noise : (d+1)x(d+1)
        Covariance of x̄^τ given y, padded with a zero homogeneous row/column.
    x_star : list of d field scalars;  f_star : field scalar
    field : ExactField | BallField
    d, M, tau : int
    """

    gap: list
    shadow_dist_sq: list
    drift: list
    mean_map: object
    noise: object
    x_star: list
    f_star: object
    field: object
    d: int
    M: int
    tau: int


def round_forms_in_field(F, problem, sigma, *, tau, eta, noise_cov=None) -> RoundForms:
    """:class:`RoundForms` in the given field (no validation; see :func:`fedavg_round_forms`)."""
    M, d = problem.N, problem.d
    n = d + 1
    with F.active():
        A, b = _problem_data(F, problem)
        xs, fstar = _minimiser(F, problem, A, b)
        Sig = _noise_covariances(F, problem, sigma, noise_cov)
        Phi, _ = _stat_forms(F, A, b, fstar)
        Phi = _mat(F, Phi)
        et = F.scalar(eta)
        invM = F.scalar(Fraction(1, M))
        I = _eye_mat(F, n)
        # Dist = [[I, -x*], [-x*^T, ||x*||^2]]
        dist = F.mat(n, n)
        for i in range(d):
            dist[i, i] = F.scalar(1)
            dist[i, d] = -xs[i]
            dist[d, i] = -xs[i]
        dist[d, d] = sum((v * v for v in xs), F.scalar(0))
        G, noise_step = [], []
        for i in range(M):
            g = F.mat(n, n)
            for r in range(d):
                for c in range(d):
                    g[r, c] = (F.scalar(1) if r == c else F.scalar(0)) - et * A[i][r, c]
                g[r, d] = et * b[i][r]
            g[d, d] = F.scalar(1)
            G.append(g)
            s = F.mat(n, n)
            for r in range(d):
                for c in range(d):
                    s[r, c] = et * et * Sig[i][r, c]
            noise_step.append(s)
        Gk = [I for _ in range(M)]             # G_i^k
        Nk = [F.mat(n, n) for _ in range(M)]   # padded N_i^k
        gap, dsq, drift = [], [], []
        B = Vx = None
        for k in range(tau + 1):
            if k > 0:
                Gk = [G[i] * Gk[i] for i in range(M)]
                Nk = [G[i] * Nk[i] * G[i].transpose() + noise_step[i] for i in range(M)]
            B = F.mat(n, n)
            Nsum = F.mat(n, n)
            for i in range(M):
                B = B + Gk[i]
                Nsum = Nsum + Nk[i]
            B = B * invM
            Vx = Nsum * (invM * invM)
            Bt = B.transpose()
            gap.append(Bt * Phi * B + _corner(F, n, _trace(F, Phi * Vx)))
            dsq.append(Bt * dist * B + _corner(F, n, _trace(F, Vx)))
            row = []
            tr_sum = _trace(F, Nsum) * invM * invM
            for i in range(M):
                Dm = Gk[i] - B
                Wd = Dm.transpose() * Dm
                tr_i = (F.scalar(1) - F.scalar(2) * invM) * _trace(F, Nk[i]) + tr_sum
                row.append(Wd + _corner(F, n, tr_i))
            drift.append(row)
        return RoundForms(gap=gap, shadow_dist_sq=dsq, drift=drift, mean_map=B, noise=Vx,
                          x_star=list(xs), f_star=fstar, field=F, d=d, M=M, tau=tau)


def _validate(problem, sigma, tau, eta, noise_cov):
    _check_quadratic(problem)
    tau = check_int("tau", tau, minimum=1)
    check_positive("eta", eta)
    if noise_cov is None:
        check_nonnegative("sigma", sigma)
    return tau


def fedavg_round_forms(problem, sigma=0, *, tau, eta, noise_cov=None, field=None, prec=128) -> RoundForms:
    """Conditional expectations of one FedAvg round (every local step k = 0..τ) as quadratic forms
    in the round start (derivation in the module docstring).

    Parameters
    ----------
    problem : QuadraticProblem
        M quadratic clients in dimension d (rational data -> exact arithmetic).
    sigma : scalar >= 0
        Oracle noise level: Σᵢ = (σ²/d) I (E‖ξ‖² = σ²), unless ``noise_cov`` is given.
    tau : int >= 1
        Local steps per round.
    eta : scalar > 0
        Local step size (rational, float, or a sympy expression such as an irrational tuned step).
    noise_cov : (d, d) or (M, d, d), optional
        Per-client noise covariance Σᵢ (overrides sigma).
    field : ExactField | BallField, optional
        Force an arithmetic (default: exact iff every input is rational).
    prec : int
        Bits of the ball arithmetic when it is used.

    Returns
    -------
    RoundForms

    Raises
    ------
    InputError
        Non-quadratic problem, tau < 1, eta <= 0, sigma < 0, wrong noise_cov shape.
    """
    tau = _validate(problem, sigma, tau, eta, noise_cov)
    F = field or choose_field([sigma, eta, noise_cov], problem, prec)
    return round_forms_in_field(F, problem, sigma, tau=tau, eta=eta, noise_cov=noise_cov)


# --------------------------------------------------------------------------- whole runs

@dataclass
class ShadowMoments:
    """Unconditional expectations of FedAvg's shadow statistics at every round t and local step k.

    Attributes (Fraction in exact mode, flint ``arb`` balls otherwise)
    ----------
    gap : list T x (τ+1)
        E[F(x̄^{t,k}) − F⋆].
    shadow_dist_sq : list T x (τ+1)
        E[‖x̄^{t,k} − x⋆‖²].
    drift : list T x (τ+1) x M
        E[‖xᵢ^{t,k} − x̄^{t,k}‖²].
    round_loss : list of T
        E[A_t] = τ⁻¹ Σ_{k=1}^{τ} gap[t][k]  (Lean ``FedAvg.roundLoss``, in expectation).
    avg_loss
        E[A] = T⁻¹ Σ_t E[A_t]  (Lean ``FedAvg.avgLoss``, integrated).
    round_start_mean : list T+1 of d-lists
        E[x̄^{t,0}] (t = T is the final average).
    exact : bool;  arithmetic : str
    """

    gap: list
    shadow_dist_sq: list
    drift: list
    round_loss: list
    avg_loss: object
    round_start_mean: list
    exact: bool
    arithmetic: str
    forms: RoundForms = field(repr=False, default=None)


def _tr_prod(F, W, Y):
    n = W.nrows()
    t = F.scalar(0)
    for i in range(n):
        for j in range(n):
            t += W[i, j] * Y[j, i]
    return t


def shadow_moments_from_forms(forms: RoundForms, x0, T: int) -> ShadowMoments:
    """Propagate the round-start second moment Y_t and read every statistic (see module docstring)."""
    F = forms.field
    d, tau = forms.d, forms.tau
    n = d + 1
    with F.active():
        x0v = list(x0) + [F.scalar(1)]
        Y = F.mat(n, n, [a * b for a in x0v for b in x0v])
        B, Bt = forms.mean_map, forms.mean_map.transpose()
        gap, dsq, drift, rl, means = [], [], [], [], []
        pub = F.public
        inv_tau = F.scalar(Fraction(1, tau))
        for _ in range(T):
            means.append([pub(Y[i, d]) for i in range(d)])
            g = [_tr_prod(F, W, Y) for W in forms.gap]
            gap.append([pub(v) for v in g])
            dsq.append([pub(_tr_prod(F, W, Y)) for W in forms.shadow_dist_sq])
            drift.append([[pub(_tr_prod(F, W, Y)) for W in row] for row in forms.drift])
            s = F.scalar(0)
            for v in g[1:]:
                s += v
            rl.append(s * inv_tau)
            Y = B * Y * Bt + forms.noise
        means.append([pub(Y[i, d]) for i in range(d)])
        total = F.scalar(0)
        for v in rl:
            total += v
        avg = total * F.scalar(Fraction(1, T))
        return ShadowMoments(gap=gap, shadow_dist_sq=dsq, drift=drift, round_loss=[pub(v) for v in rl],
                             avg_loss=pub(avg), round_start_mean=means, exact=F.exact, arithmetic=F.name,
                             forms=forms)


def fedavg_shadow_moments(problem, sigma=0, *, tau, T, eta, x0=None, noise_cov=None, field=None,
                          prec=128) -> ShadowMoments:
    """Exact expectations of FedAvg's shadow statistics (A_t, A, shadow distance, client drift) at
    every round and local step, for quadratic clients with Gaussian-law noise.

    Parameters as :func:`fedavg_round_forms`, plus T (rounds, >= 1) and x0 ((d,), default zeros:
    the deterministic start of every client).

    Returns
    -------
    ShadowMoments

    Raises
    ------
    InputError
        As :func:`fedavg_round_forms`; T < 1; x0 of the wrong shape.

    Source: Field Guide, arXiv:2107.06917v1, Section 6.1.1 (A_t and A: PDF p. 40).
    """
    tau = _validate(problem, sigma, tau, eta, noise_cov)
    T = check_int("T", T, minimum=1)
    F = field or choose_field([sigma, eta, noise_cov, x0], problem, prec)
    with F.active():
        x0v = _vector(F, "x0", x0, problem.d)
    forms = round_forms_in_field(F, problem, sigma, tau=tau, eta=eta, noise_cov=noise_cov)
    return shadow_moments_from_forms(forms, x0v, T)


def check_noise_cov_shape(problem, noise_cov):
    """InputError unless noise_cov is None, (d, d) or (M, d, d)."""
    if noise_cov is None:
        return
    C = np.asarray(noise_cov, dtype=object)
    if C.shape not in ((problem.d, problem.d), (problem.N, problem.d, problem.d)):
        raise InputError("noise_cov", f"must have shape (d, d) or (M, d, d), got {C.shape}")
