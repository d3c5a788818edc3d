"""Shared pieces of the federated algorithms: the trajectory record, input validation and the
divergence detector.

Every algorithm in :mod:`pyfed.algorithms` simulates R independent replicates at once;
arrays carry a leading replicate axis R. All validation raises
:class:`pyfed.errors.InputError` naming the offending argument.

Divergence: every simulator calls :func:`check_divergence` once per round (per time step for
Local SGD) on the state it just produced; a non-finite entry or one above
:data:`DIVERGENCE_THRESHOLD` in absolute value stops the run with
:class:`pyfed.errors.Diverged` (carrying the round and the magnitude), instead of returning
iterates near 1e63, inf or NaN with only numpy warnings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import (
    Diverged,
    InputError,
    check_finite_array,
    check_global_step,
    check_int,
    check_participation,
    check_positive,
    check_rng,
)
from ..exact import to_fraction
from ..oracles import Oracle
from ..problems.base import Problem

__all__ = ["Trajectory", "LocalSGDTrajectory", "DIVERGENCE_THRESHOLD", "check_divergence"]

#: A simulator's state is declared diverged when an entry exceeds this in absolute value (or is
#: NaN/inf). 1e50 is far beyond any iterate of a run that converges at sane data scales (f ~ |x|^2
#: would be ~1e100) and low enough that the squares and sums of squares the left sides take stay
#: finite in float64 (~1e100 * d).
DIVERGENCE_THRESHOLD = 1e50


@dataclass
class Trajectory:
    """The record of R independent replicates of a federated run (FedAvg or SCAFFOLD).

    Attributes
    ----------
    x : ndarray (R, T+1, d)
        Server iterates x_0, ..., x_T of each replicate (x_0 is the start point).
    c : ndarray (R, N, d) | None
        Final client controls c_i^T (SCAFFOLD); ``None`` for FedAvg.
    c_history : ndarray (R, T+1, N, d) | None
        Client controls c_i^0, ..., c_i^T when ``record_controls=True``, else ``None``.
    samples : ndarray of int64 (R, T, S)
        Client indices (0-based, sorted ascending) sampled in rounds 0, ..., T-1.
    meta : dict
        ``algorithm`` name, the parameters as given (S, K, T, eta_l, eta_g, option/mode, R),
        and ``seed`` (the int seed if one was passed, else ``None``).
    c_server : ndarray (R, d) | None
        Final server control c^T (SCAFFOLD). For :func:`scaffold` this is the separately
        updated state c <- c + (S/N) Delta c; for :func:`scaffold_run` it is mean_i c_i^T.
    c_server_history : ndarray (R, T+1, d) | None
        Server controls c^0, ..., c^T when ``record_controls=True``, else ``None``.
    """

    x: np.ndarray
    c: np.ndarray | None
    c_history: np.ndarray | None
    samples: np.ndarray
    meta: dict = field(default_factory=dict)
    c_server: np.ndarray | None = None
    c_server_history: np.ndarray | None = None

    @property
    def R(self) -> int:
        """Number of replicates."""
        return self.x.shape[0]

    @property
    def T(self) -> int:
        """Number of rounds."""
        return self.x.shape[1] - 1


@dataclass
class LocalSGDTrajectory:
    """The record of R independent replicates of Stich's Local SGD.

    Attributes
    ----------
    x : ndarray (R, T+1, workers, d)
        Worker iterates x_t^k for t = 0..T and workers k = 0..workers-1.
    sync_times : ndarray of int64 (m,)
        Synchronisation times 0 < t_1 < ... < t_m = T.
    eta : ndarray (T,)
        Step sizes eta_0, ..., eta_{T-1} (as floats).
    indices : ndarray of int64 (R, T, workers, b) | None
        The sampled component indices i_{t,q}^k (0-based) when ``record_indices=True``.
    meta : dict
        Algorithm name, parameters and seed.
    """

    x: np.ndarray
    sync_times: np.ndarray
    eta: np.ndarray
    indices: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    @property
    def average(self) -> np.ndarray:
        """The average iterate x-bar_t = (1/workers) sum_k x_t^k, shape (R, T+1, d)."""
        return self.x.mean(axis=2)


# -- divergence ----------------------------------------------------------------------

def check_divergence(r: int, state, *, quantity: str = "x", threshold: float | None = None) -> None:
    """Raise :class:`pyfed.errors.Diverged` if ``state`` (any array: x of shape (R, d), controls
    (R, N, d), worker iterates ...) has a NaN/inf entry or one with absolute value above
    ``threshold`` (default :data:`DIVERGENCE_THRESHOLD`).

    Called by every simulator once per round r (0-based) on the state that round produced
    (x^{r+1}, and the controls where there are any): one max-reduction, cheap next to the round.
    The exception carries r, the magnitude (``inf``/``nan`` when non-finite), which ``quantity``
    and the first offending replicate (leading axis)."""
    thr = DIVERGENCE_THRESHOLD if threshold is None else float(threshold)
    a = np.asarray(state)
    if a.size == 0:
        return
    m = float(np.max(np.abs(a)))
    if m <= thr:  # False for NaN: a NaN anywhere makes the max NaN
        return
    bad = ~(np.abs(a) <= thr)
    rep = int(np.argmax(bad.reshape(a.shape[0], -1).any(axis=1))) if a.ndim >= 1 else None
    raise Diverged(r, m, quantity=quantity, replicate=rep, threshold=thr)


# -- validation ----------------------------------------------------------------------

def as_step(name: str, value) -> float:
    """Validate a step size > 0 (exact rationals such as "1/81" accepted) -> float."""
    frac = to_fraction(value)
    if frac is not None:
        if frac <= 0:
            raise InputError(name, f"must be a finite number > 0, got {value!r}")
        return float(frac)
    check_positive(name, value)
    return float(value)


def as_global_step_run(value) -> float:
    """eta_g >= 1 ("a run has ... global step eta_g >= 1", seed 000; in Lean a hypothesis of
    the theorems rather than a field of ``Run``) -> float."""
    frac = to_fraction(value)
    if frac is not None:
        if frac < 1:
            raise InputError("eta_g", f"must be a finite number >= 1 (seed 000 Run model), got {value!r}")
        return float(frac)
    check_global_step(value)
    return float(value)


def check_problem(problem) -> Problem:
    if not isinstance(problem, Problem):
        raise InputError("problem", f"must be a pyfed Problem, got {type(problem).__name__}")
    return problem


def check_oracle(oracle, problem: Problem) -> Oracle:
    if not isinstance(oracle, Oracle):
        raise InputError("oracle", f"must be a pyfed Oracle, got {type(oracle).__name__}")
    if oracle.problem is not problem:
        raise InputError("oracle", "oracle.problem is not the problem passed to the algorithm")
    return oracle


def check_rounds(problem: Problem, S, K, T, R) -> tuple[int, int, int, int]:
    """Validate S (1 <= S <= N), K >= 1, T >= 1, R >= 1 as ints."""
    _, S = check_participation(problem.N, S)
    K = check_int("K", K, minimum=1)
    T = check_int("T", T, minimum=1)
    R = check_int("R", R, minimum=1)
    return S, K, T, R


def check_x0(problem: Problem, x0) -> np.ndarray:
    """x0=None -> zeros(d); else a finite float array of shape (d,) (a copy)."""
    if x0 is None:
        return np.zeros(problem.d)
    return check_finite_array("x0", x0, shape=(problem.d,)).copy()


def check_c0(problem: Problem, c0) -> np.ndarray | None:
    """c0=None passes through; else a finite float array of shape (N, d) (a copy)."""
    if c0 is None:
        return None
    return check_finite_array("c0", c0, shape=(problem.N, problem.d)).copy()


def seed_of(rng):
    """The int seed if ``rng`` is one (recorded in ``meta``), else None."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return int(rng)
    return None


def split_streams(rng) -> tuple[np.random.Generator, np.random.Generator]:
    """Two independent child generators (sampling stream, oracle stream) of ``rng``.

    Using separate streams makes the client samples of a given seed identical across
    algorithms (common random numbers: FedAvg and SCAFFOLD with the same seed and S see the
    same S_r), independently of how many oracle draws each algorithm makes.
    """
    rng = check_rng(rng)
    sampling, oracle = rng.spawn(2)
    return sampling, oracle


def call_oracle(oracle, y: np.ndarray, rng: np.random.Generator, clients) -> np.ndarray:
    """One oracle call on the batch ``y`` (..., M, d); returns a writable float64 array of the
    same shape (the algorithms update it in place). A wrong shape raises InputError('oracle')."""
    g = oracle(y, rng, clients)
    if not isinstance(g, np.ndarray) or g.dtype != np.float64 or not g.flags.writeable:
        g = np.array(g, dtype=np.float64)
    if g.shape != y.shape:
        raise InputError("oracle", f"returned shape {g.shape} for a batch of points shaped {y.shape}")
    return g
