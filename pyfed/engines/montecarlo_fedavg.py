r"""Monte Carlo verdicts of the FedAvg statements (Lean namespace ``FedAvg``) on any problem.

Left sides from :func:`pyfed.algorithms.fedavg_shadow.fedavg_shadow` (R replicates, seeded),
intervals and decisions from :mod:`pyfed.engines.montecarlo` (Student-t intervals; a verdict
compares the interval with the right side exactly). Right sides from :mod:`pyfed.theory`.

* Theorem 1 (``ConvexFedAvgConvergence``, ``TunedConvexFedAvgConvergence``): each replicate's
  A = T⁻¹ Σ_t A_t is one unbiased sample of E[A].
* Lemma 1 (``PerRoundProgress``) is conditional on F_{tτ}, i.e. on the round start y. From a
  given start y, R replicates of one round give samples of
  Z = A_t − c_end ‖x̄^{t,τ} − x⋆‖² − c_drift Σᵢ Σ_{k<τ} ‖xᵢ^{t,k} − x̄^{t,k}‖², and the lemma is
  E[Z | y] ≤ c₀ + c_start ‖y − x⋆‖², where c₀, c_start, c_end, c_drift are the coefficients of
  the (affine) :func:`pyfed.theory.progress_rhs` (so the formula stays in one place).
* Lemma 2 (``BoundedClientDrift``): from each start y, every E[‖xᵢ^{t,k} − x̄^{t,k}‖² | y]
  (i < M, 1 ≤ k ≤ τ; k = 0 is exactly 0) against ``driftRHS``.

Which round starts: the caller passes them (``pyfed check`` uses x₀ and round starts reached by
one simulated run: states the algorithm actually visits). With several starts (and several
(i, k) for Lemma 2) the per-comparison confidence is Bonferroni-adjusted so the stated level
holds jointly.

Assumptions stated in the verdicts: F⋆ is replaced by a certified lower bound (the left sides
can only grow); x⋆ by the problem's numerical minimiser x̂ with ‖x̂ − x⋆‖ ≤ ‖∇F(x̂)‖/μ (reported).

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.2, PDF p. 41 (Lemma 1, Lemma 2, Theorem 1).
"""

from __future__ import annotations

import numpy as np

from ..algorithms.fedavg_shadow import fedavg_shadow
from ..errors import InputError, check_int
from ..exact import as_float, compare
from ..theory import fedavg as th
from ..verdicts import Holds, Inconclusive, Violated
from .montecarlo import Estimate, decide

__all__ = ["estimate_avg_loss", "progress_coefficients", "decide_progress_from_starts",
           "decide_drift_from_starts", "decide_avg_loss"]


def estimate_avg_loss(traj, f_star, *, confidence: float = 0.999) -> Estimate:
    """Estimate E[A] (Lean ``∫ avgLoss R ∂μ``) from a :class:`ShadowTrajectory` (one sample per
    replicate). ``f_star``: F⋆ or a certified lower bound on it."""
    return Estimate.from_samples(traj.avg_loss(f_star), confidence)


def decide_avg_loss(statement, traj, f_star, rhs, *, confidence=0.999, details=None, witness=None):
    """Verdict of E[A] <= rhs from a trajectory (:func:`pyfed.engines.montecarlo.decide`)."""
    return decide(statement, estimate_avg_loss(traj, f_star, confidence=confidence), rhs,
                  details=details, witness=witness)


def progress_coefficients(*, M, tau, eta, L, sigma_sq) -> dict:
    """The coefficients of the affine right side of Lemma 1 (:func:`pyfed.theory.progress_rhs`):
    rhs = c0 + c_start·start + c_end·end + c_drift·drift_sum."""
    kw = dict(M=M, tau=tau, eta=eta, L=L, sigma_sq=sigma_sq)
    c0 = th.progress_rhs(start_dist_sq=0, end_dist_sq=0, drift_sum=0, **kw)
    return {"c0": c0,
            "c_start": th.progress_rhs(start_dist_sq=1, end_dist_sq=0, drift_sum=0, **kw) - c0,
            "c_end": th.progress_rhs(start_dist_sq=0, end_dist_sq=1, drift_sum=0, **kw) - c0,
            "c_drift": th.progress_rhs(start_dist_sq=0, end_dist_sq=0, drift_sum=1, **kw) - c0}


def _starts(problem, starts):
    a = np.asarray(starts, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != problem.d or a.shape[0] < 1:
        raise InputError("starts", f"must be a non-empty array of round starts shaped (n, d={problem.d}), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise InputError("starts", "contains NaN or infinite entries")
    return a


def _combine(statement, per_start, details, witness):
    """One verdict from several comparisons ``(Estimate, bound, label, sides)``: the statement is
    E[sample] <= bound at every one (each interval at the Bonferroni-adjusted level). ``sides``
    is (lhs, rhs) of the statement as written (point estimates) or None (then the estimate and
    the bound are the sides); the verdict reports those, with the interval's half-width."""
    worst, worst_key = None, None
    for item in per_start:
        est, bound, label = item[:3]
        if compare(est.lower, bound) < 0:
            return _one(Violated, statement, item, details, witness)
        key = est.upper - as_float(bound)
        if worst is None or key > worst_key:
            worst, worst_key = item, key
    if all(compare(e.upper, b) > 0 for e, b, *_ in per_start):
        return _one(Holds, statement, worst, details, witness)
    return _one(Inconclusive, statement, worst, details, witness)


def _one(kind, statement, item, details, witness):
    est, bound, label, sides = (list(item) + [None])[:4]
    lhs, rhs = sides if sides is not None else (est.mean, bound)
    half = est.upper - est.mean
    shown = {"mean": float(lhs), "stderr": est.stderr, "replicates": est.replicates, "confidence": est.confidence,
             "lower": float(lhs) - half, "upper": float(lhs) + half}
    d = dict(details, estimate=shown, at=label, decided_on=est.to_json(), bound=str(bound))
    if kind is Violated:
        d["claim"] = (f"statistical: the {est.confidence:.4%} interval lies above the right side at {label}; "
                      "rerun the witness or decide the instance exactly before calling it a counterexample")
        return Violated(statement, lhs=lhs, rhs=rhs, exact=False, details=d, witness=dict(witness, at=label))
    if kind is Holds:
        return Holds(statement, lhs=lhs, rhs=rhs, exact=False, details=d,
                     certificate=(f"Monte Carlo, R={est.replicates} replicates per start, every interval (joint level "
                                  f"{details['joint_confidence']:.1%}) below the right side; tightest: {label}"))
    return Inconclusive(statement, lhs=lhs, rhs=rhs, exact=False, details=d,
                        reason=(f"the interval [{est.lower:.6g}, {est.upper:.6g}] at {label} contains {as_float(bound):.6g};"
                                " more replicates needed"))


def decide_progress_from_starts(problem, oracle, starts, *, tau, eta, L, sigma_sq, x_star, f_star, R, rng,
                                confidence=0.999, details=None, witness=None,
                                statement="FedAvg.PerRoundProgress"):
    """Monte Carlo verdict of Lemma 1 from each given round start (see module docstring).

    Parameters
    ----------
    problem, oracle : the instance (oracle noise bound sigma_sq = σ², L the smoothness constant)
    starts : (n, d) round starts y
    tau, eta : local steps, step size
    x_star : (d,) minimiser; f_star : F⋆ or a certified lower bound
    R : replicates per start (>= 2);  rng : seed or Generator (one child stream per start)
    confidence : joint level over the n starts (Bonferroni)
    """
    starts = _starts(problem, starts)
    R = check_int("R", R, minimum=2)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    M = problem.N
    co = progress_coefficients(M=M, tau=tau, eta=eta, L=L, sigma_sq=sigma_sq)
    c = {k: as_float(v) for k, v in co.items()}
    level = 1 - (1 - confidence) / len(starts)
    xs = np.asarray(x_star, dtype=np.float64)
    per = []
    for j, (y, child) in enumerate(zip(starts, rng.spawn(len(starts)))):
        tr = fedavg_shadow(problem, oracle, tau=tau, T=1, eta=eta, x0=y, R=R, rng=child)
        A0 = tr.round_loss(f_star)[:, 0]
        end = tr.shadow_dist_sq(xs)[:, 0, tau]
        drift_sum = tr.drift[:, 0, :tau].sum(axis=(1, 2))
        Z = A0 - c["c_end"] * end - c["c_drift"] * drift_sum
        start_sq = float(np.sum((y - xs) ** 2))
        rhs = co["c0"] + co["c_start"] * start_sq
        sides = (float(A0.mean()), co["c0"] + co["c_start"] * start_sq + co["c_end"] * float(end.mean())
                 + co["c_drift"] * float(drift_sum.mean()))
        per.append((Estimate.from_samples(Z, level), rhs, f"round start #{j}", sides))
    d = dict(details or {})
    d.update(method="montecarlo", joint_confidence=confidence, per_comparison_confidence=level,
             starts=len(starts), replicates_per_start=R,
             decided_as=("E[A_t - c_end ||xbar^tau - x*||^2 - c_drift sum_i sum_{k<tau} drift | y] <= c0 + c_start "
                         "||y - x*||^2, coefficients of pyfed.theory.progress_rhs"))
    return _combine(statement, per, d, dict(witness or {}))


def decide_drift_from_starts(problem, oracle, starts, *, tau, eta, sigma_sq, zeta_sq, R, rng, confidence=0.999,
                             details=None, witness=None, statement="FedAvg.BoundedClientDrift"):
    """Monte Carlo verdict of Lemma 2 from each given round start: every client i and local step
    1 <= k <= τ (k = 0 is exactly 0), joint level ``confidence`` (Bonferroni over n·M·τ
    comparisons). Parameters as :func:`decide_progress_from_starts`."""
    starts = _starts(problem, starts)
    R = check_int("R", R, minimum=2)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    M = problem.N
    bound = th.drift_rhs(tau, eta, sigma_sq=sigma_sq, zeta_sq=zeta_sq)
    level = 1 - (1 - confidence) / (len(starts) * M * tau)
    per = []
    for j, (y, child) in enumerate(zip(starts, rng.spawn(len(starts)))):
        tr = fedavg_shadow(problem, oracle, tau=tau, T=1, eta=eta, x0=y, R=R, rng=child)
        for k in range(1, tau + 1):
            for i in range(M):
                per.append((Estimate.from_samples(tr.drift[:, 0, k, i], level), bound,
                            f"round start #{j}, client {i}, k={k}"))
    d = dict(details or {})
    d.update(method="montecarlo", joint_confidence=confidence, per_comparison_confidence=level,
             starts=len(starts), replicates_per_start=R)
    return _combine(statement, per, d, dict(witness or {}))
