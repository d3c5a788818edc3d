"""The federated problem interface every simulator, oracle and checker uses.

A :class:`Problem` is N client losses f_i : R^d -> R with the equal-client objective
f = (1/N) sum_i f_i (seed 002 "equal-client objective"; Lean ``SCAFFOLD.objective``), and
the constants the theorems need, each with how it was derived (``derivations``).

Batch conventions (R replicates, M client slots, d dimension):

* ``client_grads(y, clients=None)``: ``y`` shaped (..., M, d). If ``clients`` is None then
  M == N and slot i holds client i; otherwise ``clients`` is an int array shaped
  ``y.shape[:-1]`` (e.g. (R, S)) naming the client of each slot. Returns (..., M, d).
* ``client_values(y, clients=None)``: same convention, returns (..., M).
* ``value(x)`` / ``grad(x)``: the objective f and its gradient at ``x`` shaped (..., d).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..errors import InputError, check_finite_array


class Problem(ABC):
    """Abstract federated problem (see module docstring for array conventions).

    Attributes
    ----------
    name : str
        Short instance name used in reports.
    N, d : int
        Number of clients and model dimension.
    beta : float | Fraction
        Smoothness: every grad f_i is beta-Lipschitz (a certified upper bound).
    mu : float | Fraction
        Strong convexity of every f_i (0 if merely convex); ``None`` for nonconvex problems.
    x_star : ndarray (d,) | None
        A minimiser of f (``None`` when none is known / needed).
    f_star : float | Fraction | None
        f(x_star).
    f_low : float | Fraction | None
        A certified lower bound on f over all of R^d.
    derivations : dict[str, str]
        For each constant above, how it was obtained (shown in reports).
    """

    name: str = "problem"
    N: int
    d: int
    beta = None
    mu = None
    x_star = None
    f_star = None
    f_low = None
    convex: bool = True

    def __init__(self):
        self.derivations: dict[str, str] = {}

    @abstractmethod
    def client_values(self, y: np.ndarray, clients: np.ndarray | None = None) -> np.ndarray:
        """f_i at each slot of ``y`` (..., M, d) -> (..., M)."""

    @abstractmethod
    def client_grads(self, y: np.ndarray, clients: np.ndarray | None = None) -> np.ndarray:
        """grad f_i at each slot of ``y`` (..., M, d) -> (..., M, d), a freshly allocated array
        (oracles and simulators add to it in place)."""

    #: Entries (points x per-point work) evaluated at once by :meth:`value` and :meth:`grad`: a
    #: batch of points (R replicates x T rounds, say) is evaluated in consecutive blocks of rows,
    #: so the temporaries stay bounded whatever the batch size (results equal to rounding).
    EVAL_BLOCK_ENTRIES = 1 << 20

    def eval_width(self) -> int:
        """float64 entries of the temporaries one point costs in :meth:`value` / :meth:`grad`
        (the N client copies of the point; finite-sum problems add their data rows)."""
        return self.N * max(1, self.d)

    def _eval_blocks(self, x: np.ndarray):
        """(flat rows (P, d), [(a, b)] consecutive row ranges) of a batch ``x`` (..., d)."""
        flat = x.reshape(-1, self.d)
        rows = max(1, self.EVAL_BLOCK_ENTRIES // max(1, self.eval_width()))
        return flat, [(a, min(a + rows, flat.shape[0])) for a in range(0, flat.shape[0], rows)]

    def value(self, x: np.ndarray) -> np.ndarray:
        """f(x) = (1/N) sum_i f_i(x) for ``x`` shaped (..., d) -> (...), in blocks of rows."""
        x = np.asarray(x, dtype=np.float64)
        if x.ndim < 2 or x.shape[-1] != self.d:
            y = np.broadcast_to(x[..., None, :], x.shape[:-1] + (self.N, self.d))
            return self.client_values(y).mean(axis=-1)
        flat, blocks = self._eval_blocks(x)
        out = np.empty(flat.shape[0])
        for a, b in blocks:
            y = np.broadcast_to(flat[a:b, None, :], (b - a, self.N, self.d))
            out[a:b] = self.client_values(y).mean(axis=-1)
        return out.reshape(x.shape[:-1])

    def grad(self, x: np.ndarray) -> np.ndarray:
        """grad f(x) for ``x`` shaped (..., d) -> (..., d), in blocks of rows."""
        x = np.asarray(x, dtype=np.float64)
        if x.ndim < 2 or x.shape[-1] != self.d:
            y = np.broadcast_to(x[..., None, :], x.shape[:-1] + (self.N, self.d))
            return self.client_grads(y).mean(axis=-2)
        flat, blocks = self._eval_blocks(x)
        out = np.empty(flat.shape)
        for a, b in blocks:
            y = np.broadcast_to(flat[a:b, None, :], (b - a, self.N, self.d))
            out[a:b] = self.client_grads(y).mean(axis=-2)
        return out.reshape(x.shape)

    def convexity(self, mu):
        """Is every f_i mu-strongly convex (Lean ``SCAFFOLD.Convexity P mu``)? -> (holds, margin).

        Default: certified iff the problem is convex and mu <= its certified constant ``self.mu``
        (margin ``self.mu - mu``); a larger mu is reported as not certified (it may still hold).
        Nonconvex problems: (False, None). Subclasses with an exact test override this.
        """
        if not self.convex or self.mu is None:
            return False, None
        margin = self.mu - mu if not isinstance(self.mu, float) else float(self.mu) - float(mu)
        return bool(margin >= 0), margin

    def describe(self) -> dict:
        """JSON-ready summary: name, sizes, constants and their derivations."""
        def num(v):
            if v is None:
                return None
            return str(v) if not isinstance(v, float) else v
        return {
            "name": self.name, "N": self.N, "d": self.d,
            "beta": num(self.beta), "mu": num(self.mu),
            "f_star": num(self.f_star), "f_low": num(self.f_low),
            "derivations": dict(self.derivations),
        }


def stack_client_parts(X_parts, y_parts, labels) -> tuple:
    """Validate and stack the per-client data of a finite-sum problem.

    ``X_parts``: N arrays (n_i, p) of features; ``y_parts``: N label arrays (n_i,);
    ``labels(name, y_i, n_i) -> array`` checks (and converts) client i's labels, raising
    :class:`InputError` naming ``name``. Returns ``(Xs, ys, p, stacked)`` with the checked parts,
    the feature dimension p and ``stacked`` = ``{"counts": (N,) int64 n_i, "offsets": (N+1,)
    int64 row offsets, "X": (n, p) contiguous stacked features, "owner": (n,) int64 client of
    each row}``.

    Raises :class:`InputError`: "X_parts" not a sequence, no client, a client with another
    feature count or no rows, NaN/inf; "y_parts" with another number of clients; whatever
    ``labels`` raises.
    """
    try:
        X_parts = list(X_parts)
        y_parts = list(y_parts)
    except TypeError:
        raise InputError("X_parts", "must be a sequence of per-client (n_i, p) arrays") from None
    N = len(X_parts)
    if N < 1:
        raise InputError("X_parts", "needs at least one client (N >= 1)")
    if len(y_parts) != N:
        raise InputError("y_parts", f"has {len(y_parts)} clients but X_parts has {N}")
    Xs, ys, p = [], [], None
    for i, (Xi, yi) in enumerate(zip(X_parts, y_parts)):
        Xi = check_finite_array(f"X_parts[{i}]", Xi, ndim=2)
        p = Xi.shape[1] if p is None else p
        if Xi.shape[1] != p:
            raise InputError("X_parts", f"client {i} has {Xi.shape[1]} features, client 0 has {p}")
        if Xi.shape[0] < 1:
            raise InputError("X_parts", f"client {i} has no samples (every client needs n_i >= 1)")
        Xs.append(Xi)
        ys.append(labels(f"y_parts[{i}]", yi, Xi.shape[0]))
    counts = np.array([Xi.shape[0] for Xi in Xs], dtype=np.int64)
    stacked = {"counts": counts,
               "offsets": np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
               "X": np.ascontiguousarray(np.concatenate(Xs, axis=0)),
               "owner": np.repeat(np.arange(N, dtype=np.int64), counts)}
    return Xs, ys, int(p), stacked


def damped_newton(objective, x, *, gtol: float, max_newton: int, argument: str, hint: str):
    """Minimise a smooth strongly convex function by damped Newton's method (Armijo backtracking).

    ``objective(x) -> (f(x), grad f(x) (d,), Hess f(x) (d, d))`` at one point ``x`` (d,).
    Iterates x <- x - t H^-1 g with the Armijo condition f(x - t s) <= f(x) - 1e-4 t g.s; once the
    squared Newton decrement g.s falls below 1e-8 (1 + |f|) differences of f are at float
    resolution, so the full step is taken (local quadratic convergence) instead of comparing
    rounding noise. Stops when ||g|| <= gtol, after ``max_newton`` iterations, or when no descent
    is possible in floating point.

    Returns ``(x, iterations, ||grad f(x)||)``. Raises :class:`InputError` naming ``argument``
    (with ``hint`` appended) on a singular Hessian or when ||grad f|| > gtol at the end.

    Source: Boyd & Vandenberghe, *Convex Optimization*, 2004, Algorithm 9.5 (Newton's method with
    backtracking line search).
    """
    val, g, H = objective(x)
    it = 0
    while float(np.linalg.norm(g)) > gtol and it < max_newton:
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            raise InputError(argument, f"Newton's method met a singular Hessian at iteration {it}; {hint}") from None
        dec = float(g @ step)  # squared Newton decrement
        if dec <= 1e-8 * (1.0 + abs(val)):
            xn = x - step
            vn, gn, Hn = objective(xn)
        else:
            t = 1.0
            while True:
                xn = x - t * step
                vn, gn, Hn = objective(xn)
                if vn <= val - 1e-4 * t * dec:
                    break
                t *= 0.5
                if t < 1e-12:
                    break
            if t < 1e-12:
                break  # no descent possible in floating point
        x, val, g, H = xn, vn, gn, Hn
        it += 1
    gnorm = float(np.linalg.norm(g))
    if not gnorm <= gtol:
        raise InputError(argument, f"Newton's method stopped after {it} iterations with ||grad f|| = {gnorm:.3e} > "
                                   f"gtol = {gtol:.1e}; {hint}")
    return x, it, gnorm
