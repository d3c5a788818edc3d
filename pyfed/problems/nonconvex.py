"""A smooth nonconvex federated loss: logistic regression with a nonconvex regulariser.

f_i(x) = (1/n_i) sum_{j in J_i} log(1 + exp(-s_j a_j^T x)) + lam sum_{k=1}^d phi(x_k),
phi(t) = t^2 / (1 + t^2)

(the "logistic regression with nonconvex regularisation" test problem common in the
nonconvex stochastic optimisation literature, e.g. Reddi et al. 2016; Antoniadis et al. 2011).
Used for SCAFFOLD's nonconvex theorem (seed 002, Theorem III nonconvex rate), which needs only
beta-smoothness and a lower bound f_low, no convexity.
"""

from __future__ import annotations

from .logistic import FiniteSumProblem

__all__ = ["NonconvexLogisticProblem"]


class NonconvexLogisticProblem(FiniteSumProblem):
    """Logistic loss plus lam * sum_k x_k^2/(1 + x_k^2) on federated data (nonconvex for lam > 0).

    Constants:

    * phi(t) = t^2/(1+t^2), phi'(t) = 2t/(1+t^2)^2, phi''(t) = (2 - 6t^2)/(1+t^2)^3.
      On [0, inf) in u = t^2, phi'' is decreasing for u <= 1 (from 2 at t = 0 to -1/2 at t^2 = 1) and
      increasing back towards 0 for u >= 1 (d/du [(2-6u)/(1+u)^3] = (12u - 12)/(1+u)^4), so
      phi'' in [-1/2, 2] and |phi''| <= 2. The regulariser's Hessian is lam diag(phi''(x_k)), with
      spectral norm <= 2 lam; it has negative curvature (-lam/2) at |x_k| = 1, so f is nonconvex.
    * The logistic data term has Hessian between 0 and X_i^T X_i/(4 n_i) (see
      :class:`pyfed.problems.logistic.LogisticProblem`), hence
      **beta = max_i lambda_max(X_i^T X_i)/(4 n_i) + 2 lam** (a bound on ||Hess f_i|| for every x).
    * **f_low = 0**: log(1 + exp(.)) > 0 and phi >= 0, so every f_i > 0 and f > 0.
    * mu = None, convex = False, x_star = None, f_star = None.

    Parameters
    ----------
    X_parts, y_parts, name : see :class:`pyfed.problems.logistic.FiniteSumProblem`
    lam : float >= 0
        Weight of the nonconvex regulariser.

    Raises
    ------
    InputError
        As :class:`~pyfed.problems.logistic.FiniteSumProblem` (bad data, empty client, lam < 0).
    """

    _short = "nonconvex-logistic"
    convex = False

    def __init__(self, X_parts, y_parts, lam, *, name: str = "nonconvex-logistic"):
        super().__init__(X_parts, y_parts, lam, name=name)
        self.mu = None
        self.x_star = None
        self.f_star = None
        self.client_betas = self.client_gram_lmax / 4.0 + 2.0 * self.lam
        self.beta = float(self.client_betas.max())
        self.f_low = 0.0
        self.f_low_certificate = ("f_i(x) = (1/n_i) sum_j log(1+exp(-s_j a_j^T x)) + lam sum_k x_k^2/(1+x_k^2): "
                                  "log(1+e^t) > 0 for every real t and x_k^2/(1+x_k^2) >= 0 with lam >= 0, so "
                                  "f_i > 0 and f = (1/N) sum_i f_i >= 0 =: f_low")
        self.derivations["beta"] = (
            "beta = max_i lambda_max(X_i^T X_i)/(4 n_i) + 2 lam: logistic Hessian in [0, X_i^T X_i/(4 n_i)] "
            "(p(1-p) <= 1/4); regulariser Hessian lam diag(phi''(x_k)) with phi''(t) = (2-6t^2)/(1+t^2)^3 "
            "in [-1/2, 2]; lambda_max by numpy eigvalsh padded up by 1e-10 ||X_i^T X_i||_F")
        self.derivations["f_low"] = self.f_low_certificate
        self.derivations["mu"] = "none: f is nonconvex (phi'' = -1/2 at |t| = 1)"

    def _reg_value(self, y):
        y2 = y * y
        return self.lam * (y2 / (1.0 + y2)).sum(axis=-1)

    def _reg_grad(self, y):
        return self.lam * 2.0 * y / (1.0 + y * y) ** 2
