"""Monte Carlo estimates of the theorems' left sides, with confidence intervals.

The left sides are expectations over the run's randomness (oracle noise and client
sampling):

* ``weightedGap`` (seed 000) = (1/W_T) sum_{r=0}^{T-1} w_r E[f(x^r) - f(x*)], w_r = q^-(r+1);
* ``averageGradientSq`` = (1/T) sum_{r=0}^{T-1} E||grad f(x^r)||^2 (rounds 0..T-1, x^T excluded).

Each replicate of a vectorised run gives one unbiased sample of the left side (the same
linear combination applied to its own path), so the estimate is the replicate mean and the
interval is the Student-t interval at the stated confidence (a CLT interval: it assumes R is
large enough for the mean to be near-normal; reports state R and the level).

A verdict compares the interval with the exact (or mpmath) right side, exactly:
``holds`` when the upper end is below the right side, ``violated`` when the lower end is
above it, ``inconclusive`` otherwise.

A run that diverges (:class:`pyfed.errors.Diverged`, raised by the simulators) gives no
estimate: :func:`diverged` turns it into an ``inconclusive`` verdict that says "diverged at
round r" -- beyond the hypotheses that is what the inequality's left side does there; inside
them it is flagged as an anomaly worth reporting (see :func:`diverged`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..exact import as_float, compare
from ..theory import weights
from ..verdicts import Evidence, Holds, Inconclusive, Verdict, Violated

__all__ = ["Estimate", "estimate_weighted_gap", "estimate_average_gradient_sq", "decide", "diverged"]


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate of an expectation.

    Attributes
    ----------
    mean : float
        Replicate mean.
    stderr : float
        Standard error of the mean (sample std / sqrt(R)).
    replicates : int
        Number R of independent replicates.
    confidence : float
        Two-sided confidence level of [lower, upper] (e.g. 0.999).
    lower, upper : float
        Student-t confidence interval ends.
    samples : ndarray (R,)
        Per-replicate values (kept for re-analysis).
    """

    mean: float
    stderr: float
    replicates: int
    confidence: float
    lower: float
    upper: float
    samples: np.ndarray

    @classmethod
    def from_samples(cls, samples, confidence: float = 0.999) -> "Estimate":
        """Build from per-replicate values ``samples`` (R,), R >= 2."""
        s = np.asarray(samples, dtype=np.float64).ravel()
        if s.size < 2:
            raise InputError("replicates", f"need at least 2 replicates for a confidence interval, got {s.size}")
        if not np.all(np.isfinite(s)):
            raise InputError("samples", "non-finite values: the run diverged (check step sizes)")
        if not (0 < confidence < 1):
            raise InputError("confidence", f"must be in (0, 1), got {confidence}")
        # Student's t quantile: scipy.special.stdtrit is what scipy.stats.t.ppf evaluates (same
        # floats), without importing scipy.stats (about 1 s of CPU at start-up)
        from scipy.special import stdtrit

        mean = float(s.mean())
        se = float(s.std(ddof=1) / np.sqrt(s.size))
        t = float(stdtrit(s.size - 1, 0.5 + confidence / 2))
        return cls(mean, se, int(s.size), confidence, mean - t * se, mean + t * se, s)

    def to_json(self) -> dict:
        return {"mean": self.mean, "stderr": self.stderr, "replicates": self.replicates,
                "confidence": self.confidence, "lower": self.lower, "upper": self.upper}


def _pre_round_iterates(x):
    """x (R, T+1, d) as float64 and T >= 1; InputError naming ``x`` otherwise."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 3:
        raise InputError("x", f"must have shape (R, T+1, d), got {x.shape}")
    T = x.shape[1] - 1
    if T < 1:
        raise InputError("x", "needs at least one round (T >= 1)")
    return x, T


def estimate_weighted_gap(x, problem, mu, h, *, f_star=None, confidence: float = 0.999) -> Estimate:
    """Estimate weightedGap = (1/W_T) sum_{r<T} w_r E[f(x^r) - f*].

    Parameters
    ----------
    x : ndarray (R, T+1, d)
        Server iterates x^0..x^T of R replicates (a ``Trajectory.x``); the statistic uses
        x^0..x^{T-1} and excludes x^T, as the theorem does.
    problem : Problem
        Gives f (``problem.value``) and, unless ``f_star`` is given, f* = ``problem.f_star``.
    mu, h : scalars
        Strong convexity and effective step defining w_r = (1 - mu h / 2)^-(r+1).
    """
    x, T = _pre_round_iterates(x)
    fs = as_float(problem.f_star if f_star is None else f_star)
    gaps = problem.value(x[:, :T, :]) - fs  # (R, T)
    w = np.array([as_float(v) for v in weights(T, mu, h, exact=False)])
    per_rep = gaps @ (w / w.sum())
    return Estimate.from_samples(per_rep, confidence)


def estimate_average_gradient_sq(x, problem, *, confidence: float = 0.999) -> Estimate:
    """Estimate averageGradientSq = (1/T) sum_{r<T} E||grad f(x^r)||^2 from x (R, T+1, d)."""
    x, T = _pre_round_iterates(x)
    g = problem.grad(x[:, :T, :])  # (R, T, d)
    per_rep = np.einsum("rtd,rtd->rt", g, g).mean(axis=1)
    return Estimate.from_samples(per_rep, confidence)


def decide(statement: str, estimate: Estimate, rhs, *, details: dict | None = None,
           witness: dict | None = None) -> Verdict:
    """Compare a Monte Carlo estimate of the left side with the right side ``rhs``.

    The comparison of each interval end (a float, converted exactly) with ``rhs``
    (Fraction or mpf) is exact. Returns Holds / Violated (with ``witness``) / Inconclusive.
    """
    d = dict(details or {})
    d["estimate"] = estimate.to_json()
    cert = (f"Monte Carlo, R={estimate.replicates} replicates, {estimate.confidence:.1%} Student-t "
            f"interval [{estimate.lower:.6g}, {estimate.upper:.6g}] below the right side")
    if compare(estimate.upper, rhs) > 0:
        return Holds(statement, lhs=estimate.mean, rhs=rhs, exact=False, details=d, evidence=Evidence.MONTE_CARLO,
                     certificate=cert)
    if compare(estimate.lower, rhs) < 0:
        d["claim"] = (f"statistical: the {estimate.confidence:.1%} interval lies above the right side; rerun "
                      "the witness (same seed) or decide the instance exactly before calling it a counterexample")
        return Violated(statement, lhs=estimate.mean, rhs=rhs, exact=False, details=d, evidence=Evidence.MONTE_CARLO,
                        witness=dict(witness or {}))
    return Inconclusive(statement, lhs=estimate.mean, rhs=rhs, exact=False, details=d,
                        reason=(f"the {estimate.confidence:.1%} interval [{estimate.lower:.6g}, {estimate.upper:.6g}] "
                                f"contains the right side {as_float(rhs):.6g}; more replicates needed"))


def diverged(statement: str, exc, rhs=None, *, inside_hypotheses: bool, details: dict | None = None,
             witness: dict | None = None) -> Verdict:
    """The verdict of a Monte Carlo instance whose run diverged (``exc``: a
    :class:`pyfed.errors.Diverged` from the simulator): always Inconclusive, with ``reason``
    "diverged at round r ..." and ``details["diverged"]`` (round, magnitude, quantity, replicate).

    * Beyond the hypotheses the theorem claims nothing; the divergence is what the run does
      there (e.g. a step size far above 1/(81 beta)).
    * Inside the hypotheses the theorem bounds the *expectation* of the left side by ``rhs``.
      One path beyond the divergence threshold is not a certified counterexample (an
      unbounded-noise path can be large with tiny probability; floats can overflow), but it
      is strong evidence against the statement, the instance's constants or the simulator:
      ``details["anomaly"]`` says so, and the witness (instance, seed) reproduces it. Decide the
      instance exactly (the exact-moment engine, for quadratic clients) or report it.
    """
    d = dict(details or {})
    d["diverged"] = exc.to_json()
    where = f"diverged at round {exc.round} ({exc})"
    if inside_hypotheses:
        d["anomaly"] = ("diverged inside the hypotheses: the theorem bounds the expectation of the left side, "
                        "so this is evidence against the statement, its constants or the simulator (not a "
                        "certified counterexample); reproduce it with the witness and decide it exactly")
        reason = (f"{where} inside the hypotheses -- an anomaly worth reporting: the theorem bounds the "
                  "expectation here; re-run the witness, decide the instance exactly, or report it")
    else:
        reason = f"{where}; beyond the hypotheses the theorem claims nothing"
    if witness:
        d["witness"] = dict(witness)
    return Inconclusive(statement, lhs=None, rhs=rhs, exact=False, details=d, reason=reason)
