r"""Round kernels shared by the federated simulators: client-major slot layout and the
closed-form law of a quadratic client's local path (internal module).

Client-major layout
-------------------
A round touches some (replicate, client) pairs: all R*N of them when S = N, or the R*S
sampled ones. :class:`Slots` arranges them *client-major*: a dense (N, R, d) array when S = N
(one batched product ``np.matmul`` of (N, R, d) by the (N, d, d) Hessians per local step), and
the R*S slots sorted by client when S < N (each client's slots a contiguous range: one product
per client and range, no padding). The grouping is computed once per round; no local step
regroups or copies the state.

Closed-form local paths (quadratic clients, Gaussian oracle)
-----------------------------------------------------------
For f_i(y) = 1/2 y^T A_i y - b_i^T y and the oracle g_i(y) = A_i y - b_i + xi, xi ~ N(0, s^2 I)
(:class:`pyfed.oracles.GaussianOracle`, s^2 = sigma^2/d; s = 0 for :class:`ExactOracle`), the K
local steps y_{k+1} = y_k - eta (g_i(y_k) + u), u a correction fixed during the round (SCAFFOLD:
u = c - c_i; FedAvg: u = 0), are, with D_i = I - eta A_i,

    y_{k+1} = D_i y_k + eta (b_i - u) - eta xi_k,
    y_K     = D_i^K y_0 + G_i (b_i - u) + nu_i,   G_i = eta sum_{j<K} D_i^j,
    nu_i    = -eta sum_{k<K} D_i^{K-1-k} xi_k ~ N(0, Sigma_i),  Sigma_i = s^2 eta^2 sum_{j<K} D_i^{2j}

(D_i is symmetric). So one round of a client is one affine map plus ONE Gaussian vector with
the exact covariance of the accumulated local noise: the law of y_K is exactly that of the
step-by-step path (not the same draws). Everything else the algorithms use from the path is an
affine function of y_K given the round start:

* seed-002 option II: c_i^+ = c_i - c + (x - y_K)/(K eta);
* seed-000 Run model: c_i^+ = (1/K) sum_k g_i(y_k) = (x - y_K)/(K eta) - u (sum the step
  equation y_{k+1} - y_k = -eta (g_k + u) over k), the same random variable;

so the *joint* law of (y_K, c_i^+) is the law of y_K pushed through an affine map: no second
noise is needed. Option I's control is a fresh sample at x, independent of the path:
c_i^+ = A_i x - b_i + s z', one more Gaussian. The Run model's K-sample warm start
c_i^0 = (1/K) sum_k g_i(x0) is grad f_i(x0) + (s/sqrt K) z.

Sources: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Algorithm 1 (PDF p. 4),
Appendix E eqs. (18)-(22) (PDF pp. 25-26); seeds 000 and 002.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..oracles import ExactOracle, GaussianOracle
from ..problems.quadratic import QuadraticProblem
from .common import call_oracle

__all__ = ["Slots", "LocalPathLaw", "local_path_law", "client_blocks", "layout_blocks", "CLIENT_BLOCK_ENTRIES"]

#: Target number of float64 entries of one oracle call of the step-by-step path in the
#: client-major layout. Consecutive rows (clients when S = N, sorted slots when S < N) are
#: grouped into blocks of about this size, and a row longer than this (one client's slots in
#: many replicates) is cut into consecutive pieces of replicates; blocks are visited in C order,
#: so an oracle drawing in C order over its batch (GaussianOracle, MinibatchOracle) consumes the
#: same random numbers as one call on the whole batch: results do not depend on this constant
#: (to rounding). It bounds the oracle's temporaries (a minibatch oracle gathers b rows of data
#: per slot) whatever the number of replicates R.
CLIENT_BLOCK_ENTRIES = 1 << 17


def client_blocks(n: int, per_client: int) -> list[slice]:
    """Consecutive slices of range(n) (rows of the layout), each about CLIENT_BLOCK_ENTRIES / per_client long."""
    size = max(1, CLIENT_BLOCK_ENTRIES // max(1, per_client))
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def layout_blocks(lead: tuple, d: int) -> list[tuple]:
    """Consecutive pieces, in C order, of a layout whose per-slot arrays are shaped ``lead + (d,)``
    (``lead`` = (n,) or (n, R)), each holding about CLIENT_BLOCK_ENTRIES entries: index tuples of
    slices (``a[idx]`` keeps every axis). Whole rows are grouped while a row fits in a block
    (:func:`client_blocks`); a longer row of a 2-d ``lead`` is cut into pieces of its second axis
    (replicates), so no block exceeds the budget whatever R is (one slot of d entries at least)."""
    n = int(lead[0])
    per_row = int(np.prod(lead[1:], dtype=np.int64)) * max(1, int(d))
    if len(lead) == 1 or per_row <= CLIENT_BLOCK_ENTRIES:
        return [(b,) for b in client_blocks(n, per_row)]
    m = int(lead[1])
    size = max(1, CLIENT_BLOCK_ENTRIES // (per_row // max(1, m)))
    return [(slice(i, i + 1), slice(a, min(a + size, m))) for i in range(n) for a in range(0, m, size)]


class Slots:
    """The (replicate, client) pairs of one round in a client-major layout.

    Parameters
    ----------
    sel : ndarray of int (R, S) | None
        Clients sampled by each replicate (rows sorted); ``None`` means every client in every
        replicate (S = N).
    N, R : int

    Layouts
    -------
    S = N (``sel`` None): per-slot arrays are dense (N, R, ...), row i client i's slot in
    every replicate. S < N: per-slot arrays are (R*S, ...), the slots sorted by client (stable,
    so by replicate within a client); client i's slots are the contiguous range
    ``bounds[i]:bounds[i+1]``. The sort is done once per round; the closed form does one
    product per client and range, the step-by-step path one oracle call per local step
    (QuadraticProblem computes sorted slots range by range, without regrouping).

    Attributes
    ----------
    shape : tuple
        Leading shape of per-slot arrays: (N, R) or (R*S,).
    clients : ndarray of int, shape ``shape``
        The client of every slot (the oracle's ``clients`` argument; a read-only view when S = N).
    reps : ndarray of int, shape ``shape``
        The replicate of every slot.
    full : bool
        S = N.
    """

    def __init__(self, sel, N: int, R: int):
        self.N, self.R = N, R
        self.full = sel is None
        if self.full:
            self.S = N
            self.shape = (N, R)
            self.reps = np.broadcast_to(np.arange(R)[None, :], (N, R))
            self.clients = np.broadcast_to(np.arange(N)[:, None], (N, R))
            return
        sel = np.asarray(sel)
        self.S = sel.shape[1]
        flat = sel.ravel()  # slot k = r*S + s
        order = np.argsort(flat, kind="stable")  # client-major; within a client by replicate
        self.shape = (flat.size,)
        self.clients = flat[order]
        self.reps = order // self.S
        self._flat = self.clients * R + self.reps  # row of (client, replicate) in C.reshape(N*R, ...)
        self.bounds = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=N))])
        inv = np.empty_like(order)
        inv[order] = np.arange(order.size)
        self.inverse = inv  # sorted position of slot k = r*S + s

    def segments(self):
        """(client, start, stop) of every non-empty client range (S < N)."""
        b = self.bounds
        return [(i, int(b[i]), int(b[i + 1])) for i in range(self.N) if b[i + 1] > b[i]]

    # -- moving data in and out of the layout ------------------------------------------
    def per_replicate(self, a: np.ndarray) -> np.ndarray:
        """(R, ...) -> per slot: the value of each slot's replicate (a view when S = N)."""
        if self.full:
            return np.broadcast_to(a[None], (self.N,) + a.shape)
        return np.take(a, self.reps, axis=0)

    def gather(self, C: np.ndarray) -> np.ndarray:
        """Client-major state C (N, R, ...) -> per slot (C itself when S = N)."""
        if self.full:
            return C
        return np.take(C.reshape((self.N * self.R,) + C.shape[2:]), self._flat, axis=0)

    def scatter(self, C: np.ndarray, V: np.ndarray) -> None:
        """Write per-slot values V into the client-major state C (N, R, ...)."""
        if self.full:
            C[...] = V
        elif C.flags.c_contiguous:  # reshape is a view
            C.reshape((self.N * self.R,) + C.shape[2:])[self._flat] = V
        else:
            C[self.clients, self.reps] = V

    def to_slots(self, V: np.ndarray) -> np.ndarray:
        """Per slot -> (R, S, ...): the slots in replicate order (the order of ``sel``)."""
        if self.full:
            return np.swapaxes(V, 0, 1)
        return np.take(V, self.inverse, axis=0).reshape((self.R, self.S) + V.shape[1:])

    def replicate_sum(self, V: np.ndarray, weights=None) -> np.ndarray:
        """sum over the round's clients of each replicate: per slot (..., d) -> (R, d);
        ``weights`` (N,) multiplies client i's term."""
        if weights is not None:
            w = np.asarray(weights)
            V = V * (w[:, None, None] if self.full else w[self.clients][:, None])
        if self.full:
            return V.sum(axis=0)
        return self.to_slots(V).sum(axis=1)

    def normals(self, rng: np.random.Generator, d: int) -> np.ndarray:
        """Standard normal vectors, one per slot: one ``rng.standard_normal(shape + (d,))`` call,
        i.e. drawn in the client-major order of the slots."""
        return rng.standard_normal(self.shape + (d,))


class LocalPathLaw:
    """Closed-form law of K local steps of every quadratic client (see module docstring).

    Attributes (float64)
    --------------------
    PmIT : (N, d, d)  (D_i^K - I)^T;   GT : (N, d, d)  G_i^T;   Gb : (N, d)  G_i b_i
    LT : (N, d, d) | None  L_i^T with L_i L_i^T = Sigma_i (L_i = Q_i diag(...), from the
        eigendecomposition A_i = Q_i diag(lam) Q_i^T in which all of them are diagonal); None if s = 0
    A : (N, d, d); b : (N, d); scale : float  s = sqrt(sigma^2/d)
    """

    def __init__(self, problem, scale: float, eta: float, K: int):
        A, b = problem.A, problem.b
        # A_i = Q diag(lam) Q^T (symmetric): D_i = Q diag(m) Q^T with m = 1 - eta lam, so every
        # matrix of the law is diagonal in Q: D^K - I, G = eta sum_j D^j, Sigma = s^2 eta^2 sum_j D^2j
        # (the decomposition is computed once per problem: QuadraticProblem.hessian_eigh)
        lam, Q = problem.hessian_eigh()
        m = 1.0 - eta * lam
        geo = np.zeros_like(m)
        geo2 = np.zeros_like(m)
        p = np.ones_like(m)
        for _ in range(K):
            geo += p
            geo2 += p * p
            p = p * m
        QT = np.swapaxes(Q, 1, 2)
        self.A, self.b, self.scale, self.K, self.eta = A, b, float(scale), K, eta
        self._buffers = {}
        self.PmIT = np.ascontiguousarray(np.matmul(Q * (p - 1.0)[:, None, :], QT))  # symmetric
        G = np.matmul(Q * (eta * geo)[:, None, :], QT)
        self.GT = np.ascontiguousarray(G)
        self.Gb = np.einsum("nij,nj->ni", G, b)
        self.LT = None
        if scale:
            # L = Q diag(s eta sqrt(geo2)): L L^T = Sigma; rows of L^T scale the rows of Q^T
            self.LT = np.ascontiguousarray((scale * eta * np.sqrt(geo2))[:, :, None] * QT)
        # stacked for the sorted layout: rows [x | u | z | 1] -> displacement (with / without u)
        noise = [self.LT] if self.LT is not None else []
        one = [self.Gb[:, None, :]]
        self._stack_u = np.ascontiguousarray(np.concatenate([self.PmIT, -self.GT] + noise + one, axis=1))
        self._stack_0 = np.ascontiguousarray(np.concatenate([self.PmIT] + noise + one, axis=1))

    def displacements(self, xr: np.ndarray, corr, slots: Slots, rng) -> np.ndarray:
        """y_{i,K} - x of every slot, in the layout of ``slots``: xr (R, d) the round start of
        each replicate, corr the correction u = c - c_i per slot, or the pair (c per slot, c_i
        per slot) whose difference it is (formed in place), or None (FedAvg). Noise: one
        :meth:`Slots.normals` draw when sigma > 0."""
        d = self.A.shape[1]
        if not slots.full:
            # one product per client on its range: [x | u | z | 1] @ [(D^K - I)^T; -G^T; L^T; (G b)^T]
            stack = self._stack_u if corr is not None else self._stack_0
            W = np.empty(slots.shape + (stack.shape[1],))
            W[:, :d] = np.take(xr, slots.reps, axis=0)  # (a contiguous take, then one copy: faster than out=)
            col = d
            if corr is not None:
                if isinstance(corr, tuple):
                    np.subtract(corr[0], corr[1], out=W[:, col:col + d])
                else:
                    W[:, col:col + d] = corr
                col += d
            if self.LT is not None:
                W[:, col:col + d] = slots.normals(rng, d)
                col += d
            W[:, col] = 1.0
            V = np.empty(slots.shape + (d,))
            for i, a, b in slots.segments():
                np.matmul(W[a:b], stack[i], out=V[a:b])
            return V
        # S = N: dense client-major (N, R, d); three batched products
        V = np.matmul(xr[None], self.PmIT)
        V += self.Gb[:, None, :]
        tmp = self._buffer("tmp", V.shape)
        if corr is not None:
            if isinstance(corr, tuple):
                corr = np.subtract(corr[0], corr[1], out=self._buffer("corr", V.shape))
            V -= np.matmul(corr, self.GT, out=tmp)
        if self.LT is not None:
            Z = self._buffer("z", V.shape)
            rng.standard_normal(out=Z)  # the draw of Slots.normals, into a reused buffer
            V += np.matmul(Z, self.LT, out=tmp)
        return V

    def _buffer(self, name, shape):
        """A reused work array (no page faults for a fresh 10 MB array every round)."""
        buf = self._buffers.get(name)
        if buf is None or buf.shape != shape:
            buf = self._buffers[name] = np.empty(shape)
        return buf

    def fresh_samples(self, xr: np.ndarray, slots: Slots, rng) -> np.ndarray:
        """One oracle sample g_i(x) = A_i x - b_i + s z at the round start of every slot
        (xr (R, d) per replicate)."""
        d = self.A.shape[1]
        if not slots.full:
            X = slots.per_replicate(xr)
            G = np.empty(slots.shape + (d,))
            for i, a, b in slots.segments():
                np.matmul(X[a:b], self.A[i], out=G[a:b])
            G -= np.take(self.b, slots.clients, axis=0)
        else:
            G = np.matmul(xr[None], self.A)
            G -= self.b[:, None, :]
        if self.scale:
            G += self.scale * slots.normals(rng, d)
        return G


def local_path_law(problem, oracle, eta: float, K: int, method: str):
    """The closed-form law if it applies to (problem, oracle) and ``method`` allows it, else None.

    method: "auto" (closed form for a QuadraticProblem with a GaussianOracle or ExactOracle,
    step by step otherwise), "closed_form" (InputError if it does not apply), "steps".
    """

    if method not in ("auto", "closed_form", "steps"):
        raise InputError("method", f"must be 'auto', 'closed_form' or 'steps', got {method!r}")
    if method == "steps":
        return None
    applies = isinstance(problem, QuadraticProblem) and type(oracle) in (GaussianOracle, ExactOracle)
    if not applies:
        if method == "closed_form":
            raise InputError("method", "the closed form needs a QuadraticProblem with a GaussianOracle or "
                                       f"ExactOracle (got {type(problem).__name__}, {type(oracle).__name__})")
        return None
    scale = oracle._scale if type(oracle) is GaussianOracle else 0.0
    return LocalPathLaw(problem, scale, eta, K)


def step_displacements(oracle, rng, slots: Slots, X: np.ndarray, corr, K: int, eta: float, *, gsum=None,
                       prox: float = 0.0):
    """The step-by-step local paths in the layout of ``slots``: K passes, each one oracle call
    per block of consecutive slots (:func:`layout_blocks`; the whole batch unless it exceeds
    CLIENT_BLOCK_ENTRIES) with ``clients`` naming each slot's client. X the round start per
    slot (a broadcast view is fine), corr per slot or None. If ``gsum`` (same shape) is given
    the oracle samples are added to it. ``prox`` > 0 adds the proximal gradient prox (y - x)
    (FedProx). Returns the displacements y_K - x per slot."""
    d = X.shape[-1]
    shape = slots.shape + (d,)
    Y = np.array(np.broadcast_to(X, shape), dtype=np.float64, copy=True)
    blocks = layout_blocks(slots.shape, d)
    for _ in range(K):
        for b in blocks:  # same draws as one call on the whole batch (see CLIENT_BLOCK_ENTRIES)
            yb = Y[b]
            g = call_oracle(oracle, yb, rng, slots.clients[b])
            if gsum is not None:
                gsum[b] += g
            if corr is not None:
                g += corr[b]
            if prox:
                g += prox * (yb - X[b])
            g *= eta
            yb -= g  # y <- y - eta (g_i(y) + u)
    Y -= X
    return Y


def step_fresh_samples(oracle, rng, slots: Slots, X: np.ndarray) -> np.ndarray:
    """One oracle sample at the round start of every slot (option I, the Run model's warm start),
    in the layout of ``slots``; one oracle call per block of :func:`layout_blocks` (the same
    draws as one call on the whole batch)."""
    Xf = np.array(np.broadcast_to(X, slots.shape + (X.shape[-1],)), dtype=np.float64, copy=True)
    G = np.empty_like(Xf)
    for b in layout_blocks(slots.shape, Xf.shape[-1]):
        G[b] = call_oracle(oracle, Xf[b], rng, slots.clients[b])
    return G
