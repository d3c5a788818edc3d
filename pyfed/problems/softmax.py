"""L2-regularised multiclass softmax regression on federated (real) data, with a held-out test set.

Client i holds samples (a_j, y_j), j in its index set J_i of size n_i, with features a_j in R^p
and labels y_j in {0, ..., C-1}. The model is a weight matrix W in R^{p x C}, flattened row by
row into x in R^d, d = p C (x[k C + c] = W[k, c]). Client i's loss is the finite sum

    f_i(x) = (1/n_i) sum_{j in J_i} l_j(x),
    l_j(x) = logsumexp(W^T a_j) - (W^T a_j)_{y_j} + (lam/2) ||W||_F^2

(cross-entropy of the softmax of the logits z_j = W^T a_j, plus the regulariser inside every
per-sample loss, so a uniformly drawn sample's gradient is an unbiased estimate of grad f_i, as
:class:`pyfed.oracles.MinibatchOracle` needs). The federated objective is the equal-client
average f = (1/N) sum_i f_i (seed 002 "equal-client objective"); with equal client sizes it is
the empirical risk of the training set.

A held-out test set (X_test, y_test) is carried along; :meth:`SoftmaxProblem.test_accuracy`
is the statistic of the SCAFFOLD paper's Table 3 (rounds until the test accuracy reaches a
target). It never enters the losses or the constants.

Numerics: log-sum-exp and softmax subtract the row maximum (overflow-free for finite logits).
Source: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Section 7 (multiclass
logistic regression on EMNIST, Table 3); the constants below are derived here.
"""

from __future__ import annotations

import math

import numpy as np

from ..data import holdout, load_dataset, split
from ..errors import InputError, check_finite_array, check_int, check_positive, check_rng
from .base import Problem, damped_newton, stack_client_parts
from .logistic import _pad_up

__all__ = ["SoftmaxProblem"]

#: Models evaluated per block in the whole-data helpers (bounds the (n, block, C) temporaries).
_EVAL_BLOCK = 256


def _labels(name: str, y, n_rows: int) -> np.ndarray:
    y = check_finite_array(name, y, ndim=1)
    if y.shape[0] != n_rows:
        raise InputError(name, f"has {y.shape[0]} labels for {n_rows} samples")
    if not np.all(y == np.round(y)) or (y.size and y.min() < 0):
        raise InputError(name, "labels must be integers >= 0 (class indices)")
    return y.astype(np.int64)


def _log_softmax_parts(Z: np.ndarray):
    """(logsumexp over the last axis, softmax) of logits Z (..., C), overflow-free."""
    m = Z.max(axis=-1, keepdims=True)
    E = np.exp(Z - m)
    s = E.sum(axis=-1, keepdims=True)
    return (np.log(s) + m)[..., 0], E / s


class SoftmaxProblem(Problem):
    """Federated L2-regularised softmax regression (see the module docstring for the loss).

    Constants (seed 000 assumptions: beta-smooth and mu-strongly convex clients). Derivation:

    * Per sample, with z = W^T a and pi = softmax(z): grad_z l = pi - e_y and
      Hess_z l = H(pi) := Diag(pi) - pi pi^T. The logits are linear in x with Jacobian
      dz/dx = a^T (x) I_C (row-major flattening), so Hess_x of the data part of l is
      (a^T (x) I_C)^T H(pi) (a^T (x) I_C) = (a a^T) (x) H(pi)  [(x) = Kronecker product].
    * 0 <= H(pi) <= (1/2) I_C: H(pi) is a covariance matrix (v^T H v = Var_pi(v) >= 0), and by
      Gershgorin each eigenvalue lies in a disc centred at pi_c(1 - pi_c) of radius
      pi_c sum_{c' != c} pi_{c'} = pi_c(1 - pi_c), so lambda_max(H) <= max_c 2 pi_c(1 - pi_c) <= 1/2.
      The constant is sharp: as pi -> (1/2, 1/2, 0, ...) the vector (e_1 - e_2)/sqrt 2 has
      Rayleigh quotient -> 1/2. (Binary logistic regression has 1/4 because its one logit is the
      difference z_1 - z_2; the softmax parametrisation carries both.)
    * Kronecker products of PSD matrices are PSD, so (a a^T) (x) ((1/2) I - H) >= 0 and
      Hess f_i(x) = (1/n_i) sum_j (a_j a_j^T) (x) H(pi_j) + lam I <= X_i^T X_i (x) I_C / (2 n_i) + lam I,
      whose top eigenvalue is lambda_max(X_i^T X_i)/(2 n_i) + lam (eigenvalues of A (x) I_C are
      those of A). By the mean-value theorem grad f_i is beta_i-Lipschitz:
      **beta = lam + max_i lambda_max(X_i^T X_i) / (2 n_i)**.
    * The data part is convex (Hessian >= 0), the regulariser lam-strongly convex: **mu = lam**.
      (Without it f is not strongly convex: adding one vector to every column of W leaves every
      softmax unchanged.)
    * Minibatch noise (for :class:`pyfed.oracles.MinibatchOracle`): a per-sample gradient is
      a (x) (pi - e_y) + lam x and ||pi - e_y||^2 = (1 - pi_y)^2 + sum_{c != y} pi_c^2
      <= 2 (1 - pi_y)^2 <= 2, so ``loss_derivative_bound = sqrt 2`` plays the role of |phi'| <= 1
      of the binary case: sigma^2 = max_i (2/b)(1/n_i) sum_j ||a_j||^2.
    * x_star: damped Newton's method (exact Hessian, Armijo backtracking) from 0 until
      ||grad f|| <= gtol; f_low = f(x*) - ||grad f(x*)||^2/(2 mu) (strong convexity), minus a
      float pad, is a certified lower bound on min f.

    Parameters
    ----------
    X_parts : sequence of N arrays (n_i, p)
        Client i's feature rows (finite; n_i >= 1 for every client).
    y_parts : sequence of N arrays (n_i,)
        Client i's class labels, integers in 0..C-1.
    lam : float > 0
        L2 weight (= mu).
    n_classes : int >= 2 | None
        C; default 1 + the largest label seen (training and test).
    X_test : array (m, p) | None;  y_test : array (m,) | None
        Held-out test set for :meth:`test_accuracy` (both or neither).
    name : str
    solve : bool
        Compute x_star, f_star, f_low by Newton's method (default True).
    gtol : float > 0;  max_newton : int >= 1
        Newton's stopping tolerance on ||grad f|| and iteration cap.

    Attributes
    ----------
    N, d, p, C : int   (d = p C)
    X : ndarray (n, p), labels : ndarray (n,) int64 -- training rows client by client
    offsets : (N + 1,), counts : (N,) n_i, owner : (n,) client of each row
    lam, beta, mu : float;  client_betas : (N,)
    client_gram_lmax : (N,) certified upper bounds on lambda_max(X_i^T X_i)/n_i
    sample_sq_norm_mean : (N,) padded-up (1/n_i) sum_j ||a_j||^2
    loss_derivative_bound : float (sqrt 2, rounded up)
    X_test, y_test : test set or None
    x_star, f_star, f_low : Newton's solution (if ``solve``)

    Raises
    ------
    InputError
        "X_parts"/"y_parts": no clients, mismatched lengths or dimensions, an empty client,
        NaN/inf, labels not integers in 0..C-1; "lam": <= 0, NaN or inf; "n_classes": < 2 or
        below a label; "X_test"/"y_test": shape mismatch or only one of them given;
        "gtol": Newton did not reach it.
    """

    convex = True
    loss_derivative_bound = math.nextafter(math.sqrt(2.0), math.inf)

    def __init__(self, X_parts, y_parts, lam, *, n_classes=None, X_test=None, y_test=None,
                 name: str = "softmax", solve: bool = True, gtol: float = 1e-10, max_newton: int = 100):
        super().__init__()
        self.name = name
        Xs, ys, p, stacked = stack_client_parts(X_parts, y_parts, _labels)
        N = len(Xs)
        if (X_test is None) != (y_test is None):
            raise InputError("X_test" if X_test is None else "y_test", "give both X_test and y_test, or neither")
        if X_test is not None:
            X_test = check_finite_array("X_test", X_test, ndim=2)
            if X_test.shape[1] != p:
                raise InputError("X_test", f"has {X_test.shape[1]} features, the clients have {p}")
            y_test = _labels("y_test", y_test, X_test.shape[0])
        top = max(int(y.max()) for y in ys)
        if y_test is not None and y_test.size:
            top = max(top, int(y_test.max()))
        C = top + 1 if n_classes is None else check_int("n_classes", n_classes, minimum=2)
        if C < 2:
            C = 2
        if top >= C:
            raise InputError("n_classes", f"n_classes={C} but a label {top} occurs (labels must be < n_classes)")
        check_positive("lam", lam)
        self.lam = float(lam)
        self.N, self.p, self.C = N, int(p), int(C)
        self.d = self.p * self.C
        self.counts, self.offsets, self.X, self.owner = (stacked[k] for k in ("counts", "offsets", "X", "owner"))
        self.labels = np.concatenate(ys)
        self.onehot = np.eye(self.C)[self.labels]  # (n, C)
        self.X_test, self.y_test = X_test, y_test
        # padded per-client blocks for the vectorised full-batch client losses
        nmax = int(self.counts.max())
        self._Xpad = np.zeros((N, nmax, self.p))
        self._Ypad = np.zeros((N, nmax, self.C))
        self._wpad = np.zeros((N, nmax))
        lmax = np.empty(N)
        sq = np.empty(N)
        for i, Xi in enumerate(Xs):
            ni = Xi.shape[0]
            self._Xpad[i, :ni] = Xi
            self._Ypad[i, :ni] = self.onehot[self.offsets[i]:self.offsets[i + 1]]
            self._wpad[i, :ni] = 1.0 / ni
            G = Xi.T @ Xi
            t = float(np.linalg.eigvalsh(G)[-1]) if self.p else 0.0
            lmax[i] = (max(t, 0.0) + 1e-10 * float(np.linalg.norm(G))) / ni
            sq[i] = _pad_up(float(np.einsum("ij,ij->", Xi, Xi)) / ni, rel=2 * (Xi.size + 1) * 2.0**-53 + 1e-12)
        self.client_gram_lmax = lmax
        self.sample_sq_norm_mean = sq
        self.mu = self.lam
        self.client_betas = np.array([_pad_up(self.lam + v / 2.0) for v in lmax])
        self.beta = float(self.client_betas.max())
        self.derivations["beta"] = (
            "beta = lam + max_i lambda_max(X_i^T X_i)/(2 n_i): Hess f_i = (1/n_i) sum_j (a_j a_j^T) (x) "
            "(Diag(pi_j) - pi_j pi_j^T) + lam I and Diag(pi) - pi pi^T <= I/2 (Gershgorin: eigenvalues <= "
            "max_c 2 pi_c (1 - pi_c)); lambda_max by numpy eigvalsh padded up by 1e-10 ||X_i^T X_i||_F")
        self.derivations["mu"] = ("mu = lam: the cross-entropy part is convex (Diag(pi) - pi pi^T is a covariance) "
                                  "and (lam/2)||W||_F^2 is lam-strongly convex")
        if solve:
            self.solve(gtol=gtol, max_newton=max_newton)

    # -- batch helpers -------------------------------------------------------------
    def _slots(self, y, clients):
        y = np.asarray(y, dtype=np.float64)
        if y.ndim < 2 or y.shape[-1] != self.d:
            raise InputError("y", f"must be shaped (..., M, d={self.d}), got {y.shape}")
        if clients is None:
            if y.shape[-2] != self.N:
                raise InputError("y", f"with clients=None the slot axis must have N={self.N} entries, got {y.shape[-2]}")
            return y, np.broadcast_to(np.arange(self.N), y.shape[:-1])
        c = np.asarray(clients)
        if c.shape != y.shape[:-1]:
            raise InputError("clients", f"must have shape y.shape[:-1]={y.shape[:-1]}, got {c.shape}")
        if c.size and (c.dtype.kind not in "iu" or c.min() < 0 or c.max() >= self.N):
            raise InputError("clients", f"must be integer client indices in 0..{self.N - 1}")
        return y, c.astype(np.int64, copy=False)

    def _weights(self, y):
        """W matrices (..., p, C) viewing the flat models y (..., d)."""
        return y.reshape(y.shape[:-1] + (self.p, self.C))

    def client_values(self, y, clients=None):
        """f_i at each slot: y (..., M, d) -> (..., M) (batch convention of :mod:`.base`)."""
        y, c = self._slots(y, clients)
        W = self._weights(y)
        A = self._Xpad[c]  # (..., M, nmax, p)
        Z = A @ W  # (..., M, nmax, C)
        lse, _ = _log_softmax_parts(Z)
        nll = lse - np.einsum("...nc,...nc->...n", Z, self._Ypad[c])
        return np.einsum("...n,...n->...", nll, self._wpad[c]) + 0.5 * self.lam * np.einsum("...d,...d->...", y, y)

    def client_grads(self, y, clients=None):
        """grad f_i at each slot: y (..., M, d) -> (..., M, d), a fresh array."""
        y, c = self._slots(y, clients)
        W = self._weights(y)
        A = self._Xpad[c]
        _, P = _log_softmax_parts(A @ W)
        P -= self._Ypad[c]
        P *= self._wpad[c][..., None]  # padded rows have weight 0
        G = np.swapaxes(A, -1, -2) @ P  # (..., M, p, C)
        G = G.reshape(y.shape)
        G += self.lam * y
        return G

    def sample_grads(self, y, clients, idx, *, reduce: str | None = "mean"):
        """Gradients of individual per-sample losses l_j (minibatch oracle interface).

        Parameters
        ----------
        y : (..., M, d)
            Points, one per slot.
        clients : (..., M) int or None
            Client of each slot (None: M == N and slot i is client i).
        idx : (..., M, b) int
            *Local* sample indices within each slot's client, 0 <= idx < n_{client}.
        reduce : "mean" | None
            "mean": (1/b) sum_k grad l_{idx_k}(y), shaped (..., M, d); None: every per-sample
            gradient, (..., M, b, d).

        Raises
        ------
        InputError
            "idx": wrong shape, non-integer, out of range; "y"/"clients" as in
            :meth:`client_grads`; "reduce": unknown value.
        """
        y, c = self._slots(y, clients)
        idx = np.asarray(idx)
        if idx.ndim != y.ndim or idx.shape[:-1] != y.shape[:-1] or idx.shape[-1] < 1:
            raise InputError("idx", f"must have shape y.shape[:-1] + (b,) = {y.shape[:-1]} + (b,), b >= 1; got {idx.shape}")
        if idx.dtype.kind not in "iu":
            raise InputError("idx", "must be integer sample indices")
        if reduce not in ("mean", None):
            raise InputError("reduce", f"must be 'mean' or None, got {reduce!r}")
        if idx.size and (idx.min() < 0 or np.any(idx >= self.counts[c][..., None])):
            raise InputError("idx", "sample indices must satisfy 0 <= idx < n_i of the slot's client")
        rows = self.offsets[c][..., None] + idx  # (..., M, b)
        A = self.X[rows]  # (..., M, b, p)
        # softmax of the logits, in place (the hot path of the minibatch oracle: few numpy calls)
        P = A @ self._weights(y)  # (..., M, b, C)
        P -= P.max(axis=-1, keepdims=True)
        np.exp(P, out=P)
        P /= P.sum(axis=-1, keepdims=True)
        P -= self.onehot[rows]  # pi - e_y
        if reduce == "mean":
            G = (np.swapaxes(A, -1, -2) @ P).reshape(y.shape)
            G *= 1.0 / idx.shape[-1]
            G += self.lam * y
            return G
        G = (A[..., :, None] * P[..., None, :]).reshape(idx.shape + (self.d,))
        return G + self.lam * y[..., None, :]

    # -- whole-data helpers ---------------------------------------------------------
    def _sample_weights(self) -> np.ndarray:
        """Weight 1/(N n_i) of each training row in f = (1/N) sum_i f_i."""
        return 1.0 / (self.N * self.counts[self.owner])

    def _blocks(self, x):
        x = np.asarray(x, dtype=np.float64)
        if x.ndim < 1 or x.shape[-1] != self.d:
            raise InputError("x", f"must be shaped (..., d={self.d}), got {x.shape}")
        flat = x.reshape(-1, self.d)
        for a in range(0, flat.shape[0], _EVAL_BLOCK):
            yield a, flat[a:a + _EVAL_BLOCK]

    def _logits(self, Xdata, block):
        """Logits of every row of Xdata (n, p) under each model of block (B, d) -> (B, n, C)."""
        W = block.reshape(-1, self.p, self.C)
        return np.einsum("np,bpc->bnc", Xdata, W, optimize=True)

    def value(self, x):
        """f(x) = (1/N) sum_i f_i(x) for x (..., d) -> (...); non-finite x gives nan."""
        x = np.asarray(x, dtype=np.float64)
        out = np.empty(int(np.prod(x.shape[:-1], dtype=np.int64)))
        w = self._sample_weights()
        with np.errstate(all="ignore"):
            for a, blk in self._blocks(x):
                Z = self._logits(self.X, blk)
                lse, _ = _log_softmax_parts(Z)
                nll = lse - np.einsum("bnc,nc->bn", Z, self.onehot)
                out[a:a + blk.shape[0]] = nll @ w + 0.5 * self.lam * np.einsum("bd,bd->b", blk, blk)
        return out.reshape(x.shape[:-1])

    def grad(self, x):
        """grad f(x) for x (..., d) -> (..., d)."""
        x = np.asarray(x, dtype=np.float64)
        out = np.empty((int(np.prod(x.shape[:-1], dtype=np.int64)), self.d))
        w = self._sample_weights()
        for a, blk in self._blocks(x):
            _, P = _log_softmax_parts(self._logits(self.X, blk))
            P -= self.onehot
            P *= w[:, None]
            out[a:a + blk.shape[0]] = np.einsum("np,bnc->bpc", self.X, P, optimize=True).reshape(-1, self.d) \
                + self.lam * blk
        return out.reshape(x.shape)

    def _correct(self, x, Xdata, ydata) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        out = np.zeros(int(np.prod(x.shape[:-1], dtype=np.int64)), dtype=np.int64)
        with np.errstate(all="ignore"):
            for a, blk in self._blocks(x):
                ok = np.all(np.isfinite(blk), axis=-1)
                pred = self._logits(Xdata, blk).argmax(axis=-1)  # (B, n); ties: lowest class
                out[a:a + blk.shape[0]] = np.where(ok, (pred == ydata).sum(axis=-1), 0)
        return out.reshape(x.shape[:-1])

    def test_correct(self, x) -> np.ndarray:
        """Number of test samples classified correctly (argmax of the logits; ties to the lowest
        class) by each model x (..., d) -> int64 (...). A non-finite model counts 0 correct.

        Raises InputError("X_test") if the problem has no test set."""
        if self.X_test is None:
            raise InputError("X_test", "this problem has no held-out test set")
        return self._correct(x, self.X_test, self.y_test)

    def test_accuracy(self, x) -> np.ndarray:
        """Test accuracy test_correct(x) / m in [0, 1] for x (..., d) -> (...)."""
        return self.test_correct(x) / self.y_test.size

    def train_accuracy(self, x) -> np.ndarray:
        """Fraction of training rows classified correctly by x (..., d) -> (...)."""
        return self._correct(x, self.X, self.labels) / self.labels.size

    def hessian(self, x) -> np.ndarray:
        """Hess f(x) (d, d) of the objective f = (1/N) sum_i f_i at one point x (d,):
        sum_j w_j (a_j a_j^T) (x) (Diag(pi_j) - pi_j pi_j^T) + lam I, w_j = 1/(N n_i).
        Raises InputError("x") for a wrong shape or non-finite x."""
        x = check_finite_array("x", x, shape=(self.d,))
        return self._objective(x)[2]

    # -- Newton ---------------------------------------------------------------------
    def _objective(self, x):
        """f, grad f and Hess f (d, d) at one x (d,)."""
        w = self._sample_weights()
        W = x.reshape(self.p, self.C)
        Z = self.X @ W
        lse, P = _log_softmax_parts(Z)
        val = float(w @ (lse - np.einsum("nc,nc->n", Z, self.onehot))) + 0.5 * self.lam * float(x @ x)
        g = (self.X.T @ ((P - self.onehot) * w[:, None])).reshape(-1) + self.lam * x
        # Hess = sum_j w_j (a_j a_j^T) (x) (Diag(pi_j) - pi_j pi_j^T) + lam I
        D = np.einsum("nk,nl,nc->klc", self.X * w[:, None], self.X, P, optimize=True)  # (p, p, C)
        H = np.zeros((self.p, self.C, self.p, self.C))
        idx = np.arange(self.C)
        H[:, idx, :, idx] = np.moveaxis(D, 2, 0)
        V = (self.X[:, :, None] * P[:, None, :]).reshape(-1, self.d)  # rows a_j (x) pi_j
        H = H.reshape(self.d, self.d) - (V * w[:, None]).T @ V + self.lam * np.eye(self.d)
        return val, g, H

    def solve(self, x0=None, *, gtol: float = 1e-10, max_newton: int = 100):
        """Compute x_star, f_star, f_low by damped Newton's method (see the class docstring).

        Parameters
        ----------
        x0 : array (d,) | None
            Start point (default 0). A warm start, e.g. the x_star of another split of the same
            training rows (same objective when every client has the same n_i), needs 0-1 steps;
            the certificate (||grad f(x*)|| <= gtol) does not depend on the start.
        gtol : float > 0;  max_newton : int >= 1

        Returns self. Raises InputError("x0") for a wrong shape or non-finite start and
        InputError("gtol") if the tolerance is not reached.
        """
        gtol = float(check_positive("gtol", gtol))
        max_newton = check_int("max_newton", max_newton, minimum=1)
        x = np.zeros(self.d) if x0 is None else check_finite_array("x0", x0, shape=(self.d,)).copy()
        self._newton(x, gtol, max_newton)
        return self

    def _newton(self, x, gtol: float, max_newton: int):
        x, it, gnorm = damped_newton(self._objective, x, gtol=gtol, max_newton=max_newton, argument="gtol",
                                     hint=f"increase lam (now {self.lam}) or gtol")
        self.x_star = x
        self.newton_iterations = it
        self.grad_norm_at_x_star = gnorm
        self.f_star = float(self.value(x))
        self.f_low = self.f_star - gnorm**2 / (2 * self.mu) - 1e-12 * (1 + abs(self.f_star))
        self.derivations["x_star"] = (f"damped Newton on f = (1/N) sum_i f_i: {it} iterations, "
                                      f"||grad f(x*)|| = {gnorm:.2e} <= {gtol:.0e}")
        self.derivations["f_low"] = "f(x*) - ||grad f(x*)||^2/(2 mu) (strong convexity), minus 1e-12 (1 + |f(x*)|)"

    # -- construction from a bundled dataset -----------------------------------------
    @classmethod
    def from_dataset(cls, name: str, N: int, scheme: str, rng, *, lam=1e-3, n_test: int = 297,
                     scale: str = "max", alpha=None, similarity=None, intercept: bool = True, min_size: int = 1,
                     problem_name: str | None = None, solve: bool = True):
        """Build the problem from a bundled multiclass dataset (default digits) split among N clients.

        Steps (all randomness from ``rng``, a Generator or int seed; spawned into two streams):
        :func:`pyfed.data.load_dataset` (unstandardised, original labels) ->
        :func:`pyfed.data.holdout` (stratified test set of ``n_test`` rows; ``scale="max"``, the
        default, divides by the largest training entry, so digits' pixel intensities 0..16 lie in
        [0, 1] as EMNIST's do in the SCAFFOLD experiments; ``"standardize"`` uses the training
        mean and standard deviation) -> optional intercept column of ones (regularised like the
        other weights) -> :func:`pyfed.data.split` of the training labels into N clients
        (``scheme``, ``alpha``, ``similarity``, ``min_size``).

        With digits (1,797 rows) the default n_test = 297 leaves 1,500 training rows: 15 per
        client at N = 100, so a minibatch of 0.2 of the local data is exactly 3 samples.

        Returns the problem; ``split_indices`` (client -> training row indices) and ``source``
        (the recipe) are attached. Errors: the :class:`InputError` of those functions.
        """

        rng = check_rng(rng)
        holdout_rng, split_rng = rng.spawn(2)
        X, y = load_dataset(name, binary=None, standardized=False)
        X_tr, y_tr, X_te, y_te = holdout(X, y, n_test, holdout_rng, scale=scale)
        if intercept:
            X_tr = np.hstack([X_tr, np.ones((X_tr.shape[0], 1))])
            X_te = np.hstack([X_te, np.ones((X_te.shape[0], 1))])
        parts = split(y_tr, N, scheme, split_rng, alpha=alpha, similarity=similarity, min_size=min_size)
        label = {"iid": "iid", "dirichlet": f"dir{alpha}", "similarity": f"sim{similarity}"}[scheme]
        C = int(max(y_tr.max(), y_te.max())) + 1
        prob = cls([X_tr[q] for q in parts], [y_tr[q] for q in parts], lam, n_classes=C, X_test=X_te, y_test=y_te,
                   name=problem_name or f"softmax-{name}-N{N}-{label}", solve=solve)
        prob.split_indices = parts
        prob.source = {"dataset": name, "n_test": int(n_test), "n_train": int(y_tr.size), "intercept": intercept,
                       "scale": scale, "N": N, "scheme": scheme, "alpha": alpha, "similarity": similarity,
                       "lam": lam}
        return prob
