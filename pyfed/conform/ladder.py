"""The ladder: small rational quadratic instances, from one client to partial participation with
noise, on which ``pyfed conform`` runs an implementation.

Every federated rung runs T = 4 rounds: the first :data:`BRANCH_ROUNDS` rounds branch over every
client subset (each with its exact probability C(N, S)^-1), the later rounds continue each of
those paths with one subset, chosen so that every subset occurs in every round across the paths
(:func:`path_plan`). So every round-dependent mistake (a schedule from round 3, a state that goes
stale after two rounds) meets every subset. Data are dyadic rationals (A_i entries in quarters
and eighths, b_i in halves), so pyfed's inputs are exact floats and the exact law stays small.
The step sizes differ between rungs (1/8, 1/4, 1/16, 3/32), the record counts (2, 5, 3, 4) sum
to no constant of the algorithm, the clients' Hessians are not diagonal and not aligned with the
start point (the paths are genuinely two-dimensional; one rung is three-dimensional), and S < N
is run with every subset size S = 1, 2, 3 of N = 4. The federated rungs (FedAvg, FedProx,
SCAFFOLD):

1. ``one client``: N = S = 1, K = 1, d = 1, eta_l = 1/8;
2. ``two clients, K = 1``: N = S = 2, d = 2, eta_l = 1/4, counts (2, 5);
3. ``two clients, K = 3``: eta_l = 1/16;
4. ``S = 1 of N = 4``, 5. ``S = 2 of N = 4``, 6. ``S = 3 of N = 4``: K = 2, every subset;
7. ``global step``: S = 2 of N = 4 with eta_g = 3/2 (or the declared eta_g);
8. ``d = 3``: S = 2 of N = 3, K = 2 in three dimensions;
9. ``noise``: S = 2 of N = 3, K = 2, pyfed's oracle noise (+-1/4 per coordinate, sigma^2 = 1/8),
   matched draws on every path, and the law test where the draws cannot be matched.

The adaptive server optimisers (FedAdam, FedYogi, FedAdagrad) run rungs 1, 2, 5 and 9 with the
server learning rate eta = 1/2, beta_1 = 1/2, beta_2 = 3/4, tau = 1/16 and the initial state
m_{-1} = 0, v_{-1} = tau^2 (Reddi et al., Algorithm 2).

SCAFFOLD starts from client controls that are neither zero nor gradients at x_0 (their mean is
then c^0), so an implementation that ignores or rebuilds them is seen at initialisation. Local SGD
has its own rungs (one worker; two workers synchronising every step; minibatches of b = 2; three
components), T = 4 steps each with a step-size schedule eta_t; its randomness is the component
draws, enumerated with exact probability n^-(workers b) per step for the first two steps.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from fractions import Fraction
from math import comb

import numpy as np

from ..errors import InputError
from ..problems.quadratic import QuadraticProblem
from ..sampling import inclusion_probability
from .law import ADAPTIVE, Spec

__all__ = ["Rung", "LocalSGDRung", "ladder", "local_sgd_ladder", "subsets", "draw_combinations", "path_plan",
           "BRANCH_ROUNDS", "ROUNDS"]

Q = Fraction

#: Rounds of every federated rung, and time steps of every Local SGD rung.
ROUNDS = 4
#: Rounds (time steps) that branch over every subset (every draw); later ones continue each path.
BRANCH_ROUNDS = 2

# client data (dyadic; symmetric positive definite, not diagonal), the first N of them are used
_A = [[[1, Q(1, 4)], [Q(1, 4), Q(1, 2)]],
      [[Q(1, 2), Q(1, 4)], [Q(1, 4), 2]],
      [[Q(3, 2), Q(-1, 4)], [Q(-1, 4), 1]],
      [[Q(3, 4), Q(1, 2)], [Q(1, 2), Q(5, 4)]]]
_B = [[1, Q(-1, 2)], [-1, 1], [Q(1, 2), Q(3, 2)], [Q(-3, 2), Q(1, 4)]]
_A3 = [[[1, Q(1, 4), 0], [Q(1, 4), Q(1, 2), Q(1, 8)], [0, Q(1, 8), Q(3, 4)]],
       [[Q(1, 2), 0, Q(1, 4)], [0, 2, Q(-1, 4)], [Q(1, 4), Q(-1, 4), 1]],
       [[Q(3, 2), Q(-1, 4), Q(1, 8)], [Q(-1, 4), 1, 0], [Q(1, 8), 0, Q(1, 2)]]]
_B3 = [[1, Q(-1, 2), Q(1, 2)], [-1, 1, 0], [Q(1, 2), Q(3, 2), -1]]
_C0 = [[Q(1, 2), Q(1, 4)], [Q(-1, 4), Q(3, 4)], [Q(1, 4), Q(-1, 2)], [Q(-1, 2), Q(-1, 4)]]
_C03 = [[Q(1, 2), Q(1, 4), 0], [Q(-1, 4), Q(3, 4), Q(1, 2)], [Q(1, 4), Q(-1, 2), Q(-1, 4)]]
_COUNTS = (2, 5, 3, 4)


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
        SCAFFOLD's initial client controls (unused by the other algorithms).
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
        out = {"N": s.N, "S": s.S, "K": s.K, "d": s.d, "T": s.T, "rounds branching over every subset": BRANCH_ROUNDS,
               "eta_l": str(s.eta_l), "eta_g": str(s.eta_g), "sigma^2": str(self.sigma_sq), "counts": list(s.counts)}
        if s.mu is not None:
            out["mu"] = str(s.mu)
        if s.adaptive:
            out.update(eta=str(s.eta_g), beta_1=str(s.beta_1), beta_2=str(s.beta_2), tau=str(s.tau))
            del out["eta_g"]
        return out


def _problem(N: int, d: int) -> QuadraticProblem:
    if d == 1:
        A, b = [[[Q(1)]]][:N], [[Q(1)]][:N]
    elif d == 2:
        A, b = _A[:N], _B[:N]
    else:
        A, b = _A3[:N], _B3[:N]
    return QuadraticProblem(np.array(A, dtype=object), np.array(b, dtype=object), name=f"conform-N{N}-d{d}")


def _rung(name, description, algorithm, option, mode, *, N, S, K, d, eta_l, eta_g=Q(1), scale=Q(0), mu=None,
          adaptive=None) -> Rung:
    counts = _COUNTS[:N] if N > 1 else (2,)
    spec = Spec(algorithm=algorithm, option=option, mode=mode, N=N, S=S, K=K, d=d, T=ROUNDS, eta_l=Q(eta_l),
                eta_g=Q(eta_g), mu=mu, counts=tuple(counts), scale=Q(scale), **(adaptive or {}))
    if d == 1:
        x0, c0 = (Q(2),), ((Q(1, 2),),)
    elif d == 2:
        x0, c0 = (Q(2), Q(-1)), tuple(tuple(r) for r in _C0[:N])
    else:
        x0, c0 = (Q(2), Q(-1), Q(1, 2)), tuple(tuple(r) for r in _C03[:N])
    return Rung(name, description, spec, _problem(N, d), x0, c0)


#: The adaptive optimisers' server parameters on every rung: eta (the server learning rate, kept
#: in Spec.eta_g), beta_1, beta_2, tau.
ADAPTIVE_PARAMETERS = {"eta_g": Q(1, 2), "adaptive": {"beta_1": Q(1, 2), "beta_2": Q(3, 4), "tau": Q(1, 16)}}


def ladder(algorithm: str, option: str | None = None, mode: str | None = None, *, eta_g=None) -> list[Rung]:
    """The federated rungs of ``algorithm`` (module docstring); ``eta_g`` (a declared global step
    size) replaces every rung's eta_g (the ``global step`` rung then checks the declared one)."""
    if algorithm not in ("scaffold", "fedavg", "fedprox") + ADAPTIVE:
        raise InputError("--algorithm", f"no federated ladder for {algorithm!r}")
    mu = Q(1, 2) if algorithm == "fedprox" else None
    if algorithm in ADAPTIVE:
        kw = dict(algorithm=algorithm, option=None, mode=None, **ADAPTIVE_PARAMETERS)
        return [
            _rung("one client", "N = S = 1, K = 1, d = 1, eta_l = 1/8", N=1, S=1, K=1, d=1, eta_l=Q(1, 8), **kw),
            _rung("two clients, K = 1", "N = S = 2, K = 1, d = 2, eta_l = 1/4", N=2, S=2, K=1, d=2, eta_l=Q(1, 4),
                  **kw),
            _rung("S = 2 of N = 4", "K = 2, eta_l = 3/32, every subset", N=4, S=2, K=2, d=2, eta_l=Q(3, 32), **kw),
            _rung("noise", "S = 2 of N = 3, K = 2, eta_l = 1/8, oracle noise +-1/4 per coordinate (sigma^2 = 1/8)",
                  N=3, S=2, K=2, d=2, eta_l=Q(1, 8), scale=Q(1, 4), **kw),
        ]
    kw = dict(algorithm=algorithm, option=option, mode=mode, mu=mu)
    g = Q(3, 2) if eta_g is None else Q(eta_g)
    base = Q(1) if eta_g is None else Q(eta_g)
    out = [
        _rung("one client", "N = S = 1, K = 1, d = 1, eta_l = 1/8", N=1, S=1, K=1, d=1, eta_l=Q(1, 8), **kw),
        _rung("two clients, K = 1", "N = S = 2, K = 1, d = 2, eta_l = 1/4, counts (2, 5)", N=2, S=2, K=1, d=2,
              eta_l=Q(1, 4), **kw),
        _rung("two clients, K = 3", "N = S = 2, K = 3, eta_l = 1/16", N=2, S=2, K=3, d=2, eta_l=Q(1, 16), **kw),
        _rung("S = 1 of N = 4", "K = 2, eta_l = 1/8, counts (2, 5, 3, 4), every subset", N=4, S=1, K=2, d=2,
              eta_l=Q(1, 8), **kw),
        _rung("S = 2 of N = 4", "K = 2, eta_l = 3/32, every subset", N=4, S=2, K=2, d=2, eta_l=Q(3, 32), **kw),
        _rung("S = 3 of N = 4", "K = 2, eta_l = 1/8, every subset", N=4, S=3, K=2, d=2, eta_l=Q(1, 8), **kw),
        _rung("global step", f"S = 2 of N = 4, K = 2, eta_l = 1/8, eta_g = {g}" + (" (declared)" if eta_g is not None
                                                                                   else ""),
              N=4, S=2, K=2, d=2, eta_l=Q(1, 8), eta_g=g, **kw),
        _rung("d = 3", "S = 2 of N = 3, K = 2, d = 3, eta_l = 1/8", N=3, S=2, K=2, d=3, eta_l=Q(1, 8), **kw),
        _rung("noise", "S = 2 of N = 3, K = 2, eta_l = 1/8, oracle noise +-1/4 per coordinate (sigma^2 = 1/8), "
                       "pyfed's draws", N=3, S=2, K=2, d=2, eta_l=Q(1, 8), scale=Q(1, 4), **kw),
    ]
    if base != 1:
        out = [r if r.name == "global step" else replace(r, spec=replace(r.spec, eta_g=base),
                                                            description=r.description + f", eta_g = {base}")
               for r in out]
    return out


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


def path_plan(options: int, rounds: int, branch: int = BRANCH_ROUNDS) -> list[tuple[int, ...]]:
    """The sampling paths of a rung: sequences of option indices (subsets or draws), one per round.

    The first ``branch`` rounds take every combination (``options ** branch`` paths, in
    lexicographic order); round r > branch continues path p with option (p + r) mod ``options``,
    so every option occurs in every round across the paths (when there are at least ``options``
    paths) and the paths stay distinct. Returns the list of paths (tuples of length ``rounds``)."""
    heads = list(itertools.product(range(options), repeat=min(branch, rounds)))
    out = []
    for p, head in enumerate(heads):
        tail = tuple((p + r) % options for r in range(len(head) + 1, rounds + 1))
        out.append(tuple(head) + tail)
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
                "steps branching over every draw": BRANCH_ROUNDS,
                "eta": [str(e) for e in self.eta], "sync_times": list(self.sync_times)}


def local_sgd_ladder() -> list[LocalSGDRung]:
    """The Local SGD rungs (module docstring), T = 4 steps each, step-size schedules."""
    p1, p2, p3 = _problem(1, 1), _problem(2, 2), _problem(3, 2)
    x0 = (Q(2), Q(-1))
    return [
        LocalSGDRung("one worker", "n = 1, one worker, b = 1, d = 1, eta = (1/4, 1/4, 1/8, 1/8), sync at 2 and 4", p1,
                     1, 1, (Q(1, 4), Q(1, 4), Q(1, 8), Q(1, 8)), (2, 4), (Q(2),)),
        LocalSGDRung("two workers, sync every step", "n = 2, b = 1, eta = (1/4, 1/8, 1/8, 1/16), sync at 1..4", p2, 2,
                     1, (Q(1, 4), Q(1, 8), Q(1, 8), Q(1, 16)), (1, 2, 3, 4), x0),
        LocalSGDRung("minibatch b = 2", "n = 2, two workers, b = 2, eta = 1/4, sync at 2 and 4", p2, 2, 2,
                     (Q(1, 4),) * 4, (2, 4), x0),
        LocalSGDRung("step-size schedule", "n = 3, two workers, b = 1, eta = (1/4, 1/8, 3/32, 1/16), sync at 3 and 4",
                     p3, 2, 1, (Q(1, 4), Q(1, 8), Q(3, 32), Q(1, 16)), (3, 4), x0),
    ]


def draw_combinations(n: int, workers: int, b: int) -> list[tuple[np.ndarray, Fraction]]:
    """Every array of component draws (workers, b) in {0..n-1} with its probability n^-(workers b)
    (independent uniform draws with replacement, seed 002)."""
    p = Fraction(1, n ** (workers * b))
    return [(np.array(c, dtype=np.int64).reshape(workers, b), p)
            for c in itertools.product(range(n), repeat=workers * b)]
