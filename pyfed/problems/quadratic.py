"""Quadratic clients f_i(x) = 1/2 x^T A_i x - b_i^T x (A_i symmetric PSD), rational data allowed.

Constants (seed 000 assumptions A3-A5 for this class):

* beta = max_i lambda_max(A_i) (grad f_i = A_i x - b_i is lambda_max(A_i)-Lipschitz);
* mu = min_i lambda_min(A_i) (each f_i is lambda_min(A_i)-strongly convex);
* x* solves (mean_i A_i) x = mean_i b_i, f_low = f* = f(x*) = -1/2 mean(b)^T x*.

With rational data, beta and mu are rationals *certified* exactly: the floating eigenvalue
is rounded outward to a rational and ``beta I - A_i`` / ``A_i - mu I`` are then proved PSD
by an exact rational LDL^T factorisation (:func:`is_psd_exact`). x* and f* are exact
rationals (python-flint ``fmpq_mat`` solve). With float data beta/mu come from
``numpy.linalg.eigvalsh`` padded outward by 1e-12 relative (stated in ``derivations``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..blas import small_matrix_threads
from ..errors import InputError, check_finite_array, check_int, check_rng
from ..exact import all_exact, coerce_array, to_fraction
from .base import Problem

__all__ = ["QuadraticProblem", "is_psd_exact", "random_quadratic"]


def _fmpq(v):
    import flint

    if type(v) is Fraction or type(v) is int:   # the common case: no Fraction(v) copy
        return flint.fmpq(v.numerator, v.denominator)
    if isinstance(v, (float, np.floating)):
        p, q = float(v).as_integer_ratio()  # the float's exact (dyadic) value
        return flint.fmpq(p, q)
    f = Fraction(v)
    return flint.fmpq(f.numerator, f.denominator)


def is_psd_exact(M) -> bool:
    """Exact PSD test of a symmetric matrix (d, d) of rationals, or of floats taken at their exact
    binary value (a float *is* a dyadic rational).

    Symmetric Gaussian elimination in python-flint ``fmpq`` (vectorised over numpy object
    arrays): a negative pivot refutes PSD; a zero pivot requires its whole remaining row to
    vanish. Returns True iff M is positive semidefinite. No rounding anywhere.
    """
    M = np.asarray(M, dtype=object)
    n = M.shape[0] if M.ndim == 2 else 0
    if n == 0:
        return True
    A = np.empty((n, n), dtype=object)
    for idx, v in np.ndenumerate(M):
        A[idx] = _fmpq(v)
    for k in range(n):
        p = A[k, k]
        if p < 0:
            return False
        if p == 0:
            if any(v != 0 for v in A[k, k + 1:]):
                return False
            continue
        if k + 1 < n:
            col = A[k + 1:, k] / p
            A[k + 1:, k + 1:] -= np.outer(col, A[k, k + 1:])
    return True


def is_pd_ball(M, prec: int = 128) -> bool:
    """Certified positive-definiteness test of a symmetric float matrix (d, d), fast.

    The entries are taken at their exact binary value and eliminated in python-flint ``arb``
    ball arithmetic: every computed pivot is a ball containing the exact pivot, so if every
    pivot ball is strictly positive the matrix is positive definite (sound). False means "not
    certified" (not necessarily indefinite: e.g. a singular PSD matrix).
    """
    import flint

    M = np.asarray(M, dtype=np.float64)
    n = M.shape[0] if M.ndim == 2 else 0
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        B = np.empty((n, n), dtype=object)
        for idx, v in np.ndenumerate(M):
            B[idx] = flint.arb(float(v))
        for k in range(n):
            p = B[k, k]
            if not p > 0:
                return False
            if k + 1 < n:
                col = B[k + 1:, k] / p
                B[k + 1:, k + 1:] -= np.outer(col, B[k, k + 1:])
        return True
    finally:
        flint.ctx.prec = old


def is_psd_certified(M) -> bool:
    """PSD test of a float matrix at its exact value: the fast ball test (:func:`is_pd_ball`),
    then, only if that cannot certify, the exact rational elimination (:func:`is_psd_exact`)."""
    return is_pd_ball(M) or is_psd_exact(M)


def _outward_candidates(x: float, up: bool):
    """Short rationals >= x (up) or <= x (down): ceil/floor(x*D)/D for D = 10, ..., 1e6."""
    for e in range(1, 7):
        D = 10**e
        v = x * D
        k0 = round(v)  # nearest grid point: exact when lambda is on the grid (caller certifies)
        yield Fraction(k0, D)
        k = math.ceil(v + 1e-9 * abs(v)) if up else math.floor(v - 1e-9 * abs(v))
        if k != k0:
            yield Fraction(k, D)


def _as_float_array(name, obj):
    try:
        return np.asarray(obj, dtype=object).astype(np.float64)
    except (TypeError, ValueError, ZeroDivisionError):
        raise InputError(name, "entries must be numbers, Fractions or rational strings such as '1/3' "
                               "(got an entry that is neither)") from None


def _rows_constant(clients: np.ndarray) -> bool:
    """True when every row of a 2-D index array names one client (O(1) for a broadcast view)."""
    if clients.strides[1] == 0:
        return True
    return bool(np.all(clients == clients[:, :1]))


_EXACT_DERIVATIONS = ("max_i lambda_max(A_i), rounded up to a rational and certified "
                      "exactly: beta*I - A_i is PSD by rational LDL^T",
                      "min_i lambda_min(A_i), rounded down to a rational and certified "
                      "exactly: A_i - mu*I is PSD by rational LDL^T")

#: Certified (beta, mu) of rational data (the same A_i give the same constants: the searches build
#: the same candidate problems for every statement), least recently used dropped first; per process.
EXACT_CONSTANTS_MEMO_SIZE = 1024
_EXACT_CONSTANTS: dict = {}


class QuadraticProblem(Problem):
    """N quadratic clients f_i(x) = 1/2 x^T A_i x - b_i^T x.

    Parameters
    ----------
    A : array (N, d, d)
        Symmetric PSD Hessians; entries may be int/Fraction/str ("1/3") for exact data.
    b : array (N, d)
        Linear terms.
    name : str
    beta, mu : optional
        Override the computed constants; they are verified (exactly for rational data)
        and an :class:`InputError` is raised if beta < lambda_max or mu > lambda_min.
        Dimension d = 0 (allowed by seed 000: x lives in R^0 = {0}) has no data to derive
        them from: every f_i is the constant 0, which is beta-smooth for *every* beta > 0 and
        mu-strongly convex for every mu, so any beta > 0 is a valid constant; the default is
        ``beta = 1`` (recorded in ``derivations["beta"]``; pass ``beta=`` to choose another)
        and ``mu = 0``.

    Attributes
    ----------
    A, b : float64 arrays (N, d, d), (N, d)
    A_exact, b_exact : object arrays of Fraction, or None for float data
    exact : bool
        True when all data are rational: then beta, mu and f_star are Fractions and the exact
        minimiser is ``x_star_exact`` ((d,) object array of Fractions; ``x_star`` is its float64
        copy for simulators), and ``grads_exact(x)`` gives exact client gradients. Pass
        ``x_star_exact``/``grads_exact`` to :mod:`pyfed.theory` to keep its results exact
        (e.g. C0 = ``initial_control_error(c0, grads_exact(x_star_exact))``).

    Raises
    ------
    InputError
        Wrong shapes, NaN/inf entries, a non-symmetric or non-PSD A_i, or singular mean(A).
    """

    def __init__(self, A, b, *, name: str = "quadratic", beta=None, mu=None):
        super().__init__()
        self.name = name
        A_obj = np.asarray(A, dtype=object)
        b_obj = np.asarray(b, dtype=object)
        if A_obj.ndim != 3 or A_obj.shape[1] != A_obj.shape[2]:
            raise InputError("A", f"must have shape (N, d, d), got {A_obj.shape}")
        N, d = A_obj.shape[0], A_obj.shape[1]
        if N < 1:
            raise InputError("A", "needs at least one client (N >= 1)")
        if b_obj.shape != (N, d):
            raise InputError("b", f"must have shape (N, d) = ({N}, {d}), got {b_obj.shape}")
        self.N, self.d = N, d
        self.exact = all_exact(A_obj.ravel().tolist()) and all_exact(b_obj.ravel().tolist())
        if self.exact:
            self.A_exact = coerce_array(A_obj, True)
            self.b_exact = coerce_array(b_obj, True)
            self.A = np.array([[[float(v) for v in row] for row in Ai] for Ai in self.A_exact], dtype=np.float64).reshape(N, d, d)
            self.b = np.array([[float(v) for v in row] for row in self.b_exact], dtype=np.float64).reshape(N, d)
            if any(self.A_exact[i, j, k] != self.A_exact[i, k, j] for i in range(N) for j in range(d) for k in range(d)):
                raise InputError("A", "every A_i must be symmetric")
        else:
            self.A_exact = self.b_exact = None
            self.A = check_finite_array("A", _as_float_array("A", A_obj), shape=(N, d, d))
            self.b = check_finite_array("b", _as_float_array("b", b_obj), shape=(N, d))
            if not np.allclose(self.A, np.swapaxes(self.A, 1, 2), rtol=0, atol=1e-12 * max(1.0, np.abs(self.A).max())):
                raise InputError("A", "every A_i must be symmetric")
            self.A = 0.5 * (self.A + np.swapaxes(self.A, 1, 2))
        if not (np.all(np.isfinite(self.A)) and np.all(np.isfinite(self.b))):
            raise InputError("A", "contains NaN or infinite entries")
        self._certify_constants(beta, mu)
        self._solve_minimiser()

    def hessian_eigh(self) -> tuple[np.ndarray, np.ndarray]:
        """The eigendecompositions A_i = Q_i diag(lam_i) Q_i^T of the float Hessians, computed once
        per problem (``numpy.linalg.eigh`` with the BLAS thread limit of :mod:`pyfed.blas`) and
        reused by every simulation of it (:class:`pyfed.algorithms.rounds.LocalPathLaw`).

        Returns
        -------
        lam : ndarray float64 (N, d)
            Eigenvalues of each A_i, ascending.
        Q : ndarray float64 (N, d, d)
            Orthonormal eigenvectors, column j of Q_i for lam_i[j]. Both arrays are read-only.
        """
        cached = self.__dict__.get("_hessian_eigh")
        if cached is None:
            with small_matrix_threads(self.d):
                lam, Q = np.linalg.eigh(self.A)
            lam.setflags(write=False)
            Q.setflags(write=False)
            cached = self._hessian_eigh = (lam, Q)
        return cached

    # -- constants -----------------------------------------------------------------
    def _certify_constants(self, beta, mu):
        if self.d == 0:  # R^0: every f_i is constant, beta-smooth and mu-strongly convex for all beta, mu
            self.beta = (Fraction(1) if beta is None else Fraction(beta)) if self.exact else \
                (1.0 if beta is None else float(beta))
            self.mu = (Fraction(0) if mu is None else Fraction(mu)) if self.exact else (0.0 if mu is None else float(mu))
            if not self.beta > 0:
                raise InputError("beta", f"must be > 0, got {beta!r}")
            self.derivations["beta"] = ("d = 0: every f_i is the constant 0 on R^0, beta-smooth for every beta > 0; "
                                        + ("beta = 1 by default" if beta is None else "beta as given"))
            self.derivations["mu"] = ("d = 0: every f_i is mu-strongly convex for every mu on R^0; "
                                      + ("mu = 0 by default" if mu is None else "mu as given"))
            return
        key = None
        if self.exact and beta is None and mu is None:
            key = (self.N, self.d) + tuple(self.A_exact.ravel())
            hit = _EXACT_CONSTANTS.pop(key, None)
            if hit is not None:
                _EXACT_CONSTANTS[key] = hit
                self.beta, self.mu = hit
                self.derivations["beta"], self.derivations["mu"] = _EXACT_DERIVATIONS
                return
        with small_matrix_threads(self.d):
            eig = np.linalg.eigvalsh(self.A)
        lmax = float(eig.max()) if self.d else 0.0
        lmin = float(eig.min()) if self.d else 0.0
        if self.exact:
            I = np.eye(self.d, dtype=object)
            if mu is None:
                mu_c = Fraction(0)
                if lmin > 0:
                    for cand in _outward_candidates(lmin, up=False):
                        if cand > mu_c and all(is_psd_exact(Ai - cand * I) for Ai in self.A_exact):
                            mu_c = cand
            else:
                mu_c = Fraction(mu)
            if beta is None:
                beta_c = None
                for cand in _outward_candidates(max(lmax, 0.0), up=True):
                    if cand > 0 and (beta_c is None or cand < beta_c) and all(
                            is_psd_exact(cand * I - Ai) for Ai in self.A_exact):
                        beta_c = cand
                if beta_c is None:  # pragma: no cover - float eigenvalues off by > 1e-9 relative
                    raise InputError("A", "could not certify a rational smoothness constant beta")
            else:
                beta_c = Fraction(beta)
            for i, Ai in enumerate(self.A_exact):
                if not is_psd_exact(Ai - mu_c * I):
                    raise InputError("mu" if mu is not None else "A",
                                     f"A_{i} - mu I is not PSD for mu={mu_c} (A_i must be PSD; mu <= lambda_min)")
                if not is_psd_exact(beta_c * I - Ai):
                    raise InputError("beta", f"beta={beta_c} is below lambda_max(A_{i})")
            self.beta, self.mu = beta_c, mu_c
            self.derivations["beta"], self.derivations["mu"] = _EXACT_DERIVATIONS
            if key is not None:
                _EXACT_CONSTANTS[key] = (beta_c, mu_c)
                while len(_EXACT_CONSTANTS) > EXACT_CONSTANTS_MEMO_SIZE:
                    del _EXACT_CONSTANTS[next(iter(_EXACT_CONSTANTS))]
        else:
            # floats are dyadic rationals: certify the float constants for the float matrices
            # exactly as stored (ball LDL^T, exact fallback), never by eigvalsh alone
            I = np.eye(self.d)
            if beta is None:
                beta_c = None
                for pad in (1e-9, 1e-7, 1e-5):
                    cand = max(lmax * (1 + pad), 1e-300) + pad * 1e-12
                    if all(is_pd_ball(cand * I - Ai) for Ai in self.A):
                        beta_c = float(cand)
                        break
                if beta_c is None:  # pragma: no cover - eigvalsh off by more than 1e-5 relative
                    raise InputError("A", "could not certify a smoothness constant beta")
            else:
                beta_c = float(beta)
                if not all(is_psd_certified(beta_c * I - Ai) for Ai in self.A):
                    raise InputError("beta", f"beta={beta} is below max_i lambda_max(A_i) (~{lmax:.6g})")
            if mu is None:
                mu_c = 0.0
                if lmin > 0:
                    for pad in (1e-9, 1e-7, 1e-5):
                        cand = lmin * (1 - pad)
                        if all(is_pd_ball(Ai - cand * I) for Ai in self.A):
                            mu_c = float(cand)
                            break
                if mu_c == 0.0 and not all(is_psd_certified(Ai) for Ai in self.A):
                    raise InputError("A", f"every A_i must be positive semidefinite (smallest eigenvalue ~{lmin:.3e}; "
                                          "checked exactly at the floats' binary values)")
            else:
                mu_c = float(mu)
                if not all(is_psd_certified(Ai - mu_c * I) for Ai in self.A):
                    raise InputError("mu", f"mu={mu} exceeds min_i lambda_min(A_i) (~{lmin:.6g}) or A_i is not PSD")
            self.beta, self.mu = beta_c, mu_c
            self.derivations["beta"] = ("max_i lambda_max(A_i) (eigvalsh) padded up; certified: beta*I - A_i is "
                                        "positive definite by arb-ball LDL^T on the floats' exact values")
            self.derivations["mu"] = ("min_i lambda_min(A_i) (eigvalsh) padded down; certified: A_i - mu*I is "
                                      "PSD by arb-ball LDL^T (exact rational fallback) on the floats' exact values")

    def _solve_minimiser(self):
        if self.exact:
            import flint
            Abar = flint.fmpq_mat(self.d, self.d, [flint.fmpq(v.numerator, v.denominator)
                                                   for v in (self.A_exact.sum(axis=0) / self.N).ravel()])
            bbar = flint.fmpq_mat(self.d, 1, [flint.fmpq(v.numerator, v.denominator)
                                              for v in (self.b_exact.sum(axis=0) / self.N).ravel()])
            if self.d and Abar.det() == 0:
                raise InputError("A", "mean_i A_i is singular: the minimiser of f is not unique or does not exist")
            xs = Abar.solve(bbar) if self.d else None
            self.x_star_exact = np.array([Fraction(int(xs[j, 0].p), int(xs[j, 0].q)) for j in range(self.d)], dtype=object)
            bbar_f = self.b_exact.sum(axis=0) / self.N
            self.f_star = -sum((bbar_f[j] * self.x_star_exact[j] for j in range(self.d)), Fraction(0)) / 2
            self.x_star = np.array([float(v) for v in self.x_star_exact], dtype=np.float64)
            self.derivations["x_star"] = "exact rational solve of mean(A) x = mean(b) (python-flint fmpq_mat)"
        else:
            Abar = self.A.mean(axis=0)
            bbar = self.b.mean(axis=0)
            try:
                cond = np.linalg.cond(Abar) if self.d else 1.0
            except np.linalg.LinAlgError:
                cond = np.inf
            if not np.isfinite(cond) or cond > 1e12:
                raise InputError("A", "mean_i A_i is singular or ill-conditioned (cond > 1e12)")
            self.x_star_exact = None
            self.x_star = np.linalg.solve(Abar, bbar) if self.d else np.zeros(0)
            self.f_star = float(-0.5 * bbar @ self.x_star)
            self.derivations["x_star"] = "numpy.linalg.solve of mean(A) x = mean(b)"
            g = Abar @ self.x_star - bbar
            if self.mu > 0:  # f is mu-strongly convex: min f >= f(x) - ||grad f(x)||^2 / (2 mu)
                fx = float(self.value(self.x_star))
                self.f_low = fx - float(g @ g) / (2 * self.mu) - 1e-12 * (1 + abs(fx))
                self.derivations["f_low"] = ("f(x^) - ||grad f(x^)||^2/(2 mu) at the float solve x^, minus "
                                             "1e-12 (1 + |f(x^)|) for floating-point evaluation error")
            else:
                self.f_low = self.f_star
                self.derivations["f_low"] = "f(x^) at the float solve x^ (not certified: mu = 0)"
            return
        self.f_low = self.f_star
        self.derivations["f_low"] = "f_low = f(x*) exactly (f is convex quadratic, x* its exact minimiser)"

    def convexity(self, mu):
        """Every f_i mu-strongly convex iff A_i - mu I is PSD for all i: decided exactly (rational
        LDL^T) for rational data and rational mu; otherwise mu <= the certified ``self.mu``.

        Returns (holds, margin) with margin = certified mu - mu when that is >= 0, else None
        when the exact test holds beyond the rounded certified constant.
        """

        m = to_fraction(mu)
        if self.exact and m is not None:
            I = np.eye(self.d, dtype=object)
            holds = all(is_psd_exact(Ai - m * I) for Ai in self.A_exact)
            margin = self.mu - m
            return holds, (margin if (margin >= 0) == holds else None)
        return super().convexity(mu)

    def __repr__(self) -> str:
        kind = "rational" if self.exact else "float"
        return f"QuadraticProblem(name={self.name!r}, N={self.N}, d={self.d}, {kind} data, beta={self.beta}, mu={self.mu})"

    # -- evaluation ------------------------------------------------------------------
    def _gather(self, clients, shape):
        if clients is None:
            if shape[-1] != self.N:
                raise InputError("y", f"with clients=None the slot axis must have N={self.N} entries, got {shape[-1]}")
            return self.A, self.b
        clients = np.asarray(clients)
        return self.A[clients], self.b[clients]

    def client_grads(self, y, clients=None):
        """A_i y_i - b_i for each slot; y: (..., M, d) -> (..., M, d)."""
        y = np.asarray(y, dtype=np.float64)
        if clients is None:
            A, b = self._gather(None, y.shape[:-1])
            lead = y.shape[:-2]
            yy = y.reshape((-1, self.N, self.d)).transpose(1, 0, 2)  # (N, P, d)
            g = np.matmul(yy, A).transpose(1, 0, 2).reshape(lead + (self.N, self.d))  # A symmetric
            return g - b
        clients = np.asarray(clients)
        if clients.ndim == 2 and y.ndim == 3 and clients.shape[1] and _rows_constant(clients):
            # client-major batch (n, m, d), row j all of client ids[j] (the simulators' layout):
            # one batched product with the rows' Hessians, no regrouping
            ids = clients[:, 0]
            if ids.size and np.all(np.diff(ids) == 1):
                A, b = self.A[ids[0]:ids[-1] + 1], self.b[ids[0]:ids[-1] + 1]
            else:
                A, b = self.A[ids], self.b[ids]
            g = np.matmul(y, A)  # row m of block j is (A_j y)^T since A_j is symmetric
            g -= b[:, None, :]
            return g
        flat = clients.reshape(-1)
        if clients.ndim == 1 and y.ndim == 2 and flat.size and np.all(flat[1:] >= flat[:-1]):
            # slots sorted by client (the simulators' layout when S < N): one product per
            # client on its contiguous range, no regrouping
            bounds = np.searchsorted(flat, np.arange(self.N + 1))
            g = np.empty_like(y)
            for i in np.flatnonzero(bounds[1:] > bounds[:-1]):
                a, z = bounds[i], bounds[i + 1]
                np.matmul(y[a:z], self.A[i], out=g[a:z])  # A_i symmetric
            g -= self.b[flat]
            return g
        counts = np.bincount(flat, minlength=self.N) if flat.size else np.zeros(self.N, dtype=np.int64)
        m_max = int(counts.max()) if flat.size else 0
        if m_max * self.N > 4 * flat.size:  # few slots: gathering their Hessians is cheaper
            A, b = self._gather(clients, y.shape[:-1])
            return np.einsum("...ij,...j->...i", A, y) - b
        # group the slots by client into a zero-padded (N, m_max, d) stack and do one batched
        # matmul with the (N, d, d) Hessians (each A_i read once; no (..., M, d, d) gather)
        yf = y.reshape(-1, self.d)
        order = np.argsort(flat, kind="stable")
        sorted_clients = flat[order]
        rank = np.arange(flat.size) - (np.cumsum(counts) - counts)[sorted_clients]
        Y = np.zeros((self.N, m_max, self.d))
        Y[sorted_clients, rank] = yf[order]
        G = np.matmul(Y, self.A)  # row m of block i is (A_i y)^T since A_i is symmetric
        g = np.empty_like(yf)
        g[order] = G[sorted_clients, rank]
        g -= self.b[flat]
        return g.reshape(y.shape)

    def client_values(self, y, clients=None):
        """1/2 y^T A_i y - b_i^T y for each slot; y: (..., M, d) -> (..., M)."""
        y = np.asarray(y, dtype=np.float64)
        g = self.client_grads(y, clients)
        A, b = self._gather(clients, y.shape[:-1])
        bb = np.broadcast_to(b, y.shape)
        # 1/2 y^T A y - b^T y = 1/2 y^T (A y - b) - 1/2 b^T y
        return 0.5 * np.einsum("...i,...i->...", y, g) - 0.5 * np.einsum("...i,...i->...", bb, y)

    def value(self, x):
        x = np.asarray(x, dtype=np.float64)
        Abar, bbar = self.A.mean(axis=0), self.b.mean(axis=0)
        return 0.5 * np.einsum("...i,ij,...j->...", x, Abar, x) - x @ bbar

    def grad(self, x):
        x = np.asarray(x, dtype=np.float64)
        return x @ self.A.mean(axis=0) - self.b.mean(axis=0)

    # exact helpers used by the exact-moment engine and the checkers
    def value_exact(self, x) -> Fraction:
        """f(x) as an exact Fraction for a rational vector x (requires rational data)."""
        if not self.exact:
            raise InputError("problem", "value_exact needs rational data")
        x = coerce_array(x, True)
        Abar = self.A_exact.sum(axis=0) / self.N
        bbar = self.b_exact.sum(axis=0) / self.N
        return Fraction(1, 2) * (x @ Abar @ x) - bbar @ x

    def grads_exact(self, x):
        """(N, d) object array of exact client gradients A_i x - b_i at rational x."""
        if not self.exact:
            raise InputError("problem", "grads_exact needs rational data")
        x = coerce_array(x, True)
        return np.array([Ai @ x - bi for Ai, bi in zip(self.A_exact, self.b_exact)], dtype=object).reshape(self.N, self.d)


def random_quadratic(N: int, d: int, rng, *, mu: float = 0.1, L: float = 1.0, rational: bool = False,
                     heterogeneity: float = 1.0, name: str | None = None) -> QuadraticProblem:
    """A seeded random quadratic instance: A_i = Q_i diag(spectrum in [mu, L]) Q_i^T, b_i ~ N(0, heterogeneity^2 I).

    With ``rational=True`` the data are small-denominator rationals (A_i = mu I + B_i B_i^T
    scaled into [mu, L] with B_i entries in {k/4}), so every constant is exact.
    """
    rng = check_rng(rng)
    N = check_int("N", N, minimum=1)
    d = check_int("d", d, minimum=1)
    if not (0 <= float(mu) <= float(L)) or not float(L) > 0:
        raise InputError("mu", f"need 0 <= mu <= L and L > 0 (the spectrum of each A_i lies in [mu, L]), got mu={mu}, L={L}")
    if rational:
        A = np.empty((N, d, d), dtype=object)
        b = np.empty((N, d), dtype=object)
        mu_f, L_f = Fraction(mu).limit_denominator(1000), Fraction(L).limit_denominator(1000)
        for i in range(N):
            B = np.array([[Fraction(int(v), 4) for v in row] for row in rng.integers(-4, 5, size=(d, d))], dtype=object)
            M = B @ B.T
            tr = sum(M[j, j] for j in range(d)) or Fraction(1)
            scale = (L_f - mu_f) / tr  # lambda_max(M) <= trace(M)
            A[i] = M * scale + np.eye(d, dtype=object) * mu_f
            b[i] = np.array([Fraction(int(v), 4) for v in rng.integers(-8, 9, size=d)], dtype=object) * Fraction(heterogeneity).limit_denominator(100)
        return QuadraticProblem(A, b, name=name or f"quadratic-rational-N{N}-d{d}")
    A = np.empty((N, d, d))
    for i in range(N):
        Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
        lam = rng.uniform(mu, L, size=d)
        lam[0], lam[-1] = mu, L
        A[i] = (Q * lam) @ Q.T
    b = heterogeneity * rng.standard_normal((N, d))
    return QuadraticProblem(A, b, name=name or f"quadratic-N{N}-d{d}")
