"""The ladder: small rational quadratic instances, from one client to partial participation with
noise, on which ``pyfed conform`` runs an implementation.

Every rung runs T = 2 rounds. Its data are dyadic rationals (A_i entries in quarters, b_i in
halves, eta_l = 1/8), so pyfed's inputs are exact floats and the exact law stays small. The rungs
of a federated algorithm (FedAvg, FedProx, SCAFFOLD):

1. ``one client``: N = S = 1, K = 1, d = 1;
2. ``two clients, K = 1``: N = S = 2, d = 2, unequal record counts (1, 3);
3. ``two clients, K = 3``;
4. ``S = 2 of N = 3``: K = 2, every subset of every round (3^2 paths, probability 1/9 each);
5. ``S = 1 of N = 3``: K = 2, every subset (9 paths);
6. ``global step``: as 5 with eta_g = 2;
7. ``noise``: as 5 with pyfed's oracle noise (+-1/4 per coordinate, sigma^2 = 1/8), matched
   draws on every path, and the law test where the draws cannot be matched.

SCAFFOLD starts from client controls that are neither zero nor gradients at x_0 (their mean is
then c^0), so an implementation that ignores or rebuilds them is seen at initialisation. Local SGD
has its own rungs (one worker; two workers synchronising every step; minibatches of b = 2 with
one local step between synchronisations; three components with a step-size schedule): its
randomness is the component draws, and every combination of draws is enumerated with its exact
probability n^-(workers b) per step.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np

from ..errors import InputError
from ..problems.quadratic import QuadraticProblem
from ..sampling import inclusion_probability
from .law import Spec

__all__ = ["Rung", "LocalSGDRung", "ladder", "local_sgd_ladder", "subsets", "draw_combinations"]

Q = Fraction

# client data (dyadic), the first N of them are used
_A = [[[1, 0], [0, Q(1, 2)]],
      [[Q(1, 2), Q(1, 4)], [Q(1, 4), 2]],
      [[Q(3, 2), Q(-1, 4)], [Q(-1, 4), 1]]]
_B = [[1, Q(-1, 2)], [-1, 1], [Q(1, 2), Q(3, 2)]]
_C0 = [[Q(1, 2), Q(1, 4)], [Q(-1, 4), Q(3, 4)], [Q(1, 4), Q(-1, 2)]]
_COUNTS = (1, 3, 4)


@dataclass(frozen=True)
class Rung:
    """One federated rung: ``spec`` (parameters), the clients, the start point and controls.

    Attributes
    ----------
    name, description : str
    spec : Spec
    problem : QuadraticProblem
        Rational clients (``A_exact``, ``b_exact``).
    x0 : tuple of Fraction (d,)
    c0 : tuple of tuples (N, d)
        SCAFFOLD's initial client controls (unused by FedAvg and FedProx).
    """

    name: str
    description: str
    spec: Spec
    problem: QuadraticProblem
    x0: tuple
    c0: tuple

    @property
    def sigma_sq(self) -> Fraction:
        """sigma^2 = d s^2 of the rung's oracle noise."""
        return self.spec.d * self.spec.scale ** 2

    def parameters(self) -> dict:
        s = self.spec
        out = {"N": s.N, "S": s.S, "K": s.K, "d": s.d, "T": s.T, "eta_l": str(s.eta_l), "eta_g": str(s.eta_g),
               "sigma^2": str(self.sigma_sq), "counts": list(s.counts)}
        if s.mu is not None:
            out["mu"] = str(s.mu)
        return out


def _problem(N: int, d: int) -> QuadraticProblem:
    if d == 1:
        A = [[[Q(1)]]][:N]
        b = [[Q(1)]][:N]
    else:
        A, b = _A[:N], _B[:N]
    return QuadraticProblem(np.array(A, dtype=object), np.array(b, dtype=object), name=f"conform-N{N}-d{d}")


def _rung(name, description, algorithm, option, mode, *, N, S, K, d, eta_g=Q(1), scale=Q(0), mu=None) -> Rung:
    counts = _COUNTS[:N] if N > 1 else (2,)
    spec = Spec(algorithm=algorithm, option=option, mode=mode, N=N, S=S, K=K, d=d, T=2, eta_l=Q(1, 8),
                eta_g=Q(eta_g), mu=mu, counts=tuple(counts), scale=Q(scale))
    x0 = (Q(2),) if d == 1 else (Q(2), Q(-1))
    c0 = ((Q(1, 2),),) if d == 1 else tuple(tuple(r) for r in _C0[:N])
    return Rung(name, description, spec, _problem(N, d), x0, c0)


def ladder(algorithm: str, option: str | None = None, mode: str | None = None) -> list[Rung]:
    """The federated rungs of ``algorithm`` ("scaffold", "fedavg", "fedprox") (module docstring)."""
    if algorithm not in ("scaffold", "fedavg", "fedprox"):
        raise InputError("--algorithm", f"no federated ladder for {algorithm!r}")
    mu = Q(1, 2) if algorithm == "fedprox" else None
    kw = dict(algorithm=algorithm, option=option, mode=mode, mu=mu)
    return [
        _rung("one client", "N = S = 1, K = 1, d = 1", N=1, S=1, K=1, d=1, **kw),
        _rung("two clients, K = 1", "N = S = 2, K = 1, d = 2, counts (1, 3)", N=2, S=2, K=1, d=2, **kw),
        _rung("two clients, K = 3", "N = S = 2, K = 3", N=2, S=2, K=3, d=2, **kw),
        _rung("S = 2 of N = 3", "K = 2, every subset of every round", N=3, S=2, K=2, d=2, **kw),
        _rung("S = 1 of N = 3", "K = 2, every subset of every round", N=3, S=1, K=2, d=2, **kw),
        _rung("global step", "S = 2 of N = 3, K = 2, eta_g = 2", N=3, S=2, K=2, d=2, eta_g=2, **kw),
        _rung("noise", "S = 2 of N = 3, K = 2, oracle noise +-1/4 per coordinate (sigma^2 = 1/8), pyfed's draws",
              N=3, S=2, K=2, d=2, scale=Q(1, 4), **kw),
    ]


def subsets(N: int, S: int) -> list[tuple[tuple, Fraction]]:
    """Every S-subset of the N clients (ascending tuples, lexicographic) with its probability
    C(N, S)^-1 under uniform fixed-size sampling (seed 002). Each client's inclusion probability
    sums to S/N (:func:`pyfed.sampling.inclusion_probability`), checked here."""
    p = Fraction(1, comb(N, S))
    out = [(B, p) for B in itertools.combinations(range(N), S)]
    incl = Fraction(sum(1 for B, _ in out if 0 in B), len(out))
    if incl != inclusion_probability(N, S):  # pragma: no cover - an identity of uniform sampling
        raise AssertionError("subset enumeration disagrees with pyfed.sampling")
    return out


# ----------------------------------------------------------------------------- Local SGD

@dataclass(frozen=True)
class LocalSGDRung:
    """A Local SGD rung: n components (a QuadraticProblem whose N clients are the f_j), workers,
    minibatch b, step sizes eta_t (T,) and synchronisation times."""

    name: str
    description: str
    problem: QuadraticProblem
    workers: int
    b: int
    eta: tuple
    sync_times: tuple
    x0: tuple

    @property
    def T(self) -> int:
        return int(self.sync_times[-1])

    def parameters(self) -> dict:
        return {"n": self.problem.N, "workers": self.workers, "b": self.b, "d": self.problem.d, "T": self.T,
                "eta": [str(e) for e in self.eta], "sync_times": list(self.sync_times)}


def local_sgd_ladder() -> list[LocalSGDRung]:
    """The Local SGD rungs (module docstring), T = 2 steps each."""
    p1, p2, p3 = _problem(1, 1), _problem(2, 2), _problem(3, 2)
    x0 = (Q(2), Q(-1))
    return [
        LocalSGDRung("one worker", "n = 1, one worker, b = 1, d = 1, sync at 2", p1, 1, 1, (Q(1, 4), Q(1, 4)), (2,), (Q(2),)),
        LocalSGDRung("two workers, sync every step", "n = 2, b = 1, sync at 1 and 2", p2, 2, 1, (Q(1, 4), Q(1, 4)),
                     (1, 2), x0),
        LocalSGDRung("minibatch b = 2", "n = 2, two workers, b = 2, sync at 2 only", p2, 2, 2, (Q(1, 4), Q(1, 4)),
                     (2,), x0),
        LocalSGDRung("step-size schedule", "n = 3, two workers, b = 1, eta = (1/4, 1/8), sync at 2", p3, 2, 1,
                     (Q(1, 4), Q(1, 8)), (2,), x0),
    ]


def draw_combinations(n: int, workers: int, b: int) -> list[tuple[np.ndarray, Fraction]]:
    """Every array of component draws (workers, b) in {0..n-1} with its probability n^-(workers b)
    (independent uniform draws with replacement, seed 002)."""
    p = Fraction(1, n ** (workers * b))
    return [(np.array(c, dtype=np.int64).reshape(workers, b), p)
            for c in itertools.product(range(n), repeat=workers * b)]
