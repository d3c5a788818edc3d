"""The exact law of one round: the algorithm's equations replayed in exact rationals.

For rational quadratic clients f_i(y) = 1/2 y^T A_i y - b_i^T y and the oracle of
:mod:`pyfed.conform.protocol` (gradient plus Rademacher noise s * eps), every quantity of a round
of FedAvg, FedProx or SCAFFOLD is, given the round's start state and sampled set, an affine
function of the noise signs eps. :func:`replay_round` computes those affine forms exactly in
``fractions.Fraction``: an object array of shape (..., 1 + m) holds the constant in column 0
and the coefficients of the m noise signs in columns 1..m. Then

* the value on the draws an implementation received is ``value(form, eps)`` (exact);
* the law: E[v] = column 0 and Cov(v) = L L^T with L = columns 1..m (the signs are independent,
  mean 0, variance 1), both exact.

Noise columns: client i's j-th call (j = 0..K-1 the local steps, j = K option I's fresh sample
at x) has the d columns 1 + (i J + j) d + (0..d-1), J = K + 1; there are none when s = 0.

The equations are seed 002's (FedAvg both modes, SCAFFOLD options I and II, Local SGD; Algorithm
1 of Karimireddy et al.), FedProx's local step is :func:`pyfed.algorithms.fedprox`'s, and the
Lean procedures of ``lean/Pyfed/Algorithms/*.lean`` define the same maps (:data:`EQUATIONS`
names them for the diagnosis). The adaptive server optimisers (FedAdam, FedYogi, FedAdagrad:
Reddi et al., Adaptive Federated Optimization, ICLR 2021, Algorithm 2) share FedAvg's local
steps; :func:`replay_round` gives their pseudo-gradient Delta = S^-1 sum_{i in S_r} (y_{i,K} - x)
and :mod:`pyfed.conform.adaptive` the server step from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

__all__ = ["Spec", "ExpectedRound", "replay_round", "replay_local_sgd_step", "client_path", "value", "mean",
           "covariance", "exact_vector", "EQUATIONS", "equation", "ADAPTIVE", "FEDERATED"]

#: The adaptive server optimisers of Reddi et al., Algorithm 2 (command-line spelling).
ADAPTIVE = ("fedadam", "fedyogi", "fedadagrad")
#: The algorithms with a federated round (every one but Local SGD).
FEDERATED = ("scaffold", "fedavg", "fedprox") + ADAPTIVE
_REDDI = "Reddi et al., Adaptive Federated Optimization, ICLR 2021, Algorithm 2"

_ALG1 = "Karimireddy et al., SCAFFOLD, ICML 2020, Algorithm 1"
_SCAF_LEAN = "lean/Pyfed/Algorithms/Scaffold.lean"
_FEDAVG_LEAN = "lean/Pyfed/Algorithms/FedAvg.lean"
_FEDPROX_LEAN = "lean/Pyfed/Algorithms/FedProx.lean"

#: The equation each checked quantity must satisfy, with where it is defined:
#: ``{(algorithm, quantity): (equation, source)}``; ``algorithm`` "*" applies to every one.
EQUATIONS = {
    ("scaffold", "init"): (
        "c^0 = N^-1 sum_i c_i^0, with the given client controls c_i^0 and x_0",
        f"seed 002 (SCAFFOLD inputs: 'Set c^0 = N^-1 sum_i c_i^0'); {_ALG1} (server input); Lean "
        f"SCAFFOLD.scaffold, case 0 ({_SCAF_LEAN})"),
    ("scaffold", "calls"): (
        "each selected client calls g_i K times along its local path (option I: once more, at x)",
        f"seed 002 (SCAFFOLD local steps and option I); {_ALG1}; Lean SCAFFOLD.localPath / SCAFFOLD.newControl"),
    ("scaffold", "local"): (
        "y_{i,k} = y_{i,k-1} - eta_l (g_i(y_{i,k-1}) - c_i + c), y_{i,0} = x",
        f"seed 002 (SCAFFOLD local update); {_ALG1} (client update); Lean SCAFFOLD.localPath with "
        f"corr = c - c_i ({_SCAF_LEAN})"),
    ("scaffold", "control I"): (
        "option I: c_i+ = g_i(x), a fresh oracle sample at the round-start model x",
        f"seed 002 (SCAFFOLD, Option I); {_ALG1} (option I); Lean SCAFFOLD.newControl, optionI ({_SCAF_LEAN})"),
    ("scaffold", "control II"): (
        "option II: c_i+ = c_i - c + (K eta_l)^-1 (x - y_{i,K})",
        f"seed 002 (SCAFFOLD, Option II); {_ALG1} (option II); Lean SCAFFOLD.optionTwoControl ({_SCAF_LEAN})"),
    ("scaffold", "unselected control"): (
        "unselected clients retain their controls: c_i^r = c_i^{r-1} for i not in S_r",
        f"seed 002 (SCAFFOLD); Lean SCAFFOLD.scaffoldRound, field ci ({_SCAF_LEAN})"),
    ("scaffold", "model"): (
        "x_r = x + eta_g Delta x, Delta x = S^-1 sum_{i in S_r} (y_{i,K} - x)",
        f"seed 002 (SCAFFOLD server update); {_ALG1} (server update); Lean SCAFFOLD.scaffoldRound, field x "
        f"({_SCAF_LEAN})"),
    ("scaffold", "server control"): (
        "c^r = c^{r-1} + (S/N) Delta c, Delta c = S^-1 sum_{i in S_r} (c_i+ - c_i)",
        f"seed 002 (SCAFFOLD server update); {_ALG1} (server update); Lean SCAFFOLD.scaffoldRound, field c "
        f"({_SCAF_LEAN})"),
    ("fedavg", "calls"): (
        "each selected client calls g_i K times along its local path",
        f"seed 002 (FedAvg local steps); Lean SCAFFOLD.localPath with corr = 0 ({_FEDAVG_LEAN})"),
    ("fedavg", "local"): (
        "y_{i,k} = y_{i,k-1} - eta_l g_i(y_{i,k-1}), y_{i,0} = x_{r-1}",
        f"seed 002 (FedAvg local steps); McMahan et al. 2017, Algorithm 1 (ClientUpdate); Lean "
        f"FedAvgProcedure.fedAvgRound via SCAFFOLD.localPath ({_FEDAVG_LEAN})"),
    ("fedavg", "model uniform"): (
        "uniform-client mode: x_r = x_{r-1} + (eta_g/S) sum_{i in S_r} (y_{i,K} - x_{r-1})",
        f"seed 002 (FedAvg, uniform-client analysis mode); Lean FedAvgProcedure.fedAvgRound, uniform ({_FEDAVG_LEAN})"),
    ("fedavg", "model weighted"): (
        "count-weighted mode: x_r = x_{r-1} + eta_g sum_{i in S_r} (n_i/n) (y_{i,K} - x_{r-1}), n = sum_i n_i",
        f"seed 002 (FedAvg, count-weighted deployment mode); McMahan et al. 2017, Algorithm 1; Lean "
        f"FedAvgProcedure.fedAvgRound, weighted ({_FEDAVG_LEAN})"),
    ("fedprox", "calls"): (
        "each selected client calls g_i K times along its local path",
        "pyfed.algorithms.fedprox (local SGD on the proximal objective); Li et al., MLSys 2020, Algorithm 2; Lean "
        f"FedProxProcedure.proxPath ({_FEDPROX_LEAN})"),
    ("fedprox", "local"): (
        "y_{i,k} = y_{i,k-1} - eta_l (g_i(y_{i,k-1}) + mu (y_{i,k-1} - x_{r-1})), y_{i,0} = x_{r-1}",
        "pyfed.algorithms.fedprox; Li et al., Federated Optimization in Heterogeneous Networks, MLSys 2020, "
        f"Algorithm 2 and the proximal objective h_k; Lean FedProxProcedure.proxPath ({_FEDPROX_LEAN})"),
    ("fedprox", "model uniform"): (
        "x_r = x_{r-1} + (eta_g/S) sum_{i in S_r} (y_{i,K} - x_{r-1}) (FedAvg's uniform-client aggregation)",
        f"pyfed.algorithms.fedprox; seed 002 (FedAvg, uniform-client mode); Lean FedProxProcedure.fedProxRound "
        f"({_FEDPROX_LEAN})"),
    ("fedprox", "model weighted"): (
        "x_r = x_{r-1} + eta_g sum_{i in S_r} (n_i/n) (y_{i,K} - x_{r-1}) (FedAvg's count-weighted aggregation)",
        "seed 002 (FedAvg, count-weighted deployment mode), with FedProx's local steps"),
    ("scaffold", "end point"): (
        "y_{i,K}, the end point of the K corrected local steps y_{i,k} = y_{i,k-1} - eta_l (g_i(y_{i,k-1}) - c_i + c)",
        f"seed 002 (SCAFFOLD local update); {_ALG1} (client update); Lean SCAFFOLD.localPath ({_SCAF_LEAN})"),
    ("fedavg", "end point"): (
        "y_{i,K}, the end point of the K local steps y_{i,k} = y_{i,k-1} - eta_l g_i(y_{i,k-1}), y_{i,0} = x_{r-1}",
        f"seed 002 (FedAvg local steps); McMahan et al. 2017, Algorithm 1 (ClientUpdate); Lean SCAFFOLD.localPath "
        f"({_FEDAVG_LEAN})"),
    ("fedprox", "end point"): (
        "y_{i,K}, the end point of the K proximal local steps y_{i,k} = y_{i,k-1} - eta_l (g_i(y_{i,k-1}) + mu (y_{i,k-1} "
        "- x_{r-1}))",
        "pyfed.algorithms.fedprox; Li et al., MLSys 2020, Algorithm 2"),
    ("adaptive", "calls"): (
        "each selected client calls g_i K times along its local path",
        f"{_REDDI} (client update: K steps of SGD)"),
    ("adaptive", "local"): (
        "y_{i,k} = y_{i,k-1} - eta_l g_i(y_{i,k-1}), y_{i,0} = x_t",
        f"{_REDDI} (client update)"),
    ("adaptive", "end point"): (
        "y_{i,K}, the end point of the K local SGD steps from x_t",
        f"{_REDDI} (client update; Delta_i = y_{{i,K}} - x_t)"),
    ("fedadam", "m"): (
        "m_t = beta_1 m_{t-1} + (1 - beta_1) Delta_t, Delta_t = S^-1 sum_{i in S_t} (y_{i,K} - x_t), m_{-1} = 0",
        f"{_REDDI} (server update, all three optimisers)"),
    ("fedadam", "v"): (
        "FedAdam: v_t = beta_2 v_{t-1} + (1 - beta_2) Delta_t^2 (coordinatewise), v_{-1} >= tau^2",
        f"{_REDDI} (FEDADAM)"),
    ("fedyogi", "v"): (
        "FedYogi: v_t = v_{t-1} - (1 - beta_2) Delta_t^2 sign(v_{t-1} - Delta_t^2) (coordinatewise), v_{-1} >= tau^2",
        f"{_REDDI} (FEDYOGI)"),
    ("fedadagrad", "v"): (
        "FedAdagrad: v_t = v_{t-1} + Delta_t^2 (coordinatewise), v_{-1} >= tau^2",
        f"{_REDDI} (FEDADAGRAD)"),
    ("adaptive", "model"): (
        "x_{t+1} = x_t + eta m_t / (sqrt(v_t) + tau) (coordinatewise), eta the server learning rate",
        f"{_REDDI} (server update)"),
    ("adaptive", "init"): (
        "m_{-1} = 0 and v_{-1} >= tau^2 (pyfed gives v_{-1} = tau^2), x_0 the given start point",
        f"{_REDDI} (initialisation)"),
    ("local-sgd", "worker"): (
        "z_{t+1}^k = x_t^k - eta_t b^-1 sum_q grad f_{i_{t,q}^k}(x_t^k); x_{t+1}^k = z_{t+1}^k, or the "
        "workers' average of z_{t+1} when t+1 is a synchronisation time",
        "seed 002 (Local SGD); Stich, Local SGD Converges Fast and Communicates Little, Algorithm 1; Lean "
        "SCAFFOLD.localSGD (lean/Pyfed/Algorithms/LocalSGD.lean)"),
}


def equation(algorithm: str, quantity: str) -> tuple[str, str]:
    """(equation, source) of :data:`EQUATIONS` for ``algorithm`` and ``quantity``; the adaptive
    optimisers share the entries keyed "adaptive" (local steps, model) and FedAdam's for m."""
    if (algorithm, quantity) in EQUATIONS:
        return EQUATIONS[(algorithm, quantity)]
    if algorithm in ADAPTIVE:
        if quantity == "m":
            return EQUATIONS[("fedadam", "m")]
        return EQUATIONS[("adaptive", quantity)]
    raise KeyError((algorithm, quantity))


@dataclass(frozen=True)
class Spec:
    """The parameters of one rung (all exact).

    Attributes
    ----------
    algorithm : str
    option, mode : str | None
    N, S, K, d, T : int
    eta_l, eta_g : Fraction
    mu : Fraction | None
        FedProx proximal weight.
    counts : tuple of int (N,)
        Record counts n_i.
    scale : Fraction
        Noise scale s (each noise coordinate is +-s; sigma^2 = d s^2).
    beta_1, beta_2, tau : Fraction | None
        The adaptive server optimisers' decay rates and adaptivity (Reddi et al., Algorithm 2);
        None for the other algorithms. Their server learning rate eta is ``eta_g``.
    """

    algorithm: str
    option: str | None
    mode: str | None
    N: int
    S: int
    K: int
    d: int
    T: int
    eta_l: Fraction
    eta_g: Fraction
    mu: Fraction | None
    counts: tuple
    scale: Fraction
    beta_1: Fraction | None = None
    beta_2: Fraction | None = None
    tau: Fraction | None = None

    @property
    def adaptive(self) -> bool:
        """FedAdam, FedYogi or FedAdagrad (a server optimiser with state m, v)."""
        return self.algorithm in ADAPTIVE

    @property
    def calls(self) -> int:
        """Oracle calls of a selected client per round: K (K + 1 for SCAFFOLD option I)."""
        return self.K + (1 if self.algorithm == "scaffold" and self.option == "I" else 0)

    @property
    def m(self) -> int:
        """Number of noise columns of the affine forms (0 without noise)."""
        return 0 if self.scale == 0 else self.N * (self.K + 1) * self.d

    def column(self, i: int, j: int) -> int:
        """First column of client i's j-th call's noise."""
        return 1 + (i * (self.K + 1) + j) * self.d


def exact_vector(a) -> np.ndarray:
    """Object array of Fractions of a float array (each float's exact value), same shape."""
    a = np.asarray(a, dtype=np.float64)
    out = np.empty(a.shape, dtype=object)
    for idx, v in np.ndenumerate(a):
        out[idx] = Fraction(float(v))
    return out


def _const(v, m: int) -> np.ndarray:
    v = np.asarray(v, dtype=object)
    out = np.empty(v.shape + (1 + m,), dtype=object)
    out[...] = Fraction(0)
    out[..., 0] = v
    return out


def value(form: np.ndarray, eps) -> np.ndarray:
    """The exact value of an affine form (..., 1 + m) at the noise signs ``eps`` (m,) (Fractions)."""
    if form.shape[-1] == 1:
        return form[..., 0].copy()
    e = np.asarray(eps, dtype=object)
    return form[..., 0] + form[..., 1:].dot(e)


def mean(form: np.ndarray) -> np.ndarray:
    """E[v] of an affine form: column 0."""
    return form[..., 0].copy()


def covariance(form: np.ndarray) -> np.ndarray:
    """Cov(v) (D, D) of a stacked affine form (D, 1 + m): L L^T (independent signs, variance 1)."""
    L = form[:, 1:]
    if L.shape[1] == 0:
        return np.full((form.shape[0], form.shape[0]), Fraction(0), dtype=object)
    return L.dot(L.T)


@dataclass
class ExpectedRound:
    """The exact affine forms of one round (see the module docstring).

    Attributes
    ----------
    x : (d, 1+m) | None
        x_r (None for the adaptive optimisers: their step is not affine, see ``delta``).
    c : (d, 1+m) | None
        SCAFFOLD server control c^r.
    c_clients : (N, d, 1+m) | None
        SCAFFOLD client controls c_i^r.
    points : dict client -> list of (d, 1+m)
        The points of the client's expected oracle calls, in order (y_{i,0..K-1}; option I then x).
    y_end : dict client -> (d, 1+m)
        y_{i,K} of every computed client.
    c_plus : dict client -> (d, 1+m)
        SCAFFOLD c_i+ of every computed client.
    delta : (d, 1+m) | None
        The adaptive optimisers' pseudo-gradient Delta = S^-1 sum_{i in S_r} (y_{i,K} - x).
    """

    x: np.ndarray | None
    c: np.ndarray | None = None
    c_clients: np.ndarray | None = None
    points: dict = field(default_factory=dict)
    y_end: dict = field(default_factory=dict)
    c_plus: dict = field(default_factory=dict)
    delta: np.ndarray | None = None


def _noise_column(g, spec: Spec, i: int, j: int):
    """g (d, 1+m) plus client i's j-th call's noise s * eps (its d columns)."""
    if not spec.m:
        return g
    g = g.copy()
    col = spec.column(i, j)
    for q in range(spec.d):
        g[q, col + q] += spec.scale
    return g


def replay_round(A, b, spec: Spec, x, c, C, sampled, *, every_client: bool = False) -> ExpectedRound:
    """The exact round of ``spec.algorithm`` from the start state (exact Fractions).

    Parameters
    ----------
    A, b : object arrays (N, d, d), (N, d) of Fractions
        The quadratic clients.
    spec : Spec
    x : (d,) Fractions
        x_{r-1}.
    c, C : (d,), (N, d) Fractions | None
        SCAFFOLD's server and client controls at the start of the round.
    sampled : sequence of int
        S_r.
    every_client : bool
        Also compute the paths of unselected clients (the diagnosis' alternatives use them).

    Returns
    -------
    ExpectedRound
    """
    m, K, d = spec.m, spec.K, spec.d
    eta_l, eta_g = spec.eta_l, spec.eta_g
    X = _const(x, m)
    scaf = spec.algorithm == "scaffold"
    out = ExpectedRound(x=None)
    zero = _const(np.zeros(d, dtype=object) + Fraction(0), m)
    for i in (range(spec.N) if every_client else sampled):
        Ai = A[i]
        bi = _const(b[i], m)
        corr = _const(c - C[i], m) if scaf else None
        y = X
        pts = []
        for k in range(K):
            pts.append(y)
            step = _noise_column(Ai.dot(y) - bi, spec, i, k)
            if scaf:
                step = step + corr
            elif spec.algorithm == "fedprox":
                step = step + spec.mu * (y - X)
            y = y - eta_l * step
        out.y_end[i] = y
        if scaf:
            if spec.option == "I":
                pts.append(X)
                out.c_plus[i] = _noise_column(Ai.dot(X) - bi, spec, i, K)
            else:
                out.c_plus[i] = _const(C[i] - c, m) + (X - y) / (K * eta_l)
        out.points[i] = pts
    S = len(sampled)
    delta = sum((out.y_end[i] - X for i in sampled), zero)
    if spec.adaptive:
        out.delta = delta / S
        return out
    if scaf or spec.mode == "uniform":
        out.x = X + (eta_g / S) * delta
    else:
        n = sum(spec.counts)
        out.x = X + eta_g * sum((Fraction(spec.counts[i], n) * (out.y_end[i] - X) for i in sampled), zero)
    if scaf:
        dc = sum((out.c_plus[i] - _const(C[i], m) for i in sampled), zero) / S
        out.c = _const(c, m) + Fraction(S, spec.N) * dc
        cc = _const(C, m)
        for i in sampled:
            cc[i] = out.c_plus[i]
        out.c_clients = cc
    return out


def client_path(A_i, b_i, spec: Spec, x, corr, noise, steps: int, *, eta=None) -> list:
    """One client's exact local path y_0 = x, ..., y_steps (Fractions (d,) each) with given noise.

    ``corr`` (d,) is SCAFFOLD's c - c_i (None otherwise); ``noise[k]`` (d,) the exact noise of the
    k-th step's oracle call (Fractions; len >= steps); ``eta`` the step size (default eta_l).
    FedProx adds mu (y - x). Used to match oracle calls to the algorithm's and by the diagnosis."""
    eta = spec.eta_l if eta is None else eta
    y = np.array(x, dtype=object)
    out = [y]
    for k in range(steps):
        step = A_i.dot(y) - b_i + noise[k]
        if corr is not None:
            step = step + corr
        elif spec.algorithm == "fedprox":
            step = step + spec.mu * (y - x)
        y = y - eta * step
        out.append(y)
    return out


def replay_local_sgd_step(A, b, X, draws, eta: Fraction, sync: bool) -> tuple[np.ndarray, np.ndarray]:
    """One exact step of Local SGD (seed 002): (x_{t+1}, z_{t+1}), both (workers, d) Fractions.

    X (workers, d) Fractions, draws (workers, b) ints, components f_j = 1/2 y^T A_j y - b_j^T y."""
    workers, bsz = np.shape(draws)
    Z = np.empty_like(X)
    for k in range(workers):
        g = sum((A[j].dot(X[k]) - b[j] for j in draws[k]), np.zeros(X.shape[1], dtype=object) + Fraction(0))
        Z[k] = X[k] - eta * g / bsz
    if sync:
        avg = Z.sum(axis=0) / workers
        return np.array([avg for _ in range(workers)], dtype=object).reshape(X.shape), Z
    return Z.copy(), Z
